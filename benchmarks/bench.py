"""Measure where the kit and the reference stand, print a table, and write reports/bench.json.

Run: python benchmarks/bench.py [--quick] [--only SECTION ...] [--output reports/bench.json] [--compare SAVED.json]
Every figure is a median over repeated runs with its spread (max - min); ratios are taken between figures of
the same run, most against a floor measured beside them (a bare pipe echo, a raw SQLite append).
Benchmarks report: they never fail on a figure, only when something cannot be measured at all. With --compare
the exit code is 1 when a figure got more than 1.5x worse than in the saved run, and 2 when that file cannot be read.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import bench_context_assembly
import bench_read_context
import call_overhead
import store_latency
import suite_times
import validation_cost
from jsonschema import Draft202012Validator

from ctxconform.conformance.judge._schemas import schema
from ctxconform.conformance.report._bench import BenchReport, Figure, Machine
from ctxconform.conformance.report._bench_compare import SavedReportError, compare, comparison_table, load_saved

Section = Callable[[bool], list[Figure]]
SECTIONS: dict[str, Section] = {
    "transports": lambda quick: call_overhead.figures(rounds=1 if quick else 3, calls=200 if quick else 300),
    "stores": lambda quick: store_latency.figures(rounds=1 if quick else 3, calls=100 if quick else 300),
    "http-writes": lambda quick: __import__("http_writes").figures(rounds=1 if quick else 3, writes=100 if quick else 500),
    "validation": lambda quick: (
        validation_cost.per_message(1 if quick else 3, 50 if quick else 300) + validation_cost.suite_share()
    ),
    "notes-and-logs": lambda quick: bench_read_context.figures(max_size_mib=16 if quick else 1024, repeat=5 if quick else 15),
    "assembly-scaling": lambda quick: bench_context_assembly.figures(
        [1_000, 10_000] if quick else [1_000, 10_000, 100_000, 1_000_000], 2
    ),
    "suite": lambda quick: suite_times.figures(rounds=1 if quick else 2),
}


def main(argv: list[str] | None = None) -> int:
    """Run the chosen sections, print the table, write the report, and compare it with a saved one if asked."""
    parser = argparse.ArgumentParser(prog="python benchmarks/bench.py", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer runs and smaller sizes (a smoke test of the benchmarks)")
    parser.add_argument("--only", nargs="+", choices=sorted(SECTIONS), help="measure only these sections")
    parser.add_argument("--output", type=Path, default=Path("reports/bench.json"), help="where to write the report")
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="SAVED",
        help="a report of an earlier run: exit 1 when a figure got more than 1.5x worse (2 when SAVED cannot be read)",
    )
    options = parser.parse_args(argv)
    try:  # before measuring: a wrong path should not cost a whole run
        saved = None if options.compare is None else load_saved(options.compare)
    except SavedReportError as error:
        print(f"bench.py: cannot compare with {error}", file=sys.stderr)
        return 2
    started = time.monotonic()
    figures: list[Figure] = []
    failed = []
    for name in options.only or SECTIONS:
        print(f"measuring {name} ...", file=sys.stderr, flush=True)
        section_started = time.monotonic()
        try:
            figures += SECTIONS[name](options.quick)
        except Exception:  # one section that cannot be measured must not cost the others' figures
            traceback.print_exc()
            failed.append(name)
            continue
        print(f"  {name}: {time.monotonic() - section_started:.0f} s", file=sys.stderr, flush=True)
    report = BenchReport(
        created_at=dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        duration_s=round(time.monotonic() - started, 3),
        machine=Machine(python=platform.python_version(), platform=platform.platform(), cpus=os.cpu_count() or 1),
        figures=figures,
    )
    print(table(report))
    write(report, options.output)
    if failed:
        print(
            f"bench.py: could not measure {', '.join(failed)} (tracebacks above); the other figures are written", file=sys.stderr
        )
        return 1
    if saved is None:
        return 0
    rows = compare(saved, report)
    print(f"\ncompared with {options.compare} ({saved.created_at}):\n{comparison_table(rows)}")
    return 1 if any(row.flagged for row in rows) else 0


def table(report: BenchReport) -> str:
    """The figures as a Markdown table."""
    lines = ["| section | figure | median | spread | runs | better | ratio | goal |", "|---|---|---:|---:|---:|---|---:|---|"]
    for f in report.figures:
        ratio = f"{f.ratio:.3g}x {f.ratio_to}" if f.ratio is not None else ""
        goal = "" if f.goal is None else f"{f.goal}: {'met' if f.goal_met else 'NOT met'}"
        note = f" ({f.note})" if f.note else ""
        median = f"{f.median:.4g} {f.unit}"
        lines.append(f"| {f.section} | {f.name}{note} | {median} | {f.spread:.3g} | {f.runs} | {f.better} | {ratio} | {goal} |")
    machine = report.machine
    lines.append(f"\n{len(report.figures)} figures in {report.duration_s:.0f} s on {machine.cpus} CPUs, Python {machine.python}")
    return "\n".join(lines)


def write(report: BenchReport, path: Path) -> None:
    """Write the report after checking it against schemas/report/bench.schema.json."""
    document = report.model_dump(mode="json")
    Draft202012Validator(schema("report/bench.schema.json")).validate(document)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
