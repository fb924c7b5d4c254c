"""Helpers shared by the kit's own tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ctxconform.conformance import Report, load_registry
from ctxconform.conformance.judge._results import ResultLine, parse_line
from ctxconform.conformance.report._model import implementation_report

ROOT = Path(__file__).resolve().parents[1]
MUTANT_ADAPTER = "python:ctxconform.reference.mutants:versions_do_not_increment"
# The comparison run: the reference in-process and over stdio, and a mutant that breaks version increments.
COMPARED = ("reference", f"stdio:{sys.executable} -m ctxconform.reference.stdio", MUTANT_ADAPTER)
COMPARISON_SELECTION = ("--spec", "shared-context", "--keyword", "version", "--seed", "7", "--quiet")


class Cli:
    """Runs the `ctxconform` command in a child process."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd

    def __call__(self, *args: str, timeout: float = 600, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """Run `ctxconform ARGS` (with `env` added to the environment) and return the finished process."""
        command = [sys.executable, "-c", "from ctxconform.conformance.cli._main import main; raise SystemExit(main())", *args]
        environment = {**os.environ, **(env or {})}
        return subprocess.run(
            command, capture_output=True, text=True, cwd=self.cwd, timeout=timeout, check=False, env=environment
        )


def depth_of(value: object) -> int:
    """How many lists and objects deep `value` goes, counted recursively."""
    if isinstance(value, list):
        return 1 + max(map(depth_of, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(depth_of, value.values()), default=0)
    return 0


def load_report(folder: Path) -> dict[str, Any]:
    """Read report.json from a report folder."""
    report: dict[str, Any] = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    return report


def line(name: str, verdict: str, requirements: list[str], failed: list[str] | None = None) -> dict[str, Any]:
    """A test's result line as the plugin writes it: `failed` (default: all, unless it passed) charged its verdict."""
    bad = verdict not in ("PASS", "SKIP")
    charged = (failed if failed is not None else requirements) if bad else []
    charges = [{"requirement": rid, "verdict": verdict, "checks": 0} for rid in charged]
    if verdict == "SKIP":
        charges = [{"requirement": rid, "verdict": "SKIP"} for rid in requirements]
    charges += [
        {"requirement": rid, "verdict": "PASS", "checks": 1} for rid in requirements if verdict != "SKIP" and rid not in charged
    ]
    return {
        "event": "test",
        "id": f"shared_context/test_x.py::{name}",
        "name": name,
        "spec": "shared-context",
        "requirements": requirements,
        "charges": charges,
        "verdict": verdict,
        "duration_s": 0.01,
        "message": "" if verdict == "PASS" else "assert 2 == 1",
        "transcript": [],
    }


STARTED = {
    "event": "started",
    "adapter": "reference",
    "implementation": {"name": "impl", "version": "1", "language": "go", "specs": {}},
}


def parse_lines(lines: list[dict[str, Any]]) -> list[ResultLine]:
    """Result lines as the parent reads them."""
    return [parse_line(line) for line in lines]


def build(lines: list[dict[str, Any]]) -> Report:
    """A one-implementation report from result lines."""
    implementation = implementation_report(
        "reference", parse_lines(lines), [load_registry("shared-context")], replay="ctxconform run", duration_s=1.0
    )
    return Report(
        kit={"name": "ctxconform", "version": "0"},
        started_at="2026-01-01T00:00:00Z",
        finished_at="2026-01-01T00:00:01Z",
        duration_s=1.0,
        seed=1,
        profile="dev",
        level="MAY",
        argv=[],
        conformant=implementation.status == "conformant",
        implementations=[implementation],
    )


def stop_process(process: subprocess.Popen[Any]) -> None:
    """SIGTERM a child and wait for it; SIGKILL it if it lingers past 5 seconds."""
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def wait_for_lines(path: Path, count: int, seconds: float = 20) -> None:
    """Wait until the file at `path` has `count` lines; fail the test if that takes longer than `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and len(path.read_text(encoding="utf-8").splitlines()) >= count:
            return
        time.sleep(0.05)
    pytest.fail(f"{path.name} got fewer than {count} lines in {seconds:g} s")


def start_listening(
    command: list[str], env: dict[str, str], stderr: Any = subprocess.DEVNULL
) -> tuple[subprocess.Popen[str], str]:
    """Start a server that prints `listening on URL` first, and return its process and the URL."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True, env={**os.environ, **env})
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    assert line.startswith("listening on http://"), line
    return process, line.removeprefix("listening on ")
