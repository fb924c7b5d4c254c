"""The `requirements` and `specs` commands: what the kit checks, and whether every testable requirement has a test.

`requirements --ambiguous` lists the ambiguity register; `requirements --text FILE` checks a version of a spec's
document against its registry (stale quotes, normative sentences no quote covers).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from ctxconform.conformance.cli._common import (
    EXIT_CONFORMANT,
    EXIT_NOT_CONFORMANT,
)
from ctxconform.conformance.exceptions import ConfigurationError
from ctxconform.conformance.judge._document import DocumentCheck, check_document, document_file, squeeze
from ctxconform.conformance.judge._registry import Requirement, coverage_problems
from ctxconform.conformance.judge._specs import Spec, resolve_specs, specs
from ctxconform.conformance.run._runner import collect_requirements

__all__ = ["add_parser"]


def add_parser(commands: Any) -> None:
    """Add the `requirements` and `specs` commands."""
    requirements = commands.add_parser(
        "requirements", help="list requirements; --check their tests, --ambiguous the register, --text a document"
    )
    requirements.add_argument("--spec", action="append", metavar="S", help="spec to list (repeatable; default: all)")
    what = requirements.add_mutually_exclusive_group()
    what.add_argument(
        "--check", action="store_true", help="exit 1 if a testable requirement has no test or a test names an unknown id"
    )
    what.add_argument(
        "--ambiguous", action="store_true", help="list the ambiguity register: each ambiguous requirement and its readings"
    )
    what.add_argument(
        "--text",
        type=Path,
        metavar="FILE",
        help="check a version of the spec's document (or a folder of documents): stale quotes, uncovered normative sentences",
    )
    requirements.add_argument("--json", action="store_true", help="print JSON instead of a table")
    requirements.set_defaults(command=_requirements)
    listing = commands.add_parser("specs", help="list the specs the kit checks: version, suite, registry, schemas, fixtures")
    listing.add_argument("--json", action="store_true", help="print JSON (what nox and CI read) instead of a table")
    listing.set_defaults(command=_specs)


def _requirements(options: argparse.Namespace) -> int:
    if options.text is not None:
        return _text_check(options.text, options.spec, as_json=options.json)
    chosen = resolve_specs(options.spec)
    if options.ambiguous:
        return _ambiguity_register(chosen, as_json=options.json)
    rows = [r for spec in chosen for r in spec.registry.requirements]
    if options.json:
        print(json.dumps([r.__dict__ for r in rows], indent=2, ensure_ascii=False))
    elif not options.check:
        for r in rows:
            print(f"{r.id:<60} {r.level:<6} {r.kind:<10} {r.feature or ''}")
        print(f"{len(rows)} requirements")
    return _check(chosen) if options.check else EXIT_CONFORMANT


def _check(chosen: list[Spec]) -> int:
    with tempfile.TemporaryDirectory(prefix="ctxconform-check-") as work:
        named, output = collect_requirements(chosen, Path(work))
    if not named:
        print(f"ctxconform: no suite test was collected:\n{output[-1500:]}", file=sys.stderr)
        return EXIT_NOT_CONFORMANT
    registries = [spec.registry for spec in chosen]
    problems = coverage_problems(registries, named)
    for problem in problems:
        print(problem)
    known = [r for registry in registries for r in registry.requirements]
    tested = sum(1 for r in known if r.needs_test)
    print(f"{len(known)} requirements, {tested} need a test, {len(named)} tests, {len(problems)} problems")
    return EXIT_NOT_CONFORMANT if problems else EXIT_CONFORMANT


def _ambiguity_register(chosen: list[Spec], *, as_json: bool) -> int:
    register = [(spec.id, [r for r in spec.registry.requirements if r.kind == "ambiguous"]) for spec in chosen]
    if as_json:
        specs_data = [
            {"spec": sid, "count": len(found), "requirements": [_ambiguous(r) for r in found]} for sid, found in register
        ]
        print(json.dumps({"count": sum(len(found) for _, found in register), "specs": specs_data}, indent=2, ensure_ascii=False))
        return EXIT_CONFORMANT
    for sid, found in register:
        print(f"{sid}: {len(found)} ambiguous")
        for r in found:
            print(f"  {r.id} ({r.level}, \u00a7 {r.section})\n    quote: {squeeze(r.quote)}")
            print("".join(f"    {n}. {squeeze(reading)}\n" for n, reading in enumerate(r.readings, start=1)), end="")
    counts = ", ".join(f"{sid} {len(found)}" for sid, found in register)
    print(f"ambiguity register: {sum(len(found) for _, found in register)} ambiguous requirements ({counts})")
    return EXIT_CONFORMANT


def _ambiguous(r: Requirement) -> dict[str, object]:
    return {"id": r.id, "level": r.level, "section": r.section, "quote": r.quote, "readings": list(r.readings)}


def _text_check(path: Path, names: list[str] | None, *, as_json: bool) -> int:
    pairs = _documents(path, names)
    checks = [(spec, document, check_document(spec.registry, _read(document))) for spec, document in pairs]
    stale = [spec for spec, _, check in checks if check.stale]
    tests = _tests_by_requirement(stale) if stale else {}
    results = [_text_result(spec, document, check, tests) for spec, document, check in checks]
    if as_json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
    else:
        for spec, document, check in checks:
            _print_text_check(spec, document, check, tests)
    return EXIT_CONFORMANT if all(check.clean for _, _, check in checks) else EXIT_NOT_CONFORMANT


def _documents(path: Path, names: list[str] | None) -> list[tuple[Spec, Path]]:
    """The specs to check and their documents: each chosen spec's in a folder, or the one spec a file is of."""
    if path.is_dir():
        found = [(spec, document_file(spec.registry, path)) for spec in resolve_specs(names)]
        for spec, document in found:
            if not document.is_file():
                print(f"ctxconform: no document of {spec.id} in {path} ({spec.registry.document}); skipped", file=sys.stderr)
        if not any(document.is_file() for _, document in found):
            raise ConfigurationError(f"no spec document is in {path}")
        return [(spec, document) for spec, document in found if document.is_file()]
    # Without --spec: the spec whose registry names a document of this file's name.
    chosen = resolve_specs(names) if names else [spec for spec in specs().values() if spec.registry.document == path.name]
    if len(chosen) != 1:
        raise ConfigurationError(f"--text {path}: name the one spec it is a version of with --spec")
    return [(chosen[0], path)]


def _read(document: Path) -> str:
    try:
        return document.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigurationError(f"cannot read the document {document}: {error}") from error


def _tests_by_requirement(chosen: list[Spec]) -> dict[str, list[str]]:
    """Requirement id -> the suite tests that name it (collected, not run)."""
    with tempfile.TemporaryDirectory(prefix="ctxconform-collect-") as work:
        named, output = collect_requirements(chosen, Path(work))
    if not named:
        print(f"ctxconform: no suite test was collected; tests are not named:\n{output[-1500:]}", file=sys.stderr)
    found: dict[str, list[str]] = {}
    for test, ids in named.items():
        for rid in ids:
            found.setdefault(rid, []).append(test)
    return found


def _text_result(spec: Spec, document: Path, check: DocumentCheck, tests: dict[str, list[str]]) -> dict[str, object]:
    stale = [
        {"id": r.id, "level": r.level, "section": r.section, "kind": r.kind, "quote": r.quote, "tests": tests.get(r.id, [])}
        for r in check.stale
    ]
    return {
        "spec": spec.id,
        "document": str(document),
        "sentences": len(check.sentences),
        "normative": len(check.normative),
        "covered": len(check.normative) - len(check.uncovered),
        "stale": stale,
        "stale_informative": [{"quote": i.quote, "reason": i.reason} for i in check.stale_informative],
        "uncovered": [{"line": s.line, "keywords": list(s.keywords), "sentence": s.text} for s in check.uncovered],
    }


def _print_text_check(spec: Spec, document: Path, check: DocumentCheck, tests: dict[str, list[str]]) -> None:
    print(f"{spec.id}: {document}")
    print(f"  stale requirements (quote not in the document): {len(check.stale)}")
    for r in check.stale:
        print(f"    {r.id} ({r.level}, {r.kind}, \u00a7 {r.section})\n      quote: {squeeze(r.quote)}")
        print(f"      tests: {', '.join(tests.get(r.id, [])) or 'none'}")
    if check.stale_informative:
        print(f"  stale informative entries: {len(check.stale_informative)}")
        print("".join(f"    quote: {squeeze(i.quote)}\n" for i in check.stale_informative), end="")
    print(f"  uncovered normative sentences: {len(check.uncovered)}")
    print("".join(f"    line {s.line} [{' '.join(s.keywords)}]: {s.text}\n" for s in check.uncovered), end="")
    normative = len(check.normative)
    print(
        f"{spec.id}: {len(check.stale)} stale, {len(check.uncovered)} uncovered of {normative} normative sentences"
        f" ({len(check.sentences)} sentences)"
    )


def _specs(options: argparse.Namespace) -> int:
    found = list(specs().values())
    if options.json:
        print(json.dumps([_described(spec) for spec in found], indent=2))
        return EXIT_CONFORMANT
    for spec in found:
        print(f"{spec.id:<20} {spec.version:<14} {spec.suite}")
    return EXIT_CONFORMANT


def _described(spec: Spec) -> dict[str, object]:
    return {
        "id": spec.id,
        "version": spec.version,
        "suite": str(spec.suite),
        "registry": str(spec.registry_file),
        "schemas": str(spec.schemas),
        "fixtures": str(spec.fixtures),
        "mcp_tools": list(spec.mcp_tools),
    }
