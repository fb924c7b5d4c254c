"""The pytest plugin, driven through pytester: verdicts, requirement markers, levels, features and results lines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

INC = "shared-context/3.3/version-increments"
ONE = "shared-context/3.3/create-version-one"
KEY = "shared-context/4.3/key-pattern"
TTL = "shared-context/7.5/ttl"

SUITE = '''
import pytest
from hypothesis import given, settings, strategies as st
from ctxconform.conformance.exceptions import ImplementationTimeout, RequirementFailure
from ctxconform.conformance.testing import Client, Operation, Operations, check, requirement

INC = "shared-context/3.3/version-increments"
ONE = "shared-context/3.3/create-version-one"
KEY = "shared-context/4.3/key-pattern"
TTL = "shared-context/7.5/ttl"
SHAPE = "shared-context/3.1/request-and-response-shape"
OPERATIONS = Operations(
    "shared-context",
    {"create_session": Operation("shared-context/8.4/create-empty-store"), "shared_context": Operation(SHAPE)},
    error_requirement="shared-context/5/error-code-and-message",
)

@requirement(INC)
def test_pass(implementation):
    """Passes, with a check that held."""
    check(INC, implementation.info.name == "ctxconform-reference", "named")

@requirement(INC, ONE)
def test_pinned_failure(implementation):
    """Holds one requirement, then fails the other."""
    check(INC, True, "held")
    check(ONE, False, "version 2 on create", sent={"key": "k"}, received={"version": 2}, expected={"version": 1})

@requirement(KEY)
def test_plain_failure(implementation):
    """Fails with a bare assert."""
    assert 1 == 2

@requirement(INC, KEY)
def test_timeout(implementation):
    """The transport timed out during a call that served KEY."""
    raise ImplementationTimeout("no answer within 1 s", charged=(KEY,))

@requirement(KEY)
def test_harness_bug(implementation):
    """Our own bug."""
    raise KeyError("oops")

@requirement(KEY)
def test_undeclared_check(implementation):
    """A check of a requirement the test does not declare: a bug of the suite."""
    check(INC, True, "not mine")

@requirement(TTL)
def test_undeclared_feature(implementation):
    """Belongs to a feature the reference does not declare."""
    raise AssertionError("must not run")

@requirement(INC, TTL)
def test_mixed_feature(implementation):
    """Holds INC, then reaches a check of an undeclared feature: skipped there."""
    check(INC, True, "held")
    check(TTL, True, "never reached")

@pytest.fixture
def refused_session(implementation):
    """A setup call the implementation answers wrongly."""
    Client(implementation, OPERATIONS).call("create_session", {"session_id": 5}).result

@requirement(INC)
def test_setup_failure(refused_session):
    """Never runs: its fixture's call failed."""

@requirement(KEY)
@settings(database=None, max_examples=50)
@given(st.integers(0, 20))
def test_two_distinct_failures(implementation, number):
    """Hypothesis finds two different failures."""
    if number == 3:
        raise RequirementFailure(KEY, "three")
    check(KEY, number < 5, "too big")

@requirement(KEY)
@pytest.mark.parametrize("value", [[1, 2], ["a string"], "\\r\\n", "problem_summary\\n"])
def test_odd_ids(implementation, value):
    """Node ids with brackets, quotes and line breaks."""
    check(KEY, True, "held")

@requirement("shared-context/4.1/write-warning")
def test_may_level(implementation):
    """A MAY requirement, deselected at --ctxconform-level MUST."""
    check("shared-context/4.1/write-warning", True, "held")
'''


def run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, dict[str, Any]]]:
    """Run the little suite and return pytest's result and the results lines by test name."""
    pytester.makepyfile(test_suite=SUITE)
    results = pytester.path / "results.jsonl"
    outcome = pytester.runpytest_subprocess(f"--ctxconform-results={results}", "-p", "no:cacheprovider", *args)
    lines = [json.loads(line) for line in Path(results).read_text().splitlines()] if results.exists() else []
    return outcome, {line["name"]: line for line in lines if line["event"] == "test"}


def charges(test: dict[str, Any]) -> dict[str, str]:
    """Requirement -> the verdict a test charged it."""
    return {c["requirement"]: c["verdict"] for c in test["charges"]}


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> dict[str, dict[str, Any]]:
    """The little suite's result lines, from one run shared by the tests that only read them."""
    del request
    folder = tmp_path_factory.mktemp("suite")
    (folder / "test_suite.py").write_text(SUITE, encoding="utf-8")
    results = folder / "results.jsonl"
    command = [sys.executable, "-m", "pytest", str(folder), f"--ctxconform-results={results}", "-p", "no:cacheprovider"]
    subprocess.run(command, cwd=folder, capture_output=True, check=False, timeout=600)
    lines = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    return {line["name"]: line for line in lines if line["event"] == "test"}


def test_each_outcome_gets_its_verdict(judged: dict[str, dict[str, Any]]) -> None:
    """Pass, failures, transport failure, kit bug, suite bug, features and setup calls map to their verdicts."""
    verdicts = {name: t["verdict"] for name, t in judged.items() if not name.startswith("test_odd_ids")}
    assert verdicts == {
        "test_pass": "PASS",
        "test_pinned_failure": "FAIL",
        "test_plain_failure": "FAIL",
        "test_timeout": "TIMEOUT",
        "test_harness_bug": "HARNESS",
        "test_undeclared_check": "HARNESS",
        "test_undeclared_feature": "SKIP",
        "test_mixed_feature": "SKIP",
        "test_setup_failure": "FAIL",
        "test_two_distinct_failures": "FAIL",
        "test_may_level": "PASS",
    }


def test_each_check_charges_exactly_the_requirement_it_names(judged: dict[str, dict[str, Any]]) -> None:
    """A failed check charges its one requirement, one that held PASS; a transport failure charges what the call served."""
    assert charges(judged["test_pinned_failure"]) == {INC: "PASS", ONE: "FAIL"}
    assert charges(judged["test_plain_failure"]) == {KEY: "FAIL"}
    assert charges(judged["test_timeout"]) == {KEY: "TIMEOUT"}
    assert charges(judged["test_pass"]) == {INC: "PASS"}


def test_a_setup_call_answered_wrongly_fails_its_operation_requirement_not_the_kit(judged: dict[str, dict[str, Any]]) -> None:
    """A fixture's refused call is FAIL, charged to the operation's requirement, never HARNESS."""
    assert charges(judged["test_setup_failure"]) == {"shared-context/8.4/create-empty-store": "FAIL"}
    assert "create_session was refused" in judged["test_setup_failure"]["message"]


def test_an_undeclared_feature_is_skip_and_never_pass(judged: dict[str, dict[str, Any]]) -> None:
    """A check of an undeclared feature skips the test there: its requirement SKIP, what held before PASS."""
    assert charges(judged["test_mixed_feature"]) == {INC: "PASS", TTL: "SKIP"}
    assert charges(judged["test_undeclared_feature"]) == {TTL: "SKIP"}


def test_a_failure_message_shows_what_was_sent_received_expected_the_quote_and_the_line(
    judged: dict[str, dict[str, Any]],
) -> None:
    """The message names the requirement, shows JSON, quotes the spec and points at the suite's own line."""
    message = judged["test_pinned_failure"]["message"]
    assert message.startswith(f"[{ONE}] version 2 on create")
    assert '  sent: {"key": "k"}' in message
    assert '  received: {"version": 2}' in message
    assert '  expected: {"version": 1}' in message
    assert "the spec says:" in message
    assert "_checks.py" not in message


def test_every_distinct_hypothesis_failure_is_listed_with_its_example(judged: dict[str, dict[str, Any]]) -> None:
    """Two distinct failures found by hypothesis are both in the message, each with its falsifying example."""
    message = judged["test_two_distinct_failures"]["message"]
    assert message.startswith("2 distinct failures:")
    assert "too big" in message
    assert "three" in message
    assert message.count("Failing test case") + message.count("Falsifying example") == 2
    assert "_checks.py" not in message


def test_exact_node_ids_select_tests_whatever_characters_they_hold(
    judged: dict[str, dict[str, Any]], pytester: pytest.Pytester
) -> None:
    """--ctxconform-test runs exactly the tests named, ids with brackets, quotes and line breaks included."""
    odd = sorted(t["id"].split("::", 1)[1] for name, t in judged.items() if name.startswith("test_odd_ids"))
    assert len(odd) == 4
    _, chosen = run(pytester, *(f"--ctxconform-test=test_suite.py::{node}" for node in odd[1:3]))
    assert sorted(t["id"].split("::", 1)[1] for t in chosen.values()) == odd[1:3]


def test_the_requirement_option_runs_exactly_the_tests_declaring_it(pytester: pytest.Pytester) -> None:
    """--ctxconform-requirement keeps the tests that declare one of the ids given."""
    _, tests = run(pytester, f"--ctxconform-requirement={ONE}")
    assert set(tests) == {"test_pinned_failure"}


def test_the_level_option_deselects_weaker_requirements(pytester: pytest.Pytester) -> None:
    """At level MUST a test of only MAY requirements does not run."""
    _, tests = run(pytester, "--ctxconform-level=MUST")
    assert "test_may_level" not in tests
    assert "test_pass" in tests


def test_an_unknown_requirement_id_is_a_usage_error(pytester: pytest.Pytester) -> None:
    """A test naming an id that no registry has stops the run with a message naming it."""
    pytester.makepyfile(
        test_bad='import pytest\n@pytest.mark.requirement("shared-context/1/nope")\ndef test_x(implementation):\n    """x."""\n'
    )
    outcome = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert outcome.ret == pytest.ExitCode.USAGE_ERROR
    outcome.stderr.fnmatch_lines(["*unknown requirement id 'shared-context/1/nope'*"])


def test_an_implementation_that_cannot_start_exits_3(pytester: pytest.Pytester) -> None:
    """A start failure ends the session with exit code 3 and an `unavailable` line."""
    outcome, _ = run(pytester, "--ctxconform-adapter=stdio:/nonexistent/binary")
    assert outcome.ret == 3
    lines = (pytester.path / "results.jsonl").read_text()
    assert '"event":"unavailable"' in lines


def test_the_plugin_is_inert_for_tests_that_do_not_use_it(pytester: pytest.Pytester) -> None:
    """A project's ordinary tests run unchanged with the plugin installed, and nothing starts."""
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    outcome = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--ctxconform-adapter=stdio:/nonexistent/binary")
    outcome.assert_outcomes(passed=1)
