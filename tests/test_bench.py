"""The benchmarks: figures summarize repeated runs, `bench.py` writes a report that follows its schema and compares it."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from ctxconform.conformance.judge._schemas import schema
from ctxconform.conformance.report._bench import BenchReport, Figure, Machine, figure
from ctxconform.conformance.report._bench_compare import SavedReportError, compare, comparison_table, load_saved

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
    floors = {f["name"]: f["ratio_to"] for f in report["figures"] if f["name"].startswith("sqlite")}
    assert floors["sqlite write p50"] == "raw sqlite WAL append p50 (FULL)"
    assert floors["sqlite-normal write p50"] == "raw sqlite WAL append p50 (NORMAL)"
    assert {"raw sqlite WAL append p50 (FULL)", "raw sqlite WAL append p50 (NORMAL)"} <= names
    goals = {f["name"]: f for f in report["figures"] if f["goal"] is not None}
    write = goals["naive-json-nosync write p50 / sqlite-normal write p50"]
    assert write["goal_met"] == (write["median"] >= 10)
    read = goals["naive-json-nosync read p50 / sqlite-normal read p50"]
    assert read["goal_met"] == (read["median"] >= 1)
    assert all(f"| {name}" in done.stdout for name in names)


def test_a_rate_is_better_higher_and_a_time_lower() -> None:
    """figure() marks a unit per second as better higher, anything else lower, and an explicit direction wins."""
    assert figure("s", "n", "tests/s", [1.0]).better == "higher"
    assert figure("s", "n", "ms", [1.0]).better == "lower"
    assert figure("s", "n", "x", [1.0], better="higher").better == "higher"


# --compare, on hand-made reports


def report(*figures: Figure) -> BenchReport:
    """A bench report holding these figures."""
    return BenchReport(
        created_at="2026-01-01T00:00:00Z",
        duration_s=1,
        machine=Machine(python="3.11", platform="test", cpus=2),
        figures=[*figures],
    )


def made(name: str, median: float, unit: str = "ms", section: str = "stores", **extra: Any) -> Figure:
    """A figure with this median, as one run would give it."""
    return figure(section, name, unit, [median], **extra)


def saved_file(tmp_path: Path, saved: BenchReport) -> Path:
    """The report written where --compare reads it."""
    path = tmp_path / "bench-main.json"
    path.write_text(saved.model_dump_json(), encoding="utf-8")
    return path


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """benchmarks/bench.py imported, to run its main without a shell."""
    monkeypatch.syspath_prepend(str(BENCH.parent))
    return importlib.import_module("bench")


def test_a_figure_twice_as_slow_is_flagged_and_the_run_exits_1(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The run compares the figures it measured with the saved run, prints the change, flags a 2x slowdown and exits 1."""
    monkeypatch.setattr(bench, "SECTIONS", {"stores": lambda _quick: [made("sqlite write p50", 2.0)]})
    saved = saved_file(tmp_path, report(made("sqlite write p50", 1.0)))
    code = bench.main(["--only", "stores", "--output", str(tmp_path / "now.json"), "--compare", str(saved)])
    out = capsys.readouterr().out
    assert code == 1
    assert "| stores | sqlite write p50 | 1 ms | 2 ms | 2.00x worse | FLAGGED" in out


def test_a_run_within_the_factor_exits_0(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A figure 1.4x slower than saved is listed but not flagged, and main exits 0."""
    monkeypatch.setattr(bench, "SECTIONS", {"stores": lambda _quick: [made("sqlite write p50", 1.4)]})
    saved = saved_file(tmp_path, report(made("sqlite write p50", 1.0)))
    code = bench.main(["--only", "stores", "--output", str(tmp_path / "now.json"), "--compare", str(saved)])
    assert code == 0
    assert "| stores | sqlite write p50 | 1 ms | 1.4 ms | 1.40x worse |  |" in capsys.readouterr().out


def test_a_figure_1_4x_worse_is_not_flagged_and_2x_worse_is() -> None:
    """The flag is on more than 1.5x worse: 1.4x and exactly 1.5x pass, 2x does not."""
    rows = compare(report(made("a", 1.0), made("b", 1.0), made("c", 1.0)), report(made("a", 1.4), made("b", 1.5), made("c", 2.0)))
    assert [(row.name, row.flagged) for row in rows] == [("a", False), ("b", False), ("c", True)]


def test_a_rate_that_halves_is_flagged_and_one_that_doubles_is_not() -> None:
    """For a higher-is-better figure, half the saved median is 2x worse and twice it is 2x better."""
    saved = report(made("tests per second", 100, "tests/s", "suite"), made("margin", 10, "x", better="higher"))
    halved = compare(saved, report(made("tests per second", 50, "tests/s", "suite"), made("margin", 5, "x", better="higher")))
    doubled = compare(saved, report(made("tests per second", 200, "tests/s", "suite"), made("margin", 20, "x", better="higher")))
    assert [(row.flagged, row.worse_by) for row in halved] == [(True, 2.0), (True, 2.0)]
    assert [(row.flagged, row.worse_by) for row in doubled] == [(False, 0.5), (False, 0.5)]
    assert "2.00x better" in comparison_table(doubled)


def test_a_figure_in_one_run_only_is_listed_as_new_or_missing_not_flagged() -> None:
    """A figure only saved is missing, one only measured now is new; neither is flagged or given a change."""
    rows = compare(report(made("kept", 1.0), made("dropped", 1.0)), report(made("kept", 1.0), made("added", 9.0)))
    assert [(row.name, row.why_not_compared, row.flagged, row.worse_by) for row in rows] == [
        ("kept", "", False, 1.0),
        ("added", "new", False, None),
        ("dropped", "missing", False, None),
    ]
    table = comparison_table(rows)
    assert "| stores | dropped | 1 ms |  | missing |  |" in table
    assert "0 of 3 figures more than 1.5x worse" in table


def test_a_section_this_run_did_not_measure_is_not_listed_as_missing() -> None:
    """With --only, the saved figures of the sections left out are not compared at all."""
    rows = compare(report(made("sqlite write p50", 1.0), made("stdio p50", 1.0, section="transports")), report())
    assert rows == []


def test_a_figure_measured_in_only_one_run_or_in_another_unit_is_not_compared() -> None:
    """A median of 0 (not measured: no redis-server) or a changed unit gives no change and no flag."""
    rows = compare(
        report(made("redis write p50", 0.0), made("t", 1.0, "s")), report(made("redis write p50", 5.0), made("t", 9.0))
    )
    assert [(row.why_not_compared, row.flagged) for row in rows] == [
        ("not measured in one run", False),
        ("unit changed from s", False),
    ]


def test_a_saved_report_from_before_the_direction_field_loads_as_lower(tmp_path: Path) -> None:
    """A bench.json without `better` loads, each figure better lower, and is compared by this run's direction."""
    document = report(made("sqlite write p50", 1.0), made("tests per second", 100, "tests/s", "suite")).model_dump(mode="json")
    for item in document["figures"]:
        del item["better"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    old = load_saved(path)
    assert [f.better for f in old.figures] == ["lower", "lower"]
    rows = compare(old, report(made("tests per second", 50, "tests/s", "suite")))
    assert [(row.name, row.flagged) for row in rows] == [("tests per second", True)]


BAD_FILES = {
    "missing": (None, "no such file"),
    "not JSON": (b"| section | figure |\n", "not JSON"),
    "not a bench report": (b'{"figures": [{"name": "x"}]}', "not a bench report"),
    "not text": (b"\xff\xfe\x00garbage", "not JSON"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_saved_file_that_cannot_be_compared_exits_2_with_one_line_before_measuring(
    case: str, bench: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The run exits 2 with one line on stderr naming the file, what is wrong and what to pass, and measures nothing."""
    content, wrong = BAD_FILES[case]
    path = tmp_path / "bench-main.json"
    if content is not None:
        path.write_bytes(content)
    monkeypatch.setattr(bench, "SECTIONS", {"stores": lambda _quick: pytest.fail("measured before checking --compare")})
    assert bench.main(["--only", "stores", "--output", str(tmp_path / "now.json"), "--compare", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert str(path) in captured.err
    assert wrong in captured.err
    assert "bench.py wrote" in captured.err


def test_a_saved_file_that_cannot_be_read_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    """Run as a script, a --compare path that is a folder exits 2 with one line and no traceback."""
    done = subprocess.run(
        [sys.executable, str(BENCH), "--compare", str(tmp_path), "--output", str(tmp_path / "now.json")],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"bench.py: cannot compare with {tmp_path}: cannot read it")
    assert done.stderr.count("\n") == 1
    assert not (tmp_path / "now.json").exists()


def test_a_schema_invalid_saved_file_names_where_it_breaks(tmp_path: Path) -> None:
    """SavedReportError says which field of the saved report breaks the schema, and how many more do."""
    document = report(made("sqlite write p50", 1.0)).model_dump(mode="json")
    document["figures"][0]["median"] = "fast"
    document["figures"][0]["better"] = "sideways"
    path = saved_file(tmp_path, report())
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(SavedReportError, match=r"figures\.0\.median: .*, and 1 more\); pass a reports/bench\.json"):
        load_saved(path)


# floors, on hand-made figures


def test_stdio_is_judged_by_its_ratio_to_the_pipe_echo_of_the_same_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stdio p50 under 60 us still misses its goal at more than 2.5x the pipe echo; p99 gets a ratio and no goal."""
    monkeypatch.syspath_prepend(str(BENCH.parent))
    call_overhead = importlib.import_module("call_overhead")
    found = {
        ("in-process", 50): made("in-process p50", 5.0, "us"),
        ("pipe echo", 50): made("pipe echo p50", 10.0, "us"),
        ("stdio", 50): made("stdio p50", 30.0, "us"),
        ("pipe echo", 99): made("pipe echo p99", 20.0, "us"),
        ("stdio", 99): made("stdio p99", 40.0, "us"),
    }
    slow = call_overhead._beside_floor(found, "stdio", 50)
    assert (slow.ratio, slow.ratio_to, slow.goal_met) == (3.0, "pipe echo p50", False)
    assert slow.goal == "< 60 us and <= 2.5x pipe echo p50"
    found["pipe echo", 50] = made("pipe echo p50", 15.0, "us")
    assert call_overhead._beside_floor(found, "stdio", 50).goal_met is True
    tail = call_overhead._beside_floor(found, "stdio", 99)
    assert (tail.ratio, tail.ratio_to, tail.goal) == (2.0, "pipe echo p99", None)
    assert call_overhead._beside_floor(found, "pipe echo", 50).ratio_to == "in-process p50"


def test_each_sqlite_store_write_is_set_beside_the_raw_append_of_its_synchronous_setting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The sqlite write goes beside the FULL append, sqlite-normal's beside the NORMAL one; other figures keep no ratio."""
    monkeypatch.syspath_prepend(str(BENCH.parent))
    store_latency = importlib.import_module("store_latency")
    found = store_latency._beside_floors(
        [
            made("raw sqlite WAL append p50 (FULL)", 1.0),
            made("raw sqlite WAL append p50 (NORMAL)", 0.1),
            made("sqlite write p50", 2.0),
            made("sqlite-normal write p50", 0.3),
            made("sqlite read p50", 0.05),
        ]
    )
    ratios = {f.name: (f.ratio, f.ratio_to) for f in found}
    assert ratios["sqlite write p50"] == (2.0, "raw sqlite WAL append p50 (FULL)")
    assert ratios["sqlite-normal write p50"] == (pytest.approx(3.0), "raw sqlite WAL append p50 (NORMAL)")
    assert ratios["sqlite read p50"] == (None, None)
    assert all("floor" in f.note for f in found if f.name.startswith("raw sqlite"))


@pytest.mark.parametrize("name", sorted(path.stem for path in BENCH.parent.glob("*.py")))
def test_every_path_a_benchmark_names_at_import_exists(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each benchmark module imports, and every path it holds at module level (a suite, a config file) exists."""
    monkeypatch.syspath_prepend(str(BENCH.parent))
    module = importlib.import_module(name)
    paths = {attribute: value for attribute, value in vars(module).items() if isinstance(value, Path)}
    assert [attribute for attribute, value in paths.items() if not value.exists()] == []


def test_a_section_that_cannot_be_measured_leaves_the_others_written_and_exits_1(
    bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A section raising costs only its own figures: the rest are written, the section is named, and the exit is 1."""

    def broken(_quick: bool) -> list[Figure]:
        raise TypeError("a bug in one benchmark")

    monkeypatch.setattr(bench, "SECTIONS", {"broken": broken, "stores": lambda _quick: [made("sqlite write p50", 2.0)]})
    output = tmp_path / "now.json"
    assert bench.main(["--output", str(output)]) == 1
    assert [f["name"] for f in json.loads(output.read_text(encoding="utf-8"))["figures"]] == ["sqlite write p50"]
    assert "could not measure broken" in capsys.readouterr().err


def test_the_saved_baseline_follows_the_schema_and_holds_every_section() -> None:
    """benchmarks/baseline.json loads as a saved report, with figures from every section bench.py measures."""
    saved = load_saved(Path(__file__).parents[1] / "benchmarks" / "baseline.json")
    assert {figure.section for figure in saved.figures} >= {
        "transport call overhead", "shared-context stores", "shared-context over HTTP", "schema validation",
        "read-context", "context-assembly", "whole suite",
    }  # fmt: skip
