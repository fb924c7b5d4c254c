"""The `ctxconform` command: run suites against adapters and write reports, list and check requirements."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Final

from ctxconform.conformance._adapters import Adapter, parse_adapter
from ctxconform.conformance._junit import render_junit
from ctxconform.conformance._markdown import render_markdown
from ctxconform.conformance._profiles import PROFILES
from ctxconform.conformance._registry import LEVELS, coverage_problems
from ctxconform.conformance._report import ImplementationReport, Report, implementation_report
from ctxconform.conformance._runner import RunOptions, collect_requirements, run_suite
from ctxconform.conformance._specs import SPECS, SpecSuite, resolve_specs
from ctxconform.conformance._verdicts import BAD
from ctxconform.conformance.exceptions import ConfigurationError

__all__ = ["main"]

EXIT_CONFORMANT: Final = 0
EXIT_NOT_CONFORMANT: Final = 1
EXIT_USAGE: Final = 2
EXIT_UNAVAILABLE: Final = 3


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    parser = _parser()
    options = parser.parse_args(argv)
    try:
        return int(options.command(options))
    except ConfigurationError as error:
        print(f"ctxconform: error: {error.message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("ctxconform: interrupted", file=sys.stderr)
        return EXIT_USAGE


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ctxconform", description="Conformance kit for agent-context specifications.")
    parser.add_argument("--version", action="version", version=f"ctxconform {_kit_version()}")
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")
    run = commands.add_parser("run", help="run the conformance suites against implementations and write reports")
    run.add_argument(
        "--adapter", action="append", metavar="A", help="implementation connection string (repeatable; default: reference)"
    )
    run.add_argument("--spec", action="append", metavar="S", help=f"spec to run (repeatable; default: all of {', '.join(SPECS)})")
    run.add_argument(
        "--level", choices=LEVELS, default="MAY", help="run requirements at this level or stronger (default: MAY, all)"
    )
    run.add_argument(
        "--report-dir", default="reports", type=Path, metavar="DIR", help="where reports are written (default: reports)"
    )
    run.add_argument("--profile", choices=PROFILES, help="hypothesis profile (default: ci when CI is set, else dev)")
    run.add_argument("--seed", type=int, help="hypothesis seed, to replay a run (default: random)")
    run.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS", help="how long one call may take (default: 10)")
    run.add_argument("--test", metavar="EXPR", help="only tests matching this pytest -k expression")
    run.add_argument("--quiet", action="store_true", help="no progress display")
    run.set_defaults(command=_run)
    requirements = commands.add_parser("requirements", help="list requirements; --check that every testable one has a test")
    requirements.add_argument("--spec", action="append", metavar="S", help="spec to list (repeatable; default: all)")
    requirements.add_argument(
        "--check", action="store_true", help="exit 1 if a testable requirement has no test or a test names an unknown id"
    )
    requirements.add_argument("--json", action="store_true", help="print JSON instead of a table")
    requirements.set_defaults(command=_requirements)
    return parser


def _run(options: argparse.Namespace) -> int:
    specs = tuple(resolve_specs(options.spec))
    adapters = [parse_adapter(text) for text in options.adapter or ["reference"]]
    if options.timeout <= 0:
        raise ConfigurationError("--timeout must be a positive number of seconds")
    report_dir = _report_dir(options.report_dir)
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**32)
    profile = options.profile or ("ci" if os.environ.get("CI") else "dev")
    started, clock = datetime.now(UTC), time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ctxconform-run-") as work:
        run_options = RunOptions(
            specs, options.level, profile, seed, options.timeout, Path(work), options.test, not options.quiet
        )
        implementations = [_run_one(adapter, run_options, index) for index, adapter in enumerate(adapters)]
    report = Report(
        kit={"name": "ctxconform", "version": _kit_version()},
        started_at=started.isoformat(timespec="seconds").replace("+00:00", "Z"),
        finished_at=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        duration_s=round(time.monotonic() - clock, 3),
        seed=seed,
        profile=profile,
        level=options.level,
        argv=sys.argv[1:],
        conformant=all(i.status == "conformant" for i in implementations),
        implementations=implementations,
    )
    _write_reports(report, report_dir)
    _print_table(report, report_dir)
    return _exit_code(implementations)


def _run_one(adapter: Adapter, options: RunOptions, index: int) -> ImplementationReport:
    if options.progress:
        print(f"{adapter.text}: {', '.join(s.spec for s in options.specs)}", file=sys.stderr)
    run = run_suite(adapter, options, index)
    lines = run.lines
    if not any(line["event"] == "test" for line in lines) and not any(
        line["event"] in ("unavailable", "configuration") for line in lines
    ):
        tail = run.log.read_text(encoding="utf-8", errors="replace")[-1500:]
        lines = [*lines, {"event": "configuration", "message": f"the suite ran no test (pytest exit {run.exit_code}):\n{tail}"}]
    registries = [spec.registry for spec in options.specs]
    return implementation_report(adapter.text, lines, registries, replay=options.replay(adapter), duration_s=run.duration_s)


def _report_dir(path: Path) -> Path:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigurationError(f"cannot create the report folder {path}: {error.strerror}") from error
    if not os.access(path, os.W_OK):
        raise ConfigurationError(f"the report folder {path} is not writable")
    return path


def _write_reports(report: Report, report_dir: Path) -> None:
    (report_dir / "report.json").write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
    (report_dir / "junit.xml").write_text(render_junit(report), encoding="utf-8")
    (report_dir / "summary.md").write_text(render_markdown(report), encoding="utf-8")


def _print_table(report: Report, report_dir: Path) -> None:
    print(f"\n{'implementation':<34} {'status':<15} {'tests':>5} {'pass':>5} {'fail':>5} {'skip':>5} {'other':>5}")
    for imp in report.implementations:
        counts = imp.counts
        total, passed, failed, skipped = sum(counts.values()), counts.get("PASS", 0), counts.get("FAIL", 0), counts.get("SKIP", 0)
        name = f"{imp.name or imp.adapter} {imp.version or ''}".strip()[:34]
        print(
            f"{name:<34} {imp.status:<15} {total:>5} {passed:>5} {failed:>5} {skipped:>5} {total - passed - failed - skipped:>5}"
        )
        if imp.message:
            print(f"  {imp.message.strip().splitlines()[0]}")
        for requirement in [r for r in imp.requirements if r.verdict in BAD][:10]:
            print(f"  {requirement.verdict:<8} {requirement.level:<6} {requirement.id}")
        first = next((t for t in imp.tests if t.replay), None)
        if first is not None:
            print(f"  first failure: {first.name}\n  replay: {first.replay}")
    print(f"\nreports: {report_dir / 'report.json'}, {report_dir / 'junit.xml'}, {report_dir / 'summary.md'}")


def _exit_code(implementations: list[ImplementationReport]) -> int:
    statuses = {i.status for i in implementations}
    if "unavailable" in statuses:
        return EXIT_UNAVAILABLE
    if statuses == {"conformant"}:
        return EXIT_CONFORMANT
    return EXIT_NOT_CONFORMANT


def _requirements(options: argparse.Namespace) -> int:
    specs = resolve_specs(options.spec)
    rows = [r for spec in specs for r in spec.registry.requirements]
    if options.json:
        print(json.dumps([r.__dict__ for r in rows], indent=2, ensure_ascii=False))
    elif not options.check:
        for r in rows:
            print(f"{r.id:<60} {r.level:<6} {r.kind:<10} {r.feature or ''}")
        print(f"{len(rows)} requirements")
    return _check(specs) if options.check else EXIT_CONFORMANT


def _check(specs: list[SpecSuite]) -> int:
    with tempfile.TemporaryDirectory(prefix="ctxconform-check-") as work:
        named, output = collect_requirements(specs, Path(work))
    if not named:
        print(f"ctxconform: no suite test was collected:\n{output[-1500:]}", file=sys.stderr)
        return EXIT_NOT_CONFORMANT
    registries = [spec.registry for spec in specs]
    problems = coverage_problems(registries, named)
    for problem in problems:
        print(problem)
    known = [r for registry in registries for r in registry.requirements]
    tested = sum(1 for r in known if r.needs_test)
    print(f"{len(known)} requirements, {tested} need a test, {len(named)} tests, {len(problems)} problems")
    return EXIT_NOT_CONFORMANT if problems else EXIT_CONFORMANT


def _kit_version() -> str:
    try:
        return version("ctxconform")
    except PackageNotFoundError:
        return "0+unknown"
