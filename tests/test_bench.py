"""The benchmarks: figures summarize repeated runs, and `bench.py` writes a report that follows its schema."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from ctxconform.conformance.judge._schemas import schema
from ctxconform.conformance.report._bench import figure

BENCH = Path(__file__).parents[1] / "benchmarks" / "bench.py"


def test_a_figure_is_the_median_and_spread_of_its_runs() -> None:
    """Median and max - min of the samples, with the number of runs."""
    made = figure("s", "n", "ms", [3.0, 1.0, 10.0])
    assert (made.median, made.spread, made.runs) == (3.0, 9.0, 3)


def test_a_figure_needs_samples() -> None:
    """No samples is an error that names the figure, not a median of nothing."""
    with pytest.raises(ValueError, match="s/n"):
        figure("s", "n", "ms", [])


def test_bench_writes_a_report_that_follows_its_schema_and_prints_the_table(tmp_path: Path) -> None:
    """A quick run of the store benchmark prints a row per figure and writes bench.json valid against its schema."""
    output = tmp_path / "bench.json"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--only", "stores", "--output", str(output)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(output.read_text(encoding="utf-8"))
    Draft202012Validator(schema("report/bench.schema.json")).validate(report)
    names = {f["name"] for f in report["figures"]}
    assert {"sqlite write p50", "naive-json write p50", "sqlite-normal write p99"} <= names
    ratio = next(f for f in report["figures"] if f["goal"] is not None)
    assert ratio["goal_met"] == (ratio["median"] >= 10)
    assert all(f"| {name}" in done.stdout for name in names)
