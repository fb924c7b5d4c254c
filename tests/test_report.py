"""Building the report from result lines, and rendering it as JUnit XML and Markdown."""

from __future__ import annotations

import json
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema

from ctxconform.conformance import Report, load_registry
from ctxconform.conformance.judge._results import TestLine, read_lines
from ctxconform.conformance.report._badge import badge_for
from ctxconform.conformance.report._ctrf import render_ctrf
from ctxconform.conformance.report._files import write_reports
from ctxconform.conformance.report._junit import render_junit
from ctxconform.conformance.report._markdown import render_markdown
from ctxconform.conformance.report._model import implementation_report
from helpers import STARTED, build, line, parse_lines

INC = "shared-context/3.3/version-increments"
ONE = "shared-context/3.3/create-version-one"
KEY = "shared-context/4.3/key-pattern"


def verdicts(report: Report) -> dict[str, str]:
    """Requirement id -> verdict."""
    return {r.id: r.verdict for r in report.implementations[0].requirements}


def test_result_lines_survive_unicode_line_separators_and_a_torn_last_line(tmp_path: Path) -> None:
    """A value holding U+2028 stays in its line, and a half-written last line is dropped, not fatal."""
    path = tmp_path / "results.jsonl"
    record = line("a", "FAIL", [INC]) | {"message": "a\u2028b\x85c"}
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n" + '{"event": "te', encoding="utf-8")
    (read,) = read_lines(path)
    assert isinstance(read, TestLine)
    assert read.message == "a\u2028b\x85c"


def test_a_requirement_takes_the_worst_verdict_charged_to_it() -> None:
    """PASS and FAIL tests of one requirement make it FAIL; one only passed stays PASS; one never named is UNTESTED."""
    report = build([STARTED, line("a", "PASS", [INC]), line("b", "FAIL", [INC]), line("c", "PASS", [KEY])])
    found = verdicts(report)
    assert (found[INC], found[KEY], found[ONE]) == ("FAIL", "PASS", "UNTESTED")
    assert report.implementations[0].status == "not-conformant"


def test_a_failure_charges_its_requirement_and_the_others_keep_what_their_checks_said() -> None:
    """A failure charged to one id leaves another id whose checks held PASS, and one never checked UNTESTED."""
    failing = line("a", "FAIL", [INC, ONE, KEY], failed=[ONE])
    failing["charges"] = [c for c in failing["charges"] if c["requirement"] != KEY]
    found = verdicts(build([STARTED, failing]))
    assert (found[ONE], found[INC], found[KEY]) == ("FAIL", "PASS", "UNTESTED")


def test_a_requirement_is_charged_wherever_a_check_of_it_failed() -> None:
    """A test that does not declare a requirement can still charge it (a call-level check): the verdict counts it."""
    found = verdicts(build([STARTED, line("a", "PASS", [INC]), line("b", "FAIL", [KEY], failed=[INC]), line("c", "PASS", [KEY])]))
    assert (found[INC], found[KEY]) == ("FAIL", "PASS")


def test_a_partial_run_without_failures_is_partial_never_conformant() -> None:
    """A filtered run that failed nothing reports status partial."""
    registries = [load_registry("shared-context")]
    lines = parse_lines([STARTED, line("a", "PASS", [INC])])
    implementation = implementation_report("reference", lines, registries, replay="r", duration_s=1, partial=True)
    assert implementation.status == "partial"
    assert badge_for(implementation).message.startswith("partial run")


def test_transport_verdicts_outrank_failures_and_skips_do_not_count() -> None:
    """CRASH beats FAIL; a requirement whose tests were all skipped is SKIP, not PASS."""
    found = verdicts(build([STARTED, line("a", "FAIL", [INC]), line("b", "CRASH", [INC]), line("c", "SKIP", [KEY])]))
    assert (found[INC], found[KEY]) == ("CRASH", "SKIP")


def test_failed_tests_get_a_replay_command() -> None:
    """Only failed tests carry a replay command, naming the test."""
    tests = build([STARTED, line("a", "PASS", [INC]), line("b", "FAIL", [INC])]).implementations[0].tests
    assert [t.replay for t in tests] == ["", "ctxconform run --test shared_context/test_x.py::b"]


def test_replay_commands_quote_node_ids_for_the_shell() -> None:
    """A node id with brackets, quotes, spaces or newlines is one shell word in the replay command."""
    name = 'test_x[["a string", \r\n-True-39]]'
    (test,) = build([STARTED, line(name, "FAIL", [INC])]).implementations[0].tests
    assert shlex.split(test.replay)[-1] == f"shared_context/test_x.py::{name}"


def test_an_unavailable_implementation_is_reported_as_such() -> None:
    """An `unavailable` line makes the status unavailable, with its message."""
    implementation = build([{"event": "unavailable", "message": "cannot start"}]).implementations[0]
    assert (implementation.status, implementation.message) == ("unavailable", "cannot start")


def test_junit_has_one_case_per_test_with_failures_errors_and_skips() -> None:
    """JUnit counts failures, errors and skips, and names requirement ids and levels as properties."""
    report = build(
        [STARTED, line("a", "PASS", [INC]), line("b", "FAIL", [INC]), line("c", "TIMEOUT", [KEY]), line("d", "SKIP", [KEY])]
    )
    suite = ET.fromstring(render_junit(report).split("\n", 1)[1]).find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("4", "1", "1", "1")
    values = [p.get("value") for p in suite.iter("property") if p.get("name") == "level"]
    assert f"{INC} MUST" in values


def test_markdown_summary_lists_broken_requirements_with_their_quotes() -> None:
    """The summary says NOT conformant and quotes each broken requirement."""
    text = render_markdown(build([STARTED, line("b", "FAIL", [INC])]))
    assert "**NOT conformant**" in text
    assert f"`{INC}`" in text
    assert "increment version" in text


def two_implementations() -> Report:
    """A comparison report: the first implementation breaks version increments, the second passes everything."""
    registries = [load_registry("shared-context")]
    bad_lines = parse_lines([STARTED, line("a", "FAIL", [INC]), line("b", "PASS", [KEY])])
    good_lines = parse_lines([STARTED, line("a", "PASS", [INC]), line("b", "PASS", [KEY])])
    bad = implementation_report("reference", bad_lines, registries, replay="r", duration_s=1)
    good = implementation_report("stdio:x", good_lines, registries, replay="r", duration_s=1)
    return build([STARTED]).model_copy(update={"implementations": [bad, good], "conformant": False})


def ctrf_validator() -> jsonschema.Draft7Validator:
    """A validator of the CTRF schema, checking formats."""
    schema = json.loads((Path(__file__).parent / "data" / "ctrf.schema.json").read_text(encoding="utf-8"))
    return jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)


def test_ctrf_validates_and_keeps_every_verdict_with_its_requirements() -> None:
    """CTRF is valid against its schema; statuses map verdicts, and rawStatus, labels and extra keep ours."""
    report = build(
        [STARTED, line("a", "PASS", [INC]), line("b", "FAIL", [INC]), line("c", "CRASH", [KEY]), line("d", "SKIP", [KEY])]
    )
    document = json.loads(render_ctrf(report))
    ctrf_validator().validate(document)
    tests = document["results"]["tests"]
    assert [(t["status"], t["rawStatus"]) for t in tests] == [
        ("passed", "PASS"),
        ("failed", "FAIL"),
        ("failed", "CRASH"),
        ("skipped", "SKIP"),
    ]
    assert tests[1]["labels"]["requirement"] == [INC]
    assert tests[1]["labels"]["level"] == ["MUST"]
    assert tests[1]["extra"]["replay"] == "ctxconform run --test shared_context/test_x.py::b"
    summary = document["results"]["summary"]
    assert (summary["tests"], summary["passed"], summary["failed"], summary["skipped"]) == (4, 1, 2, 1)


def test_ctrf_of_a_comparison_names_each_implementation_in_the_suite_path() -> None:
    """Several implementations in one CTRF document: the suite path starts with the implementation."""
    document = json.loads(render_ctrf(two_implementations()))
    ctrf_validator().validate(document)
    suites = [t["suite"][0] for t in document["results"]["tests"]]
    assert suites == ["impl (reference)", "impl (reference)", "impl (stdio:x)", "impl (stdio:x)"]
    assert len({t["testId"] for t in document["results"]["tests"]}) == 4


def test_markdown_of_a_comparison_lists_the_requirements_whose_verdicts_differ() -> None:
    """A side-by-side section lists each requirement where the implementations disagree, and no other."""
    text = render_markdown(two_implementations())
    assert "## Side by side" in text
    assert f"| `{INC}` | MUST | FAIL | PASS |" in text
    assert f"`{KEY}` | MUST" not in text.split("## Side by side")[1].split("\n## ")[0]
    assert "1 requirements where the verdicts differ:" in text


def test_the_badge_counts_the_must_requirements_that_ran_and_passed() -> None:
    """The badge says the status and MUST passed/ran, coloured by status; SKIP and UNTESTED are not counted."""
    badge = badge_for(two_implementations().implementations[0])
    assert badge.message == "not conformant · MUST 1/2"
    assert badge.colour == "#c62828"
    svg = ET.fromstring(badge.svg())
    assert svg.get("aria-label") == "ctxconform: not conformant · MUST 1/2"
    assert json.loads(badge.endpoint())["message"] == badge.message


def test_junit_replaces_characters_xml_cannot_hold() -> None:
    """NUL, other control characters and lone surrogates in a message become escapes; the XML still parses."""
    failed = {**line("b", "FAIL", [INC]), "message": "got \x00 and \x1b and \ud800"}
    text = render_junit(build([STARTED, failed]))
    failure = ET.fromstring(text.split("\n", 1)[1]).find("testsuite/testcase/failure")
    assert failure is not None
    assert "\\x00 and \\x1b and \\ud800" in (failure.text or "")


def test_every_format_is_written_whole_even_from_a_lone_surrogate_an_implementation_sent(tmp_path: Path) -> None:
    """A lone surrogate and NUL in a transcript still give every file, strict JSON, the surrogate as its escape text."""
    failed = {**line("b", "FAIL", [INC]), "transcript": [{"reply": {"value": "\ud800\x00"}}], "message": "got '\ud800'"}
    report = build([STARTED, failed])
    written = write_reports(report, tmp_path)
    assert {path.name for path in written} >= {"report.json", "junit.xml", "ctrf.json", "summary.md", "report.html", "badge.svg"}
    read = Report.model_validate_json((tmp_path / "report.json").read_bytes())  # pydantic's parser is strict
    assert read.implementations[0].tests[0].transcript == [{"reply": {"value": "\\ud800\x00"}}]
    assert read.implementations[0].tests[0].message == "got '\\ud800'"
    ctrf_validator().validate(json.loads((tmp_path / "ctrf.json").read_bytes()))
    assert ET.parse(tmp_path / "junit.xml").getroot().tag == "testsuites"
    assert not list(tmp_path.glob(".*.tmp"))
