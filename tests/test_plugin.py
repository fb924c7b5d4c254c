"""The pytest plugin, driven through pytester: verdicts, requirement markers, levels, features and results lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

SUITE = '''
import pytest
from ctxconform.conformance.exceptions import ImplementationTimeout, RequirementFailure

requirement = pytest.mark.requirement

@requirement("shared-context/3.3/version-increments")
def test_pass(implementation):
    """Passes."""
    assert implementation.info.name == "ctxconform-reference"

@requirement("shared-context/3.3/version-increments", "shared-context/3.3/create-version-one")
def test_pinned_failure(implementation):
    """Fails, charged to one of its two requirements."""
    raise RequirementFailure("shared-context/3.3/create-version-one", "version 2 on create")

@requirement("shared-context/4.3/key-pattern")
def test_plain_failure(implementation):
    """Fails with a bare assert."""
    assert 1 == 2

@requirement("shared-context/4.3/key-pattern")
def test_timeout(implementation):
    """The transport timed out."""
    raise ImplementationTimeout("no answer within 1 s")

@requirement("shared-context/4.3/key-pattern")
def test_harness_bug(implementation):
    """Our own bug."""
    raise KeyError("oops")

@requirement("shared-context/7.5/ttl")
def test_undeclared_feature(implementation):
    """Belongs to a feature the reference does not declare."""
    raise AssertionError("must not run")

@requirement("shared-context/4.1/write-warning")
def test_may_level(implementation):
    """A MAY requirement, deselected at --ctxconform-level MUST."""
'''


def run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, dict[str, Any]]]:
    """Run the little suite and return pytest's result and the results lines by test name."""
    pytester.makepyfile(test_suite=SUITE)
    results = pytester.path / "results.jsonl"
    outcome = pytester.runpytest_subprocess(f"--ctxconform-results={results}", "-p", "no:cacheprovider", *args)
    lines = [json.loads(line) for line in Path(results).read_text().splitlines()] if results.exists() else []
    return outcome, {line["name"]: line for line in lines if line["event"] == "test"}


def test_each_outcome_gets_its_verdict(pytester: pytest.Pytester) -> None:
    """Pass, assertion failure, transport failure, harness exception and undeclared feature map to their verdicts."""
    _, tests = run(pytester)
    assert {name: t["verdict"] for name, t in tests.items()} == {
        "test_pass": "PASS",
        "test_pinned_failure": "FAIL",
        "test_plain_failure": "FAIL",
        "test_timeout": "TIMEOUT",
        "test_harness_bug": "HARNESS",
        "test_undeclared_feature": "SKIP",
        "test_may_level": "PASS",
    }


def test_a_pinned_failure_is_charged_to_its_requirement_only(pytester: pytest.Pytester) -> None:
    """RequirementFailure charges the one id it names; a bare assert charges every id the test names."""
    _, tests = run(pytester)
    assert tests["test_pinned_failure"]["failed_requirements"] == ["shared-context/3.3/create-version-one"]
    assert tests["test_plain_failure"]["failed_requirements"] == ["shared-context/4.3/key-pattern"]
    assert tests["test_pass"]["failed_requirements"] == []


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
    assert '"event": "unavailable"' in lines


def test_the_plugin_is_inert_for_tests_that_do_not_use_it(pytester: pytest.Pytester) -> None:
    """A project's ordinary tests run unchanged with the plugin installed, and nothing starts."""
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    outcome = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--ctxconform-adapter=stdio:/nonexistent/binary")
    outcome.assert_outcomes(passed=1)
