"""The `init` command: the stdio adapter a new implementation starts from, in Python, Node or Go.

The scaffolds are plain files in `ctxconform/conformance/scaffold/<language>/`: one ending in `.tmpl` is written
without that suffix and with its `$placeholders` substituted (`string.Template`), any other as it is; `_*.tmpl` are
the snippets written once per spec (`_spec`) and per operation (`_operation`, `_route`). The operations are each
spec's own (`Spec.operations`), never listed here: every one answers NOT_IMPLEMENTED until the user writes it.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any, Final

from ctxconform.conformance.cli._common import EXIT_CONFORMANT
from ctxconform.conformance.exceptions import ConfigurationError
from ctxconform.conformance.judge._specs import Spec, resolve_specs

__all__ = ["add_parser", "next_command", "scaffold"]

_SCAFFOLDS: Final = Path(__file__).resolve().parents[1] / "scaffold"
_RUN: Final = "run"
# A `.gitignore` in the kit's own tree would apply to the kit's files: the scaffold's is named without the dot.
_DOTTED: Final = frozenset({"gitignore"})
_DEFAULT_NAME: Final = "my-implementation"


@dataclass(frozen=True)
class _Language:
    """What the command knows of a scaffold's language; everything else is in its templates."""

    source: str  # the file the user writes the operations in
    camel_case: bool  # function names in camelCase, else snake_case


_LANGUAGES: Final = {
    "python": _Language("server.py", camel_case=False),
    "node": _Language("server.js", camel_case=True),
    "go": _Language("main.go", camel_case=True),
}


@dataclass(frozen=True)
class _Operation:
    spec: Spec
    op: str
    function: str


def add_parser(commands: Any) -> None:
    """Add the `init` command."""
    init = commands.add_parser(
        "init",
        help="write a stdio adapter to start an implementation from (Python, Node or Go): it answers every call NOT_IMPLEMENTED",
    )
    init.add_argument("--lang", required=True, choices=_LANGUAGES, help="the adapter's language")
    init.add_argument("--spec", action="append", required=True, metavar="S", help="spec to implement (repeatable)")
    init.add_argument(
        "--force", action="store_true", help="write into DIR even when it is not empty (files of the same names are replaced)"
    )
    init.add_argument("dir", metavar="DIR", help="the folder to create; the adapter is then stdio:DIR/run")
    init.set_defaults(command=_init)


def _init(options: argparse.Namespace) -> int:
    chosen = resolve_specs(options.spec)
    text = str(options.dir)
    folder = Path(text)
    _check_folder(folder, text, force=options.force)
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", folder.resolve().name).strip("-._") or _DEFAULT_NAME
    command = next_command(text, chosen)
    files = scaffold(options.lang, chosen, name=name, command=command)
    _write(folder, files)
    language = _LANGUAGES[options.lang]
    what = {_RUN: "the adapter", language.source: "one function per operation", "README.md": "what to do next"}
    width = max(len(_shown(text, file)) for file in files) + 2
    print(f"ctxconform init: a {options.lang} stdio adapter for {', '.join(s.id for s in chosen)} in {text}")
    for file in files:
        print(f"  {_shown(text, file):<{width}}{what.get(file, '')}".rstrip())
    print(f"Run the suites against it (not conformant until the operations are written):\n  {command}")
    first = next(iter(_operations(chosen, camel_case=language.camel_case)), None)
    source = _shown(text, language.source)
    if first is None:
        print(f"Start in {source}: the chosen specs have no operation in their schemas; add yours there.")
        return EXIT_CONFORMANT
    line = next(n for n, code in enumerate(files[language.source].splitlines(), start=1) if f" {first.function}(" in code)
    print(
        f"Start editing {source}:{line} ({first.spec.id} {first.op}): each operation answers NOT_IMPLEMENTED until it is"
        f" written; {_shown(text, 'README.md')} says what comes next."
    )
    return EXIT_CONFORMANT


def next_command(folder: str, chosen: Iterable[Spec]) -> str:
    """The command that runs the suites against the adapter in `folder` (as the user named it), quoted for a shell."""
    adapter = "stdio:" + shlex.quote(_shown(folder, _RUN))
    return shlex.join(["ctxconform", "run", "--adapter", adapter, *(word for s in chosen for word in ("--spec", s.id))])


def scaffold(language: str, chosen: list[Spec], *, name: str, command: str) -> dict[str, str]:
    """The files of the `language` scaffold for the `chosen` specs: file name -> its text."""
    templates = _SCAFFOLDS / language
    operations = _operations(chosen, camel_case=_LANGUAGES[language].camel_case)
    first = next(iter(operations), None)
    values = {
        "name": name,
        "name_literal": json.dumps(name),
        "module": name,
        "package_literal": json.dumps(name.lower()),
        "spec_ids": ", ".join(spec.id for spec in chosen),
        "command": command,
        "first": "the first you add" if first is None else f"`{first.function}` ({first.spec.id} {first.op})",
        "operations": _snippets(templates / "_operation.tmpl", (_operation_values(o) for o in operations)),
        "specs": _snippets(templates / "_spec.tmpl", (_spec_values(spec, operations, templates) for spec in chosen)),
    }
    files = {}
    for path in sorted(templates.iterdir()):
        if path.name.startswith("_"):
            continue
        written = path.name.removesuffix(".tmpl")
        written = f".{written}" if written in _DOTTED else written
        text = path.read_text(encoding="utf-8")
        files[written] = Template(text).substitute(values) if path.name.endswith(".tmpl") else text
    return files


def _operations(chosen: list[Spec], *, camel_case: bool) -> list[_Operation]:
    """Every operation of the chosen specs, each with a function name of its own in the language's style."""
    found, taken = [], set()
    for spec in chosen:
        for op in spec.operations:
            words = re.findall(r"[A-Za-z0-9]+", f"{spec.id} {op}") or ["operation"]
            if camel_case:
                function = words[0].lower() + "".join(word[:1].upper() + word[1:] for word in words[1:])
            else:
                function = "_".join(word.lower() for word in words)
            function = f"op_{function}" if function[0].isdigit() else function
            unique, n = function, 1
            while unique in taken:
                n += 1
                unique = f"{function}{n}"
            taken.add(unique)
            found.append(_Operation(spec, op, unique))
    return found


def _operation_values(operation: _Operation) -> dict[str, str]:
    spec, op = operation.spec, operation.op
    request, response = spec.schemas / f"{op}.request.json", spec.schemas / f"{op}.response.json"
    if request.is_file() and response.is_file():
        schemas = f"Request: {request.name}, result: {response.name}."
    else:
        schemas = f'Request and result: "{spec.id} operations" in the kit\'s README.'
    return {
        "function": operation.function,
        "spec": spec.id,
        "op": op,
        "spec_literal": json.dumps(spec.id),
        "op_literal": json.dumps(op),
        "schemas": schemas,
    }


def _spec_values(spec: Spec, every: list[_Operation], templates: Path) -> dict[str, str]:
    operations = [o for o in every if o.spec == spec]
    width = max((len(json.dumps(o.op)) for o in operations), default=0)
    routes = [{**_operation_values(o), "aligned": f"{json.dumps(o.op) + ':':<{width + 1}}"} for o in operations]
    optional = sorted({r.feature for r in spec.registry.requirements if r.feature})
    return {
        "spec": spec.id,
        "version": spec.version,
        "features": f"May declare: {', '.join(optional)}." if optional else "The spec has no optional features.",
        "spec_literal": json.dumps(spec.id),
        "version_literal": json.dumps(spec.version),
        "routes": _snippets(templates / "_route.tmpl", routes),
    }


def _snippets(template: Path, values: Iterable[dict[str, str]]) -> str:
    """The snippet written once for each set of values, one after the other, without the last one's line ends."""
    snippet = Template(template.read_text(encoding="utf-8"))
    return "".join(snippet.substitute(each) for each in values).rstrip("\n")


def _check_folder(folder: Path, text: str, *, force: bool) -> None:
    """Refuse a file in place of the folder, and a folder that is not empty unless forced."""
    if folder.exists() and not folder.is_dir():
        raise ConfigurationError(f"{text} is not a folder; name a new folder for the adapter")
    try:
        occupied = folder.is_dir() and any(folder.iterdir())
    except OSError as error:
        raise ConfigurationError(f"cannot read the folder {text}: {error.strerror}") from error
    if occupied and not force:
        raise ConfigurationError(f"{text} is not empty; name a new folder, or give --force to write the scaffold into it")


def _write(folder: Path, files: dict[str, str]) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            path = folder / name
            path.write_text(text, encoding="utf-8")
            if name == _RUN:
                path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    except OSError as error:
        raise ConfigurationError(f"cannot write the scaffold into {folder}: {error.strerror}") from error


def _shown(folder: str, name: str) -> str:
    """`name` inside `folder`, written as the user wrote the folder."""
    return f"{folder.rstrip('/')}/{name}"
