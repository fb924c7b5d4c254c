"""The `run` command: the suites against each adapter, one report, every rendering of it, and the exit code."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ctxconform.conformance.cli._common import (
    EXIT_CONFORMANT,
    EXIT_NOT_CONFORMANT,
    EXIT_UNAVAILABLE,
    kit_version,
    profile_of,
    report_dir,
    seed_of,
)
from ctxconform.conformance.exceptions import ConfigurationError
from ctxconform.conformance.judge._ledger import lookup
from ctxconform.conformance.judge._registry import LEVELS
from ctxconform.conformance.judge._results import ProblemLine
from ctxconform.conformance.judge._specs import resolve_specs, specs
from ctxconform.conformance.judge._verdicts import BAD
from ctxconform.conformance.report._files import write_reports
from ctxconform.conformance.report._model import ImplementationReport, Report, implementation_report
from ctxconform.conformance.report._policy import BaselinePolicy
from ctxconform.conformance.run._profiles import PROFILES
from ctxconform.conformance.run._runner import RunOptions, run_suite
from ctxconform.conformance.transports._adapters import Adapter, parse_adapter

__all__ = ["add_parser"]


def add_parser(commands: Any) -> None:
    """Add the `run` command."""
    run = commands.add_parser("run", help="run the conformance suites against implementations and write reports")
    run.add_argument(
        "--adapter", action="append", metavar="A", help="implementation connection string (repeatable; default: reference)"
    )
    run.add_argument(
        "--spec", action="append", metavar="S", help=f"spec to run (repeatable; default: all of {', '.join(specs())})"
    )
    run.add_argument(
        "--level", choices=LEVELS, default="MAY", help="run requirements at this level or stronger (default: MAY, all)"
    )
    run.add_argument(
        "--report-dir", default="reports", type=Path, metavar="DIR", help="where reports are written (default: reports)"
    )
    run.add_argument("--profile", choices=PROFILES, help="hypothesis profile (default: ci when CI is set, else dev)")
    run.add_argument("--seed", type=int, help="hypothesis seed, to replay a run (default: random)")
    run.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS", help="how long one call may take (default: 10)")
    run.add_argument(
        "--max-restarts", type=int, default=5, metavar="N", help="restart a broken implementation at most N times (default: 5)"
    )
    run.add_argument(
        "--test",
        action="append",
        default=[],
        metavar="ID",
        help="only the test of this exact node id (repeatable; as in a report's replay)",
    )
    run.add_argument("--keyword", metavar="EXPR", help="only tests matching this pytest -k expression")
    run.add_argument(
        "--requirement",
        action="append",
        default=[],
        metavar="ID",
        help="only the tests declaring this requirement id (repeatable)",
    )
    run.add_argument("--quiet", action="store_true", help="no progress display")
    run.add_argument(
        "--baseline", type=Path, metavar="FILE", help="known failures of the implementation: XFAIL, or XPASS when stale"
    )
    run.add_argument(
        "--update-baseline", action="store_true", help="write --baseline FILE from this run's failures (complete runs only)"
    )
    run.set_defaults(command=_run)


def _run(options: argparse.Namespace) -> int:
    chosen_specs = tuple(resolve_specs(options.spec))
    adapters = [parse_adapter(text) for text in options.adapter or ["reference"]]
    if options.timeout <= 0 or options.max_restarts < 0:
        raise ConfigurationError("--timeout must be a positive number of seconds and --max-restarts at least 0")
    baselining = _baselining(options, adapters)
    folder = report_dir(options.report_dir)
    seed, profile = seed_of(options), profile_of(options)
    started, clock = datetime.now(UTC), time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ctxconform-run-") as work:
        run_options = RunOptions(
            chosen_specs,
            options.level,
            profile,
            seed,
            options.timeout,
            Path(work),
            tuple(options.test),
            options.keyword,
            tuple(_known_requirements(options.requirement)),
            not options.quiet,
            options.max_restarts,
        )
        implementations = [_run_one(adapter, run_options, index, baselining) for index, adapter in enumerate(adapters)]
    report = Report(
        kit={"name": "ctxconform", "version": kit_version()},
        started_at=started.isoformat(timespec="seconds").replace("+00:00", "Z"),
        finished_at=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        duration_s=round(time.monotonic() - clock, 3),
        seed=seed,
        profile=profile,
        level=options.level,
        argv=sys.argv[1:],
        partial=run_options.partial,
        conformant=all(i.status == "conformant" for i in implementations),
        implementations=implementations,
    )
    written = write_reports(report, folder)
    _print_table(report, written)
    return _exit_code(implementations)


def _baselining(options: argparse.Namespace, adapters: list[Adapter]) -> BaselinePolicy:
    filters = (("--test", options.test), ("--keyword", options.keyword), ("--requirement", options.requirement))
    return BaselinePolicy.choose(
        options.baseline,
        update=options.update_baseline,
        adapters=len(adapters),
        filters=[flag for flag, value in (*filters, ("--level", options.level != "MAY")) if value],
        specs=frozenset(s.id for s in resolve_specs(options.spec)),
    )


def _known_requirements(ids: list[str]) -> list[str]:
    for rid in ids:
        lookup(rid)  # a ConfigurationError (exit 2) names an unknown id
    return ids


def _run_one(adapter: Adapter, options: RunOptions, index: int, baselining: BaselinePolicy) -> ImplementationReport:
    if options.progress:
        print(f"{adapter.text}: {', '.join(s.id for s in options.specs)}", file=sys.stderr)
    run = run_suite(adapter, options, index)
    lines = run.lines
    if not any(line.event in ("test", "unavailable", "configuration") for line in lines):
        tail = run.log.read_text(encoding="utf-8", errors="replace")[-1500:]
        problem = ProblemLine(event="configuration", message=f"the suite ran no test (pytest exit {run.exit_code}):\n{tail}")
        lines = [*lines, problem]
    registries = [spec.registry for spec in options.specs]
    baseline = baselining.for_run(adapter.text, lines, run.exit_code)
    return implementation_report(
        adapter.text,
        lines,
        registries,
        replay=options.replay(adapter),
        duration_s=run.duration_s,
        baseline=baseline,
        partial=options.partial,
    )


def _print_table(report: Report, written: list[Path]) -> None:
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
    print(f"\nreports in {written[0].parent}: {', '.join(path.name for path in written)}")


def _exit_code(implementations: list[ImplementationReport]) -> int:
    statuses = {i.status for i in implementations}
    if "unavailable" in statuses:
        return EXIT_UNAVAILABLE
    if statuses <= {"conformant", "known-failures", "partial"}:
        return EXIT_CONFORMANT
    return EXIT_NOT_CONFORMANT
