"""The `run` command: the suites against each adapter, one report, every rendering of it, and the exit code."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from ctxconform.conformance.cli._common import (
    MAX_RESTARTS,
    check_count,
    check_seconds,
    exit_code_of,
    kit_version,
    profile_of,
    report_dir,
    seed_of,
)
from ctxconform.conformance.exceptions import ConfigurationError
from ctxconform.conformance.judge._ledger import lookup
from ctxconform.conformance.judge._registry import LEVELS
from ctxconform.conformance.judge._results import ProblemLine
from ctxconform.conformance.judge._specs import Spec, resolve_specs, specs
from ctxconform.conformance.judge._verdicts import BAD
from ctxconform.conformance.report._files import write_reports
from ctxconform.conformance.report._model import ImplementationReport, Report, implementation_report
from ctxconform.conformance.report._policy import BaselinePolicy
from ctxconform.conformance.report._text import NAME_CHARS, visible
from ctxconform.conformance.run._profiles import PROFILES
from ctxconform.conformance.run._runner import RunOptions, run_suite
from ctxconform.conformance.transports._adapters import Adapter, parse_adapter

__all__ = ["add_parser", "print_table"]

# How many lines of an implementation's message the table shows: enough for the end of a crashed start's stderr.
_MESSAGE_LINES: Final = 12
# More children than this only wait for the cores and the implementation.
MAX_JOBS: Final = 64
AUTO_JOBS: Final = 8  # the most children a run starts unasked: each costs a second of start-up and its memory


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
    run.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help=f"split the test files over up to N child processes at once (1 to {MAX_JOBS}; default: one per CPU, at"
        f" most {AUTO_JOBS}, for a whole run of implementations the harness starts; else 1)",
    )
    run.add_argument("--quiet", action="store_true", help="no progress display")
    run.add_argument(
        "--baseline", type=Path, metavar="FILE", help="known failures of the implementation: XFAIL, or XPASS when stale"
    )
    run.add_argument(
        "--update-baseline", action="store_true", help="write --baseline FILE from this run's failures (complete runs only)"
    )
    run.set_defaults(command=_run)


def _jobs(options: argparse.Namespace, adapters: list[Adapter]) -> int:
    """The children to run at once: as asked, else one per CPU when they cannot share an implementation or idle."""
    if options.jobs is not None:
        check_count("--jobs", options.jobs, 1, MAX_JOBS)
        return int(options.jobs)
    # Children of a run against a server the user started would share its state; a selection may leave most idle.
    selected = options.test or options.keyword or options.requirement or options.level != "MAY"
    if selected or not all(adapter.own_instance for adapter in adapters):
        return 1
    return max(1, min(AUTO_JOBS, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))


def _run(options: argparse.Namespace) -> int:
    chosen_specs = tuple(resolve_specs(options.spec))
    _check_commands(chosen_specs)
    adapters = [parse_adapter(text) for text in options.adapter or ["reference"]]
    check_seconds("--timeout", options.timeout)
    check_count("--max-restarts", options.max_restarts, 0, MAX_RESTARTS)
    jobs = _jobs(options, adapters)
    baselining = _baselining(options, adapters)
    _check_test_ids(options.test)
    _check_keyword(options.keyword)
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
            jobs,
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
    print_table(report, written)
    return exit_code_of(implementations)


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


def _check_commands(chosen: tuple[Spec, ...]) -> None:
    """Stop before anything runs when a chosen suite needs a command that is not on PATH."""
    for spec in chosen:
        for command, hint in spec.missing():
            others = " ".join(f"--spec {s.id}" for s in chosen if s is not spec)
            instead = f", or run the other specs alone ({others})" if others else ""
            raise ConfigurationError(f"the {spec.id} suite runs `{command}`, which is not on PATH: install {hint}{instead}")


def _check_test_ids(ids: list[str]) -> None:
    for test in ids:
        path, _, name = test.partition("::")
        if not (path.endswith(".py") and name and name.count("[") == name.count("]")) or not test.isprintable():
            raise ConfigurationError(
                f"--test {visible(test, NAME_CHARS)}: give a test id as a report's replay does, e.g."
                " --test shared_context/test_examples.py::test_write_example_returns_key_version_and_metadata"
            )


def _check_keyword(expression: str | None) -> None:
    if expression is None:
        return
    # Imported here: a run without --keyword starts faster without pytest.
    from _pytest.mark.expression import Expression  # noqa: PLC0415

    try:
        Expression.compile(expression)
    except (SyntaxError, ValueError) as error:  # pytest 9 raises SyntaxError for a bad -k expression
        reason = error.msg if isinstance(error, SyntaxError) else str(error)
        raise ConfigurationError(
            f"--keyword {visible(expression, NAME_CHARS)}: {reason}; write a pytest -k expression,"
            " e.g. --keyword 'version and not delete'"
        ) from None


def _run_one(adapter: Adapter, options: RunOptions, index: int, baselining: BaselinePolicy) -> ImplementationReport:
    if options.progress:
        print(f"{visible(adapter.text)}: {', '.join(s.id for s in options.specs)}", file=sys.stderr)
    run = run_suite(adapter, options, index)
    lines = run.lines
    problem = next((line for line in lines if isinstance(line, ProblemLine) and line.event == "configuration"), None)
    if problem is not None:
        raise ConfigurationError(f"{adapter.text}: {problem.message}")
    if not any(line.event in ("test", "unavailable") for line in lines):
        raise ConfigurationError(_no_test(run.log, run.exit_code))
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


def _no_test(log: Path, exit_code: int) -> str:
    """Why the suite ran no test, in one line: pytest's own error when it gave one."""
    text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""
    error = next((line for line in text.splitlines() if line.startswith(("ERROR:", "E "))), "")
    reason = error.removeprefix("E ").strip() or "no test matches the selection"
    return f"the suite ran no test (pytest exit {exit_code}): {reason}; check --test, --keyword, --requirement and --spec"


def print_table(report: Report, written: list[Path]) -> None:
    """Print the console table of a report: a line per implementation, its worst requirements, its first failure."""
    print(f"\n{'implementation':<34} {'status':<15} {'tests':>5} {'pass':>5} {'fail':>5} {'skip':>5} {'other':>5}")
    for imp in report.implementations:
        counts = imp.counts
        total, passed, failed, skipped = sum(counts.values()), counts.get("PASS", 0), counts.get("FAIL", 0), counts.get("SKIP", 0)
        name = visible(f"{imp.name or imp.adapter} {imp.version or ''}".strip(), NAME_CHARS)[:34]
        print(
            f"{name:<34} {imp.status:<15} {total:>5} {passed:>5} {failed:>5} {skipped:>5} {total - passed - failed - skipped:>5}"
        )
        for line in _message_lines(imp.message):
            print(f"  {line}")
        for requirement in [r for r in imp.requirements if r.verdict in BAD][:10]:
            print(f"  {requirement.verdict:<8} {requirement.level:<6} {requirement.id}")
        first = next((t for t in imp.tests if t.replay), None)
        if first is not None:
            print(f"  first failure: {visible(first.name)}\n  replay: {visible(first.replay)}")
    print(f"\nreports in {written[0].parent}: {', '.join(path.name for path in written)}")


def _message_lines(message: str, most: int = _MESSAGE_LINES) -> list[str]:
    """The message's lines, control characters shown; a long one (a crashed start's stderr) keeps its last lines."""
    lines = [visible(line) for line in message.strip().splitlines() if line.strip()]
    if len(lines) <= most:
        return lines
    return [lines[0], f"  ... {len(lines) - most + 1} lines left out (report.json has the message) ...", *lines[-(most - 1) :]]
