"""What a suite run leaves outside its own folders and the report folder: its cache, and nothing else."""

from __future__ import annotations

import getpass
import json
from pathlib import Path

import pytest

from ctxconform.conformance.run._request import SuiteRequest
from helpers import Cli

# A test that draws text (hypothesis then wants its table of the characters UTF-8 encodes) and one using tmp_path.
DRAWS_TEXT = ("--spec", "content-provider", "--keyword", "broken_arguments_are_refused_and_change_nothing and get_provider")
USES_TMP_PATH = ("--spec", "read-context", "--keyword", "test_reading_creates_and_changes_no_file")


def verdicts(report_dir: Path) -> set[str]:
    """The verdicts of the tests in a run's report."""
    (implementation,) = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))["implementations"]
    return {test["verdict"] for test in implementation["tests"]}


def test_a_run_keeps_its_temporary_folders_to_itself_and_prunes_nobody_elses(tmp_path: Path) -> None:
    """A child's tmp_path lies in the run's own folder: other pytest runs' folders are neither pruned nor joined."""
    root = tmp_path / "temp-root"
    others = root / f"pytest-of-{getpass.getuser()}"
    kept = [others / f"pytest-{n}" for n in range(1, 7)]
    for folder in kept:
        (folder / "data").mkdir(parents=True)
    done = Cli(tmp_path)("run", *USES_TMP_PATH, "--quiet", "--report-dir", "r", env={"PYTEST_DEBUG_TEMPROOT": str(root)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert verdicts(tmp_path / "r") == {"PASS"}  # the test that uses tmp_path ran
    assert sorted(root.rglob("*")) == sorted([*kept, *(folder / "data" for folder in kept), others])


def test_hypothesis_keeps_its_files_in_the_users_cache_not_the_folder_the_run_starts_in(tmp_path: Path) -> None:
    """No `.hypothesis` folder in the working folder: the user's cache folder holds hypothesis's files."""
    work, cache = tmp_path / "work", tmp_path / "cache"
    work.mkdir()
    done = Cli(work)("run", *DRAWS_TEXT, "--quiet", "--report-dir", "r", env={"XDG_CACHE_HOME": str(cache)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert verdicts(work / "r") == {"PASS"}
    assert sorted(p.name for p in work.iterdir()) == ["r"]
    assert list((cache / "ctxconform" / "hypothesis" / "unicode_data").rglob("codec-*"))


def test_the_users_own_hypothesis_settings_stand(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A storage folder or plugin choice the user set is the child's; unset, the kit's defaults fill in."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    assert SuiteRequest.environment()["HYPOTHESIS_STORAGE_DIRECTORY"] == str(tmp_path / "ctxconform" / "hypothesis")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # not absolute: ignored, as the XDG rules say
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert SuiteRequest.environment()["HYPOTHESIS_STORAGE_DIRECTORY"] == str(
        tmp_path / "home" / ".cache" / "ctxconform" / "hypothesis"
    )
    monkeypatch.setenv("HYPOTHESIS_STORAGE_DIRECTORY", "/chosen")
    monkeypatch.setenv("HYPOTHESIS_NO_PLUGINS", "")
    environment = SuiteRequest.environment()
    assert (environment["HYPOTHESIS_STORAGE_DIRECTORY"], environment["HYPOTHESIS_NO_PLUGINS"]) == ("/chosen", "")
