"""Building the report from result lines, and rendering it as JUnit XML and Markdown."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from ctxconform.conformance import Report, load_registry
from ctxconform.conformance._junit import render_junit
from ctxconform.conformance._markdown import render_markdown
from ctxconform.conformance._report import implementation_report, read_results

INC = "shared-context/3.3/version-increments"
ONE = "shared-context/3.3/create-version-one"
KEY = "shared-context/4.3/key-pattern"


def line(name: str, verdict: str, requirements: list[str], failed: list[str] | None = None) -> dict[str, Any]:
    """A result line as the plugin writes it."""
    return {
        "event": "test",
        "id": f"shared_context/test_x.py::{name}",
        "name": name,
        "spec": "shared-context",
        "requirements": requirements,
        "failed_requirements": failed if failed is not None else ([] if verdict in ("PASS", "SKIP") else requirements),
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


def build(lines: list[dict[str, Any]]) -> Report:
    """A one-implementation report from result lines."""
    implementation = implementation_report(
        "reference", lines, [load_registry("shared-context")], replay="ctxconform run", duration_s=1.0
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


def verdicts(report: Report) -> dict[str, str]:
    """Requirement id -> verdict."""
    return {r.id: r.verdict for r in report.implementations[0].requirements}


def test_result_lines_survive_unicode_line_separators_and_a_torn_last_line(tmp_path: Path) -> None:
    """A value holding U+2028 stays in its line, and a half-written last line is dropped, not fatal."""
    path = tmp_path / "results.jsonl"
    record = {"event": "test", "message": "a\u2028b\x85c"}
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n" + '{"event": "te', encoding="utf-8")
    assert read_results(path) == [record]


def test_a_requirement_takes_the_worst_verdict_charged_to_it() -> None:
    """PASS and FAIL tests of one requirement make it FAIL; one only passed stays PASS; one never named is UNTESTED."""
    report = build([STARTED, line("a", "PASS", [INC]), line("b", "FAIL", [INC]), line("c", "PASS", [KEY])])
    found = verdicts(report)
    assert (found[INC], found[KEY], found[ONE]) == ("FAIL", "PASS", "UNTESTED")
    assert report.implementations[0].status == "not-conformant"


def test_a_pinned_failure_leaves_the_other_named_requirements_passing() -> None:
    """A failure pinned to one id does not charge the test's other ids."""
    found = verdicts(build([STARTED, line("a", "FAIL", [INC, ONE], failed=[ONE])]))
    assert (found[ONE], found[INC]) == ("FAIL", "PASS")


def test_transport_verdicts_outrank_failures_and_skips_do_not_count() -> None:
    """CRASH beats FAIL; a requirement whose tests were all skipped is SKIP, not PASS."""
    found = verdicts(build([STARTED, line("a", "FAIL", [INC]), line("b", "CRASH", [INC]), line("c", "SKIP", [KEY])]))
    assert (found[INC], found[KEY]) == ("CRASH", "SKIP")


def test_failed_tests_get_a_replay_command() -> None:
    """Only failed tests carry a replay command, naming the test."""
    tests = build([STARTED, line("a", "PASS", [INC]), line("b", "FAIL", [INC])]).implementations[0].tests
    assert [t.replay for t in tests] == ["", "ctxconform run --test 'b'"]


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
