"""Hostile strings from an implementation, and bad options: every report format and the console survive them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ctxconform.conformance.cli._run import print_table
from ctxconform.conformance.judge._results import StartedLine, read_lines, write_line
from ctxconform.conformance.report._files import write_reports
from ctxconform.conformance.report._markdown import render_markdown
from ctxconform.conformance.report._model import Report
from ctxconform.conformance.report._text import markdown, visible
from helpers import STARTED, Cli, build, line, load_report
from hostile_impl import HOSTILE

TESTS = Path(__file__).parent
SELECTION = ("--spec", "shared-context", "--keyword", "version", "--seed", "1", "--quiet")
ENV = {"PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))}
# What must never reach a terminal or a job summary raw: escapes, BEL, NUL, and the forged Markdown and HTML.
TERMINAL_BYTES = ("\x1b", "\x07", "\x00", "\x9b")
FORGED = re.compile(r"^\| forged|<img|\]\(javascript|\x00|\x1b", re.MULTILINE)


@pytest.fixture(scope="module", params=["HostileName", "HostileReplies"])
def hostile(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, int, str, Path]:
    """One run per hostile implementation: its name, exit code, console output and report folder."""
    folder = tmp_path_factory.mktemp(request.param)
    done = Cli(folder)("run", "--adapter", f"python:hostile_impl:{request.param}", *SELECTION, "--report-dir", "r", env=ENV)
    return request.param, done.returncode, done.stdout + done.stderr, folder / "r"


def test_a_lone_surrogate_in_the_name_leaves_a_passing_run_passing(hostile: tuple[str, int, str, Path]) -> None:
    """The hostile name reaches report.json as its escape; no HARNESS verdict, the reference stays conformant."""
    kind, code, output, folder = hostile
    (implementation,) = load_report(folder)["implementations"]
    assert "HARNESS" not in implementation["counts"], output
    assert implementation["name"].startswith("impl\\ud800x|y")
    assert implementation["version"] is not None
    assert implementation["language"] is not None
    assert code == (0 if kind == "HostileName" else 1), output
    assert implementation["status"] == ("partial" if kind == "HostileName" else "not-conformant")  # --keyword: partial


def test_every_report_format_survives_hostile_strings(hostile: tuple[str, int, str, Path]) -> None:
    """Each file is valid UTF-8 and parses as its format; the HTML and SVG hold no tag the implementation wrote."""
    _, _, _, folder = hostile
    texts = {path.name: path.read_bytes().decode("utf-8") for path in folder.iterdir()}
    assert {"report.json", "junit.xml", "ctrf.json", "summary.md", "report.html", "badge.svg", "badge.json"} <= set(texts)
    for name in ("report.json", "ctrf.json", "badge.json"):
        json.loads(texts[name])
    for name in ("junit.xml", "badge.svg"):
        ET.fromstring(texts[name].encode("utf-8"))
    assert "<img src=x" not in texts["report.html"]
    assert "\x00" not in texts["report.html"]


def test_summary_md_escapes_markdown_and_html_and_drops_control_characters(hostile: tuple[str, int, str, Path]) -> None:
    """No forged row, raw HTML, javascript: link, NUL or escape byte reaches the file CI appends to the job summary."""
    kind, _, _, folder = hostile
    summary = (folder / "summary.md").read_text(encoding="utf-8")
    assert FORGED.findall(summary) == []
    rows = [line for line in summary.splitlines() if line.startswith("| ") and kind in line]
    assert len(rows) == 1


def test_the_console_shows_control_characters_instead_of_obeying_them(hostile: tuple[str, int, str, Path]) -> None:
    """The console table prints the hostile name with its escapes visible: no title, clear or colour reaches the tty."""
    _, _, output, _ = hostile
    assert [byte for byte in TERMINAL_BYTES if byte in output] == []
    assert "impl\\ud800x|y\\n" in output


def test_the_stderr_of_a_failed_start_is_shown_escaped(cli: Cli, tmp_path: Path) -> None:
    """A child that writes escapes to stderr and dies: exit 3, its stderr on the console with escapes visible."""
    adapter = f"stdio:{sys.executable} {TESTS / 'hostile_impl.py'}"
    done = cli("run", "--adapter", adapter, *SELECTION, "--report-dir", str(tmp_path))
    assert done.returncode == 3, done.stdout + done.stderr
    assert [byte for byte in TERMINAL_BYTES if byte in done.stdout + done.stderr] == []
    assert FORGED.findall((tmp_path / "summary.md").read_text(encoding="utf-8")) == []


def _hostile_report() -> Report:
    """A report whose name, version, language, failure message, transcript and event message are all hostile."""
    started = {**STARTED, "implementation": {"name": HOSTILE, "version": HOSTILE, "language": HOSTILE, "specs": {}}}
    failed = {**line("test_a", "FAIL", ["shared-context/3.3/version-increments"]), "message": HOSTILE}
    failed["transcript"] = [{"call": HOSTILE, "reply": {"error": {"code": HOSTILE, "message": HOSTILE}}}]
    event = {"event": "restarted", "at_s": 1.0, "test": "shared_context/test_x.py::test_a", "message": HOSTILE}
    return build([started, failed, event])


def test_summary_md_of_a_hostile_report_forges_nothing() -> None:
    """Name, version and messages render as text: one table row, no forged row, HTML, link, NUL or escape byte."""
    summary = render_markdown(_hostile_report())
    assert FORGED.findall(summary) == []
    (row,) = [row for row in summary.splitlines() if row.startswith("| impl\ufffd")]
    assert "\\| forged \\|" in row


def test_every_format_of_a_hostile_report_is_well_formed(tmp_path: Path) -> None:
    """Every file written from a hostile report is UTF-8 and parses; HTML and Markdown carry no tag or control byte."""
    written = write_reports(_hostile_report(), tmp_path)
    texts = {path.name: path.read_bytes().decode("utf-8") for path in written}
    for name in ("report.json", "ctrf.json", "badge.json"):
        json.loads(texts[name])
    for name in ("junit.xml", "badge.svg"):
        ET.fromstring(texts[name].encode("utf-8"))
    for name in ("report.html", "summary.md"):
        assert "<img src=x" not in texts[name]
        assert [byte for byte in TERMINAL_BYTES if byte in texts[name]] == []


def test_the_console_table_of_a_hostile_report_shows_its_escapes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The console table prints a hostile name and message with control characters made visible."""
    report = _hostile_report()
    failing = report.implementations[0].model_copy(update={"message": f"\x1b]0;pwned\x07{HOSTILE}"})
    print_table(report.model_copy(update={"implementations": [failing]}), [tmp_path / "report.json"])
    shown = capsys.readouterr().out
    assert [byte for byte in TERMINAL_BYTES if byte in shown] == []
    assert "\\x1b]0;pwned\\x07" in shown


def test_a_result_line_carries_a_lone_surrogate_there_and_back(tmp_path: Path) -> None:
    """The result writer writes a lone surrogate as its escape, and the reader gets the same string back."""
    results = tmp_path / "results.jsonl"
    write_line(results, StartedLine(adapter="a", implementation={"name": HOSTILE}))
    (line,) = read_lines(results)
    assert isinstance(line, StartedLine)
    assert line.implementation["name"] == HOSTILE


def test_markdown_and_visible_render_hostile_text_as_itself() -> None:
    """markdown() leaves one line without markup or HTML; visible() leaves no control character."""
    rendered = markdown(HOSTILE)
    assert [bad for bad in ("\n", "<", "](", "\x00", "\x1b") if bad in rendered] == []
    assert "\\|" in rendered
    shown = visible(HOSTILE)
    assert shown.isprintable()
    assert "\\x1b]0;pwned\\x07" in shown
    assert len(visible("x" * 10_000, 100)) < 200


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--timeout=nan"],
        ["run", "--timeout=inf"],
        ["run", "--timeout=-inf"],
        ["run", "--timeout=1e300"],
        ["run", "--max-restarts=-1"],
        ["run", "--max-restarts=1000000000"],
        ["mutants", "--timeout=nan", "--mutant", "versions_do_not_increment"],
        ["mutants", "--jobs=0", "--mutant", "versions_do_not_increment"],
        ["mutants", "--sample=0"],
    ],
)
def test_numeric_options_out_of_range_exit_2_with_one_line(args: list[str], cli: Cli, tmp_path: Path) -> None:
    """NaN, infinities, negatives and absurd sizes are refused before anything runs, in one line."""
    command, *rest = args
    selection = SELECTION if command == "run" else ("--seed", "1", "--quiet")
    done = cli(command, *rest, *selection, "--report-dir", str(tmp_path / "r"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "r" / "report.json").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--adapter", "python:nosuchmod:f"], "cannot import 'nosuchmod'"),
        (["--adapter", "python:os:sep"], "os has no callable 'sep'"),
        (["--adapter", "python:hostile_impl:nope"], "has no callable 'nope'"),
        (["--test", "a::b["], "--test a::b["),
        (["--test", "shared_context/test_nothing.py::test_nothing"], "ran no test"),
        (["--keyword", "and or ("], "--keyword and or ("),
    ],
)
def test_configuration_errors_exit_2_with_one_line(args: list[str], message: str, cli: Cli, tmp_path: Path) -> None:
    """A bad adapter, test id or keyword is a configuration error: exit 2, one line, no report."""
    done = cli("run", *SELECTION, *args, "--report-dir", str(tmp_path / "r"), env=ENV)
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert message in line
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "r" / "report.json").exists()


def test_a_factory_that_raises_is_refused_in_one_line(cli: Cli, tmp_path: Path) -> None:
    """A python: factory that raises cannot give an implementation: exit 2 or 3, one line saying what it raised."""
    done = cli("run", "--adapter", "python:hostile_impl:raising", *SELECTION, "--report-dir", str(tmp_path), env=ENV)
    assert done.returncode in (2, 3), done.stdout + done.stderr
    assert "this factory needs settings" in done.stdout + done.stderr
    assert "HARNESS" not in done.stdout


@pytest.mark.parametrize("option", ["--ctxconform-timeout=nan", "--ctxconform-timeout=inf", "--ctxconform-max-restarts=-1"])
def test_the_plugin_refuses_the_same_numbers(option: str, tmp_path: Path) -> None:
    """Run as a pytest plugin, the suites refuse a NaN or infinite timeout and a negative restart budget: a usage error."""
    command = [sys.executable, "-m", "pytest", "--pyargs", "ctxconform.conformance.suites", option, "--collect-only", "-q"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=300, check=False)
    assert done.returncode == 4, done.stdout + done.stderr
    assert "give a" in done.stderr
