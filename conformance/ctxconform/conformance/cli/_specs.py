"""The `requirements` and `specs` commands: what the kit checks, and whether every testable requirement has a test."""

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
from ctxconform.conformance.judge._registry import coverage_problems
from ctxconform.conformance.judge._specs import Spec, resolve_specs, specs
from ctxconform.conformance.run._runner import collect_requirements

__all__ = ["add_parser"]


def add_parser(commands: Any) -> None:
    """Add the `requirements` and `specs` commands."""
    requirements = commands.add_parser("requirements", help="list requirements; --check that every testable one has a test")
    requirements.add_argument("--spec", action="append", metavar="S", help="spec to list (repeatable; default: all)")
    requirements.add_argument(
        "--check", action="store_true", help="exit 1 if a testable requirement has no test or a test names an unknown id"
    )
    requirements.add_argument("--json", action="store_true", help="print JSON instead of a table")
    requirements.set_defaults(command=_requirements)
    listing = commands.add_parser("specs", help="list the specs the kit checks: version, suite, registry, schemas, fixtures")
    listing.add_argument("--json", action="store_true", help="print JSON (what nox and CI read) instead of a table")
    listing.set_defaults(command=_specs)


def _requirements(options: argparse.Namespace) -> int:
    chosen = resolve_specs(options.spec)
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
