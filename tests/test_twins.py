"""Permissive twins are judged conformant: whatever a spec allows passes, in-process and over stdio.

Each twin in `tests/twins/` is a second implementation of one spec, written apart from the reference, that takes
every liberty its spec allows (its module's `LIBERTIES` table says which, with the sentence that allows each).
Mutants prove the suites catch what a spec forbids; twins prove they do not fail what it allows.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxconform.conformance.judge import specs

TESTS = Path(__file__).resolve().parent
SPEC_TEXTS = TESTS.parents[1] / "shared" / "specs"
# A quotation in a liberty's `allowed_by`: single, double or curly quotes around at least eight characters.
QUOTED = re.compile(r"""(?:^|[\s(:])['"“]([^'"”]{8,}?)['"”](?=[\s),.:;]|$)""")
TWINS = sorted(path.stem for path in (TESTS / "twins").glob("[!_]*.py"))
# Every twin class of every twin module (`Twin`, and variants taking another reading, such as `TwinWithoutRetention`).
VARIANTS = sorted(
    (module, name)
    for module in TWINS
    for name, value in vars(importlib.import_module(f"twins.{module}")).items()
    if name.startswith("Twin") and isinstance(value, type) and value.__module__ == f"twins.{module}"
)


def twin_spec(module: str) -> str:
    """The spec a twin implements."""
    return str(importlib.import_module(f"twins.{module}").Twin.spec)


def run_twin(adapter: str, spec: str, folder: Path) -> dict[str, Any]:
    """Run one spec's whole suite against a twin; return its report."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "ctxconform.conformance.cli", "run", "--adapter", adapter, "--spec", spec]
    command += ["--seed", "1", "--profile", "dev", "--quiet", "--report-dir", str(folder)]
    subprocess.run(command, capture_output=True, text=True, check=False, timeout=900, env=env)
    (report,) = json.loads((folder / "report.json").read_text(encoding="utf-8"))["implementations"]
    return report  # type: ignore[no-any-return]


def failures(report: dict[str, Any]) -> list[str]:
    """What kept a report from conformant: each non-passing requirement with its first failing test's message."""
    found = []
    for requirement in report["requirements"]:
        if requirement["verdict"] not in ("PASS", "SKIP", "UNTESTED"):
            test = next((t for t in report["tests"] if requirement["id"] in t["failed_requirements"]), None)
            found.append(f"{requirement['verdict']} {requirement['id']}: {test['message'][:600] if test else ''}")
    return found or [report.get("message", "")]


def test_every_spec_has_a_twin() -> None:
    """Each spec the kit checks is bracketed from the permissive side too."""
    assert sorted(twin_spec(module) for module in TWINS) == sorted(specs())


# Over stdio the twins give the same replies as JSON lines: a whole run per twin is kept for the slow session.
@pytest.mark.parametrize("transport", ["python", pytest.param("stdio", marks=pytest.mark.slow)])
@pytest.mark.parametrize(("module", "twin"), VARIANTS, ids=[f"{module}:{twin}" for module, twin in VARIANTS])
def test_a_permissive_twin_is_conformant(module: str, twin: str, transport: str, tmp_path: Path) -> None:
    """The twin's every liberty is one its spec allows, so its report says conformant."""
    factory = f"twins.{module}:{twin}"
    adapter = (
        f"python:{factory}"
        if transport == "python"
        else f"stdio:{sys.executable} -m ctxconform.reference.stdio --factory {factory}"
    )
    report = run_twin(adapter, twin_spec(module), tmp_path)
    assert report["status"] == "conformant", "\n".join(failures(report))


@pytest.mark.parametrize("module", TWINS)
def test_every_liberty_quotes_what_allows_it_verbatim(module: str) -> None:
    """Each liberty says what allows it, and every text it quotes is found in the spec, its registry, README or ORIGINS."""
    twin = importlib.import_module(f"twins.{module}")
    registry = specs()[twin.Twin.spec].registry
    document = SPEC_TEXTS / registry.document
    if not document.is_file():
        pytest.skip(f"{document} is not beside this checkout")
    entries = [" ".join((r.quote, *r.readings, r.level_note, r.reason)) for r in registry.requirements]
    sources = [document, TESTS.parent / "README.md", SPEC_TEXTS.parent / "ORIGINS.md"]
    found_in = plain(" ".join([*(path.read_text(encoding="utf-8") for path in sources if path.is_file()), *entries]))
    assert twin.LIBERTIES
    assert all(liberty.what and liberty.allowed_by for liberty in twin.LIBERTIES)
    misquoted = [
        quote
        for liberty in twin.LIBERTIES
        for quote in QUOTED.findall(liberty.allowed_by)
        if not all(plain(part) in found_in for part in re.split(r"\.\.\.|…", quote) if part.strip(" ."))
    ]
    assert misquoted == []


def plain(text: str) -> str:
    """Text compared as prose: no list marks, code marks or surrounding punctuation, white space collapsed."""
    return " ".join(re.sub(r"(^|\s)- ", " ", text.replace("`", "")).split()).strip(" .")
