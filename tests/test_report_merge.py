"""`ctxconform report merge`: the reports of parallel jobs become one comparison, with every rendering."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from ctxconform.conformance.judge._schemas import schema_errors
from helpers import Cli, load_report

MUTANT = "python:ctxconform.reference.mutants:list_keys_shows_creation_metadata"
JOBS = {
    "reference-sc": ("reference", "shared-context", "list_keys"),
    "reference-rc": ("reference", "read-context", "missing"),
    "mutant-sc": (MUTANT, "shared-context", "list_keys"),
}


@pytest.fixture(scope="module")
def jobs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three parallel jobs' report folders: the reference on two specs, and a mutant on one."""
    base = tmp_path_factory.mktemp("jobs")
    for name, (adapter, spec, keyword) in JOBS.items():
        selection = ("--spec", spec, "--keyword", keyword, "--seed", "1", "--quiet")
        done = Cli(base)("run", "--adapter", adapter, *selection, "--report-dir", name)
        assert done.returncode in (0, 1), done.stdout + done.stderr
    return base


def merged(cli: Cli, jobs: Path, *names: str) -> tuple[int, str, dict[str, Any]]:
    """Merge the named jobs into `merged/`; return the exit code, the output and the merged report (empty if none)."""
    done = cli("report", "merge", *(str(jobs / name) for name in names), "--report-dir", "merged")
    path = cli.cwd / "merged"
    return done.returncode, done.stdout + done.stderr, load_report(path) if (path / "report.json").exists() else {}


def test_jobs_of_one_adapter_on_two_specs_become_one_entry(cli: Cli, jobs: Path) -> None:
    """The reference's two single-spec jobs merge into one implementation with both specs, its counts summed."""
    code, output, report = merged(cli, jobs, "reference-sc", "reference-rc")
    assert code == 0, output
    assert schema_errors("report/report.schema.json", report) == []
    (implementation,) = report["implementations"]
    assert [s["spec"] for s in implementation["specs"]] == ["shared-context", "read-context"]
    parts = [load_report(jobs / name)["implementations"][0] for name in ("reference-sc", "reference-rc")]
    assert len(implementation["tests"]) == sum(len(p["tests"]) for p in parts)
    assert implementation["counts"]["PASS"] == sum(p["counts"]["PASS"] for p in parts)
    assert implementation["status"] == "partial"


def test_jobs_of_two_adapters_become_a_comparison_with_every_rendering(cli: Cli, jobs: Path) -> None:
    """A mutant's job beside the reference's: two entries, the worst status decides the exit code, every file written."""
    code, output, report = merged(cli, jobs, "reference-sc", "reference-rc", "mutant-sc")
    assert code == 1, output
    assert [i["adapter"] for i in report["implementations"]] == ["reference", MUTANT]
    assert report["conformant"] is False
    names = {path.name for path in (cli.cwd / "merged").iterdir()}
    assert {"junit.xml", "ctrf.json", "summary.md", "report.html", "badge.svg", "badge-2.svg"} <= names
    summary = (cli.cwd / "merged" / "summary.md").read_text(encoding="utf-8")
    assert "## Side by side" in summary
    assert re.search(r"^\| read-context \| \d+/64 \| - \|$", summary, re.MULTILINE)


def test_two_reports_of_one_spec_for_one_adapter_are_refused(cli: Cli, jobs: Path) -> None:
    """The same adapter and spec twice is ambiguous: exit 2, one line, nothing written."""
    code, output, report = merged(cli, jobs, "reference-sc", "reference-sc")
    assert code == 2
    assert "both ran shared-context" in output
    assert report == {}


def test_reports_of_different_levels_are_refused(cli: Cli, jobs: Path, tmp_path: Path) -> None:
    """Jobs run at different levels do not compare: exit 2 naming the field."""
    other = tmp_path / "other"
    other.mkdir()
    document = json.loads((jobs / "reference-rc" / "report.json").read_text(encoding="utf-8"))
    (other / "report.json").write_text(json.dumps({**document, "level": "MUST"}), encoding="utf-8")
    done = cli("report", "merge", str(jobs / "reference-sc"), str(other), "--report-dir", "merged")
    assert done.returncode == 2
    assert "differ in level" in done.stderr


@pytest.mark.parametrize("content", [None, "{not json", '{"report_version": 1}'])
def test_a_folder_without_a_report_is_a_clear_error(cli: Cli, tmp_path: Path, content: str | None) -> None:
    """A missing, broken or foreign report.json exits 2 with one line naming the file, no traceback."""
    folder = tmp_path / "job"
    folder.mkdir()
    if content is not None:
        (folder / "report.json").write_text(content, encoding="utf-8")
    done = cli("report", "merge", str(folder), "--report-dir", "merged")
    assert done.returncode == 2
    assert "report.json" in done.stderr
    assert "Traceback" not in done.stderr
