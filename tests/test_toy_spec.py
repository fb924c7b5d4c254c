"""A sixth, toy spec run through the unchanged core: the kit's judging knows no spec of its own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ctxconform.conformance._report import ImplementationReport, implementation_report
from ctxconform.conformance._results import read_lines
from ctxconform.conformance.testing import add_registry

TOY = Path(__file__).resolve().parent / "toy"
ADDS_ONE, READ = "toy-counter/1/increment-adds-one", "toy-counter/1/read-returns-count"
SHAPE, UNKNOWN, RESET = "toy-counter/1/answer-shape", "toy-counter/2/unknown-counter", "toy-counter/3/reset"


def run_toy(implementation: str, tmp_path: Path) -> ImplementationReport:
    """Run the toy suite against one toy implementation and build its report."""
    results = tmp_path / f"{implementation}.jsonl"
    command = [sys.executable, "-m", "pytest", "toy_suite", "-q", "-p", "no:cacheprovider", f"--ctxconform-results={results}"]
    command.append(f"--ctxconform-adapter=python:toy_impl:{implementation}")
    env = {"PYTHONPATH": str(TOY), "PATH": "/usr/bin:/bin"}
    subprocess.run(command, cwd=TOY, capture_output=True, check=False, timeout=300, env=env)
    registry = add_registry(TOY / "toy-counter.toml")
    return implementation_report(implementation, read_lines(results), [registry], replay="r", duration_s=0)


def verdicts(report: ImplementationReport) -> dict[str, str]:
    """Requirement id -> verdict."""
    return {r.id: r.verdict for r in report.requirements}


@pytest.mark.parametrize(
    ("implementation", "expected"),
    [
        ("Counters", {SHAPE: "PASS", ADDS_ONE: "PASS", READ: "PASS", UNKNOWN: "PASS", RESET: "SKIP"}),
        ("CountersWithReset", {SHAPE: "PASS", ADDS_ONE: "PASS", READ: "PASS", UNKNOWN: "PASS", RESET: "PASS"}),
        ("CountersByTwo", {SHAPE: "PASS", ADDS_ONE: "FAIL", READ: "PASS", UNKNOWN: "PASS", RESET: "SKIP"}),
        ("CountersThatCrashOnRead", {SHAPE: "ERRORED", ADDS_ONE: "PASS", READ: "ERRORED", UNKNOWN: "ERRORED", RESET: "SKIP"}),
    ],
)
def test_a_toy_spec_is_judged_by_the_unchanged_core(implementation: str, expected: dict[str, str], tmp_path: Path) -> None:
    """Each toy implementation gets exactly the requirement verdicts its behaviour earns, golden story included."""
    report = run_toy(implementation, tmp_path)
    assert verdicts(report) == expected
    assert report.status == ("conformant" if set(expected.values()) <= {"PASS", "SKIP"} else "not-conformant")
