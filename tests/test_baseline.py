"""Baselines: known failures become XFAIL, stale entries XPASS and fail the run, and updates need a complete run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ctxconform.conformance.exceptions import ConfigurationError
from ctxconform.conformance.judge import load_registry
from ctxconform.conformance.judge._results import Charge, parse_line
from ctxconform.conformance.report._baseline import Baseline, KnownFailure, apply_baseline, load_baseline, stale_entries
from ctxconform.conformance.report._model import TestResult, implementation_report
from helpers import Cli, load_report

MUTANT = "python:ctxconform.reference.mutants:notes_truncate_at_50"
THRESHOLD = "read-context/summarization/threshold"


def result(test_id: str, verdict: str, failed: tuple[str, ...] = (), message: str = "") -> TestResult:
    """A test result naming THRESHOLD."""
    charges = [Charge(requirement=rid, verdict=verdict) for rid in failed]  # type: ignore[arg-type]
    return TestResult(
        id=test_id, name=test_id, spec="read-context", requirements=[THRESHOLD], charges=charges,
        failed_requirements=list(failed), verdict=verdict, duration_s=0.0, message=message, transcript=[], replay="",
    )  # fmt: skip


def known(**fields: str) -> Baseline:
    """A baseline of one entry."""
    return Baseline(known_failures=[KnownFailure(**fields)])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "entry",
    [{"test": "t"}, {"requirement": THRESHOLD}, {"test": "t", "verdict": "FAIL"}, {"test": "t", "message": "41 lines"}],
)
def test_a_covered_failure_becomes_xfail(entry: dict[str, str]) -> None:
    """A failure the entry names (by test or requirement, verdict and message) is XFAIL and keeps its message."""
    (test,) = apply_baseline([result("t", "FAIL", (THRESHOLD,), "notes of 41 lines")], known(**entry))
    assert test.verdict == "XFAIL"
    assert "notes of 41 lines" in test.message


@pytest.mark.parametrize("entry", [{"test": "u"}, {"test": "t", "verdict": "TIMEOUT"}, {"test": "t", "message": "other"}])
def test_a_different_failure_stays_a_failure(entry: dict[str, str]) -> None:
    """A failure of another test, with another verdict or without the expected message is not excused."""
    (test,) = apply_baseline([result("t", "FAIL", (THRESHOLD,), "notes of 41 lines")], known(**entry))
    assert test.verdict == "FAIL"


def test_a_harness_failure_is_never_excused() -> None:
    """HARNESS is the kit's own bug: no baseline turns it into XFAIL."""
    (test,) = apply_baseline([result("t", "HARNESS", (THRESHOLD,))], known(test="t"))
    assert test.verdict == "HARNESS"


def test_an_entry_whose_test_passes_is_stale_and_xpass() -> None:
    """A test entry whose test now passes makes it XPASS and is reported stale."""
    tests, baseline = [result("t", "PASS")], known(test="t")
    assert [t.verdict for t in apply_baseline(tests, baseline)] == ["XPASS"]
    assert stale_entries(tests, baseline) == baseline.known_failures


def test_an_entry_whose_tests_did_not_run_is_not_stale() -> None:
    """Entries of tests left out by a filter or skipped are neither stale nor applied."""
    tests = [result("t", "SKIP")]
    assert stale_entries(tests, known(test="t")) == []
    assert stale_entries(tests, known(test="elsewhere")) == []


def test_a_report_with_only_known_failures_is_known_failures_and_a_stale_one_is_not_conformant() -> None:
    """Status known-failures when all failures are baselined; a stale requirement entry is XPASS and not-conformant."""
    line = parse_line(
        {"event": "test", **result("t", "FAIL", (THRESHOLD,)).model_dump(exclude={"replay", "failed_requirements"})}
    )
    registries = [load_registry("read-context")]
    excused = implementation_report("x", [line], registries, replay="", duration_s=0, baseline=known(requirement=THRESHOLD))
    assert excused.status == "known-failures"
    assert next(r for r in excused.requirements if r.id == THRESHOLD).verdict == "XFAIL"
    held = [Charge(requirement=THRESHOLD, verdict="PASS", checks=1)]
    passing = line.model_copy(update={"verdict": "PASS", "charges": held})
    stale = implementation_report("x", [passing], registries, replay="", duration_s=0, baseline=known(requirement=THRESHOLD))
    assert stale.status == "not-conformant"
    assert stale.stale_baseline == [f"requirement {THRESHOLD}"]
    assert next(r for r in stale.requirements if r.id == THRESHOLD).verdict == "XPASS"


@pytest.mark.parametrize(
    ("content", "where"),
    [
        ("not json", "the file"),
        ('{"known_failures": [{"test": "t", "requirement": "r"}]}', "known_failures.0"),
        ('{"known_failures": [{"test": "t", "verdict": "PASS"}]}', "known_failures.0.verdict"),
        ('{"known_failures": [], "extra": 1}', "extra"),
    ],
)
def test_a_bad_baseline_file_is_a_configuration_error_saying_where(content: str, where: str, tmp_path: Path) -> None:
    """A malformed baseline is refused with the place that is wrong."""
    path = tmp_path / "baseline.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigurationError, match=f"at {where}"):
        load_baseline(path)


def test_update_refuses_a_filtered_run_and_leaves_the_file(tmp_path: Path) -> None:
    """--update-baseline with --test, --keyword, --requirement or --level exits 2 before running; the file is unchanged."""
    path = tmp_path / "baseline.json"
    path.write_text('{"known_failures": []}', encoding="utf-8")
    filters = (
        ["--keyword", "notes"],
        ["--level", "MUST"],
        ["--test", "x::y"],
        ["--requirement", "read-context/summarization/threshold"],
    )
    for flags in filters:
        done = Cli(tmp_path)("run", "--baseline", str(path), "--update-baseline", "--report-dir", str(tmp_path), *flags)
        assert done.returncode == 2, done.stderr
        assert "needs a complete run" in done.stderr
    assert path.read_text(encoding="utf-8") == '{"known_failures": []}'


def test_update_after_an_implementation_that_cannot_start_exits_3_and_leaves_the_file(tmp_path: Path) -> None:
    """A run whose implementation cannot start does not overwrite the baseline."""
    path = tmp_path / "baseline.json"
    path.write_text('{"known_failures": []}', encoding="utf-8")
    adapter = f"stdio:{sys.executable} {Path(__file__).with_name('faulty_child.py')} crash-at-start"
    flags = ("--spec", "read-context", "--baseline", str(path), "--update-baseline", "--quiet")
    done = Cli(tmp_path)("run", "--adapter", adapter, *flags)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "could not start" in done.stderr
    assert path.read_text(encoding="utf-8") == '{"known_failures": []}'


def test_update_refuses_a_run_whose_restarts_ran_out_and_leaves_the_file(tmp_path: Path) -> None:
    """A run cut short by a child that hangs on every call exits 2 and does not overwrite the baseline."""
    path = tmp_path / "baseline.json"
    path.write_text('{"known_failures": []}', encoding="utf-8")
    adapter = f"stdio:{sys.executable} {Path(__file__).with_name('faulty_child.py')} hang"
    flags = ("--spec", "context-snapshot", "--timeout", "0.5", "--max-restarts", "0", "--quiet")
    done = Cli(tmp_path)("run", "--adapter", adapter, "--baseline", str(path), "--update-baseline", *flags)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "the run was partial (the restarts ran out)" in done.stderr
    assert path.read_text(encoding="utf-8") == '{"known_failures": []}'


def test_a_written_baseline_excuses_its_failures_and_goes_stale_once_they_are_fixed(tmp_path: Path) -> None:
    """Update from a mutant's run, run the mutant again (exit 0, XFAIL), then the reference (exit 1, XPASS)."""
    path, cli = tmp_path / "baseline.json", Cli(tmp_path)
    common = ("--spec", "read-context", "--baseline", str(path), "--quiet", "--seed", "3")
    written = cli("run", "--adapter", MUTANT, *common, "--update-baseline", "--report-dir", str(tmp_path / "a"))
    assert written.returncode == 0, written.stdout + written.stderr
    entries = json.loads(path.read_text(encoding="utf-8"))["known_failures"]
    assert entries
    assert all(e["verdict"] == "FAIL" for e in entries)
    again = cli("run", "--adapter", MUTANT, *common, "--report-dir", str(tmp_path / "b"))
    assert again.returncode == 0, again.stdout
    assert load_report(tmp_path / "b")["implementations"][0]["status"] == "known-failures"
    fixed = cli("run", *common, "--report-dir", str(tmp_path / "c"))
    assert fixed.returncode == 1, fixed.stdout
    (implementation,) = load_report(tmp_path / "c")["implementations"]
    assert implementation["counts"]["XPASS"] == len(entries)
    assert len(implementation["stale_baseline"]) == len(entries)
