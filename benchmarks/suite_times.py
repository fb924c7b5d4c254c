"""The whole suite, default profile, against the reference: wall time per spec and in total, per transport."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import time

from measure import PYTHON, scratch

from ctxconform.conformance import specs
from ctxconform.conformance.report._bench import Figure, figure

SECTION = "whole suite"
WHOLE_RUN_GOAL_S = 10.0
ALL = tuple(specs())
# Each transport and the specs it serves: HTTP serves shared-context only, the MCP server the specs with MCP tools.
MCP = tuple(spec.id for spec in specs().values() if spec.mcp_tools)
# The servers' shared-context store commits as the in-process reference's does (unsynced, kill-safe), so that each
# transport's ratio to in-process is the transport's cost, not an fsync per write on one side only.
STORE = "--store sqlite:///{state_dir}/shared-context.sqlite3?synchronous=normal"
TRANSPORTS = {
    "in-process": ("reference", ALL),
    "stdio": (f"stdio:{PYTHON} -m ctxconform.reference.stdio --factory ctxconform.reference:in_process_reference", ALL),
    "http": (f"http+serve:{PYTHON} -m ctxconform.reference.shared_context.http {STORE}", ("shared-context",)),
    "mcp+http": (f"mcp+http+serve:{PYTHON} -m ctxconform.reference.mcp --http {STORE}", MCP),
    # One server per participant: shared-context is the suite that starts them, and the one the figure is about.
    "mcp+stdio": (f"mcp+stdio:{PYTHON} -m ctxconform.reference.mcp {STORE}", ("shared-context",)),
}


def one_run(adapter: str, spec: str | None, jobs: str = "1") -> tuple[float, int]:
    """Wall seconds of `ctxconform run -j JOBS` for one spec or all (process starts included), and how many tests ran."""
    folder = scratch()
    env = {key: value for key, value in os.environ.items() if key not in ("CI", "CTXCONFORM_STORE")}  # the dev profile
    command = [PYTHON, "-c", "from ctxconform.conformance.cli._main import main; raise SystemExit(main())"]
    command += ["run", "--adapter", adapter, *(["--spec", spec] if spec else []), *(["-j", jobs] if jobs else [])]
    command += ["--seed", "1", "--quiet", "--report-dir", str(folder / "reports")]
    try:
        started = time.perf_counter()
        done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, check=False)  # noqa: S603
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            raise RuntimeError(f"{adapter} {spec}: exit {done.returncode}\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
        report = json.loads((folder / "reports" / "report.json").read_text(encoding="utf-8"))
        return elapsed, len(report["implementations"][0]["tests"])
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def figures(rounds: int) -> list[Figure]:
    """Per transport: seconds per spec, the total, and tests per second, each over `rounds` runs."""
    walls: dict[tuple[str, str], list[float]] = {}
    tests: dict[tuple[str, str], int] = {}
    whole: list[float] = []
    for _ in range(rounds):  # transports take turns within a round
        for name, (adapter, served) in TRANSPORTS.items():
            for spec in served:
                elapsed, count = one_run(adapter, spec)
                walls.setdefault((name, spec), []).append(elapsed)
                tests[name, spec] = count
        elapsed, whole_count = one_run("reference", None, jobs="")  # as users run it: every spec, children unasked
        whole.append(elapsed)
    found = []
    for name, (_adapter, served) in TRANSPORTS.items():
        totals = [sum(run) for run in zip(*(walls[name, spec] for spec in served), strict=True)]
        count = sum(tests[name, spec] for spec in served)
        found += [figure(SECTION, f"{name} {spec}", "s", walls[name, spec], note=f"{tests[name, spec]} tests") for spec in served]
        found.append(figure(SECTION, f"{name} total", "s", totals, note=f"{count} tests in {len(served)} specs"))
        found.append(figure(SECTION, f"{name} tests per second", "tests/s", [count / total for total in totals]))
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    note = f"{whole_count} tests; `ctxconform run` with no options: its files split over a child per CPU ({cpus})"
    found.append(
        figure(
            SECTION,
            "in-process all specs in one run",
            "s",
            whole,
            goal=f"<= {WHOLE_RUN_GOAL_S:g} s on 2 cores",
            goal_met=statistics.median(whole) <= WHOLE_RUN_GOAL_S,
            note=note,
        )
    )
    return _with_ratios(found)


def _with_ratios(found: list[Figure]) -> list[Figure]:
    """Each transport's per-spec time as a ratio to the same spec in-process."""
    base = {f.name.removeprefix("in-process "): f.median for f in found if f.name.startswith("in-process ") and f.unit == "s"}
    out = []
    for item in found:
        transport, _, spec = item.name.partition(" ")
        if item.unit == "s" and transport != "in-process" and spec in base and spec != "total":
            item = item.model_copy(update={"ratio": item.median / base[spec], "ratio_to": f"in-process {spec}"})
        out.append(item)
    return out
