"""A sixth, toy spec added as one package per side: the kit finds it from its `Spec` value and judges it unchanged.

`tests/toy/` holds only the toy's own files: the suite package `toy_suite` (its `SPEC`, registry, tests and golden
story), the implementations `toy_impl`, and the install metadata naming `toy_suite:SPEC` under the `ctxconform.specs`
entry point, as an installed third-party suite would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

TOY = Path(__file__).resolve().parent / "toy"
ADDS_ONE, READ = "toy-counter/1/increment-adds-one", "toy-counter/1/read-returns-count"
SHAPE, UNKNOWN, RESET = "toy-counter/1/answer-shape", "toy-counter/2/unknown-counter", "toy-counter/3/reset"


def kit(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the kit's command with the toy folder on the path, as if its packages were installed."""
    env = {**os.environ, "PYTHONPATH": str(TOY)}
    command = [sys.executable, "-c", "from ctxconform.conformance.cli import main; raise SystemExit(main())", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False, timeout=300, env=env)


def run_toy(implementation: str, tmp_path: Path) -> dict[str, Any]:
    """Run the toy spec's suite against one toy implementation through `ctxconform run`; return its report."""
    done = kit("run", "--spec", "toy-counter", "--adapter", f"python:toy_impl:{implementation}", "--quiet",
               "--report-dir", str(tmp_path), "--seed", "1", cwd=tmp_path)  # fmt: skip
    assert done.returncode in (0, 1), done.stdout + done.stderr
    (report,) = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))["implementations"]
    return report  # type: ignore[no-any-return]


def test_the_kit_lists_a_spec_it_finds_from_an_installed_suite_value(tmp_path: Path) -> None:
    """`ctxconform specs` lists the toy spec next to the kit's own, from the entry point alone."""
    done = kit("specs", "--json", cwd=tmp_path)
    listed = {spec["id"]: spec for spec in json.loads(done.stdout)}
    assert "toy-counter" in listed
    assert listed["toy-counter"]["suite"] == str(TOY / "toy_suite")
    assert listed["toy-counter"]["version"] == "1"


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
    assert {r["id"]: r["verdict"] for r in report["requirements"]} == expected
    assert report["status"] == ("conformant" if set(expected.values()) <= {"PASS", "SKIP"} else "not-conformant")
