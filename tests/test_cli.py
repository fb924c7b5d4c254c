"""The `ctxconform` command: runs, reports, exit codes and messages."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ctxconform.conformance.judge._schemas import schema_errors
from evidence import problems
from helpers import Cli, load_report

STDIO = f"stdio:{sys.executable} -m ctxconform.reference.stdio"


@pytest.fixture(scope="module")
def reference_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, Path]]:
    """One run of the shared-context suite per transport against the reference, shared by the tests below."""
    runs = {}
    for name, adapter in (("inprocess", "reference"), ("stdio", STDIO)):
        folder = tmp_path_factory.mktemp(name)
        # The ci profile, as the main job in CI: the stateful tests' evidence of every requirement depends on their draws.
        args = ("--spec", "shared-context", "--report-dir", str(folder), "--seed", "1", "--profile", "ci")
        done = Cli(folder)("run", "--adapter", adapter, *args)
        assert done.returncode == 0, done.stdout + done.stderr
        runs[name] = (done.returncode, folder)
    return runs


def test_run_against_the_reference_is_conformant_and_writes_every_report(reference_runs: dict[str, tuple[int, Path]]) -> None:
    """The reference passes in-process; report.json validates, junit.xml parses and summary.md says conformant."""
    _, folder = reference_runs["inprocess"]
    report = load_report(folder)
    assert schema_errors("report/report.schema.json", report) == []
    assert report["conformant"] is True
    assert ET.parse(folder / "junit.xml").getroot().tag == "testsuites"
    assert "**conformant**" in (folder / "summary.md").read_text(encoding="utf-8")
    (implementation,) = report["implementations"]
    assert implementation["counts"]["PASS"] > 100


def test_stdio_runs_the_same_tests_as_in_process(reference_runs: dict[str, tuple[int, Path]]) -> None:
    """Over stdio the reference gets the same tests, with the same verdicts, as in-process."""
    verdicts = [
        {t["id"]: t["verdict"] for t in load_report(f)["implementations"][0]["tests"]} for _, f in reference_runs.values()
    ]
    assert verdicts[0] == verdicts[1]


def test_junit_carries_requirement_ids_as_properties(reference_runs: dict[str, tuple[int, Path]]) -> None:
    """Every test case in junit.xml names its requirement ids."""
    _, folder = reference_runs["inprocess"]
    cases = ET.parse(folder / "junit.xml").getroot().iter("testcase")
    for case in cases:
        names = [p.get("value", "") for p in case.iter("property") if p.get("name") == "requirement"]
        assert names
        assert all(n.startswith("shared-context/") for n in names)


def test_an_unknown_profile_in_the_environment_exits_2_before_running(cli: Cli) -> None:
    """CTXCONFORM_PROFILE names the default profile; one that is not a profile is a one-line usage error."""
    done = cli("run", "--spec", "shared-context", env={"CTXCONFORM_PROFILE": "fast"})
    assert done.returncode == 2
    assert "CTXCONFORM_PROFILE='fast' is not a profile" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "--spec", "no-such-spec"], "unknown spec 'no-such-spec'"),
        (["run", "--adapter", "carrier-pigeon:"], "unknown adapter"),
        (["run", "--adapter", "python:nope"], "python:package.module:factory"),
        (["run", "--timeout", "0"], "--timeout must be a positive"),
        (["run", "--jobs", "0"], "--jobs must be a whole number from 1 to 64"),
        (["run", "-j", "65"], "--jobs must be a whole number from 1 to 64"),
        (["run", "--report-dir", "/proc/ctxconform"], "cannot create the report folder"),
        (["requirements", "--spec", "nope"], "unknown spec"),
    ],
)
def test_usage_errors_exit_2_with_one_clear_line(args: list[str], message: str, cli: Cli) -> None:
    """A usage or configuration error exits 2 with a one-line message and no traceback."""
    done = cli(*args)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_an_argument_parser_error_exits_2(cli: Cli) -> None:
    """Unknown options and bad choices exit 2 through the argument parser."""
    assert cli("run", "--level", "OPTIONAL").returncode == 2
    assert cli("frobnicate").returncode == 2


def test_an_implementation_that_cannot_start_exits_3(cli: Cli, tmp_path: Path) -> None:
    """A command that dies before answering start exits 3 and says why."""
    child = Path(__file__).with_name("faulty_child.py")
    done = cli("run", "--adapter", f"stdio:{sys.executable} {child} crash-at-start", "--report-dir", str(tmp_path), "--quiet")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "cannot find my configuration" in done.stdout
    assert load_report(tmp_path)["implementations"][0]["status"] == "unavailable"


def test_requirements_check_passes_for_the_shipped_suites(cli: Cli) -> None:
    """Every testable requirement has a test and every test names known ids."""
    done = cli("requirements", "--check")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 problems" in done.stdout


def test_requirements_lists_every_entry(cli: Cli) -> None:
    """The listing has one line per requirement and a count."""
    done = cli("requirements", "--spec", "shared-context")
    lines = done.stdout.splitlines()
    assert lines[-1].endswith("requirements")
    assert len(lines) - 1 == int(lines[-1].split()[0]) >= 40


# A whole suite over MCP: the default session runs a sample of every suite over MCP (test_mcp_specs.py).
@pytest.mark.slow
def test_read_context_over_mcp_runs_the_same_tests_as_in_process(tmp_path: Path) -> None:
    """The reference's MCP server passes the read-context suite with the same tests and verdicts as in-process."""
    verdicts = []
    for name, adapter in (("inprocess", "reference"), ("mcp", f"mcp+stdio:{sys.executable} -m ctxconform.reference.mcp")):
        folder = tmp_path / name
        done = Cli(tmp_path)(
            "run", "--adapter", adapter, "--spec", "read-context", "--report-dir", str(folder), "--seed", "2", "--quiet"
        )
        assert done.returncode == 0, done.stdout + done.stderr
        verdicts.append({t["id"]: t["verdict"] for t in load_report(folder)["implementations"][0]["tests"]})
    assert verdicts[0] == verdicts[1]
    assert len(verdicts[0]) > 150


@pytest.mark.parametrize("transport", ["inprocess", "stdio"])
def test_the_reference_evidences_every_requirement_its_tests_declare(
    reference_runs: dict[str, tuple[int, Path]], transport: str
) -> None:
    """Against the reference every passing test held a check of each requirement it declares, and none is UNTESTED."""
    _, folder = reference_runs[transport]
    assert problems(load_report(folder)["implementations"][0]) == []
