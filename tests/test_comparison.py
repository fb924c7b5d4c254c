"""Several adapters in one run: one comparison report, the same each time apart from timestamps and durations."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from ctxconform.conformance.judge._schemas import schema_errors
from ctxconform.reference.mutants import mutant_named
from helpers import COMPARED, COMPARISON_SELECTION, Cli, load_report

MUTANT = mutant_named("versions_do_not_increment")
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?")
TIMING_KEYS = frozenset({"duration_s", "at_s", "started_at", "finished_at", "duration", "start", "stop", "timestamp", "time"})


@pytest.fixture(scope="module")
def runs(comparison: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The comparison run's reports, and those of the same run again (same seed, same arguments)."""
    folder = tmp_path_factory.mktemp("again")
    adapters = [arg for adapter in COMPARED for arg in ("--adapter", adapter)]
    done = Cli(folder)("run", *adapters, *COMPARISON_SELECTION, "--report-dir", "reports")
    assert done.returncode == 1, done.stdout + done.stderr
    return [comparison, folder / "reports"]


def untimed(value: Any) -> Any:
    """A JSON value without its timing fields, and with every timestamp in its strings replaced."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if k not in TIMING_KEYS}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return TIMESTAMP.sub("<time>", value) if isinstance(value, str) else value


def test_several_adapters_give_one_report_with_a_column_per_implementation(comparison: Path) -> None:
    """One report.json lists the three implementations in order; the run is filtered (partial) and only the mutant fails."""
    report = load_report(comparison)
    assert schema_errors("report/report.schema.json", report) == []
    assert [i["adapter"] for i in report["implementations"]] == list(COMPARED)
    assert [i["status"] for i in report["implementations"]] == ["partial", "partial", "not-conformant"]
    assert report["partial"] is True
    assert report["conformant"] is False
    requirements = [[r["id"] for r in i["requirements"]] for i in report["implementations"]]
    assert requirements[0] == requirements[1] == requirements[2]


def test_the_mutant_is_charged_with_the_requirement_it_breaks_and_its_failures_replay(comparison: Path) -> None:
    """The mutant's report charges what it breaks; each failure has a replay command and the calls it made."""
    mutant = load_report(comparison)["implementations"][2]
    failed = {r["id"] for r in mutant["requirements"] if r["verdict"] == "FAIL"}
    assert set(MUTANT.breaks) <= failed
    tests = [t for t in mutant["tests"] if t["verdict"] == "FAIL"]
    assert tests
    assert all(t["replay"].startswith(f"ctxconform run --adapter {MUTANT.adapter} ") and "--seed 7" in t["replay"] for t in tests)
    assert all(t["transcript"] for t in tests)
    stdout = (comparison.parent / "stdout.txt").read_text(encoding="utf-8")
    assert "not-conformant" in stdout
    assert "replay: ctxconform run --adapter" in stdout


def test_the_comparison_summary_shows_where_the_mutant_differs(comparison: Path) -> None:
    """summary.md has a side-by-side section naming the requirement only the mutant fails."""
    text = (comparison / "summary.md").read_text(encoding="utf-8")
    side_by_side = text.split("## Side by side")[1]
    assert f"`{MUTANT.breaks[0]}` | MUST | PASS | PASS | FAIL |" in side_by_side


def test_every_format_is_written_once_for_the_whole_comparison(comparison: Path) -> None:
    """JUnit has a testsuite per implementation, CTRF a suite path per implementation, and each has a badge."""
    folder = comparison
    suites = ET.parse(folder / "junit.xml").getroot().findall("testsuite")
    assert len(suites) == len(COMPARED)
    ctrf = json.loads((folder / "ctrf.json").read_text(encoding="utf-8"))
    assert len({t["suite"][0] for t in ctrf["results"]["tests"]}) == len(COMPARED)
    badges = sorted(p.name for p in folder.glob("badge*.svg"))
    assert badges == ["badge-2.svg", "badge-3.svg", "badge.svg"]
    assert "not conformant" in (folder / "badge-3.svg").read_text(encoding="utf-8")
    assert "report.html" in {p.name for p in folder.iterdir()}


@pytest.mark.parametrize("name", ["report.json", "ctrf.json"])
def test_the_same_run_twice_gives_the_same_json_report(runs: list[Path], name: str) -> None:
    """With the same seed, the JSON reports are equal once timestamps and durations are left out."""
    first, second = (json.loads((folder / name).read_text(encoding="utf-8")) for folder in runs)
    assert untimed(first) == untimed(second)


def test_the_same_run_twice_gives_the_same_junit_and_markdown(runs: list[Path]) -> None:
    """With the same seed, junit.xml and summary.md are equal once times are left out."""
    times = re.compile(r'time="[0-9.]+"|\d+\.\d s')
    for name in ("junit.xml", "summary.md"):
        first, second = (times.sub("", (folder / name).read_text(encoding="utf-8")) for folder in runs)
        assert TIMESTAMP.sub("", first) == TIMESTAMP.sub("", second), name
