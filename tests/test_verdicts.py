"""Verdicts that mean what they say: requirement verdicts follow their charges, and replays and lone runs agree."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance import load_registry
from ctxconform.conformance.judge._results import Charge, StartedLine, TestLine
from ctxconform.conformance.judge._verdicts import BAD, VERDICTS
from ctxconform.conformance.report._model import implementation_report
from helpers import Cli, load_report

REGISTRY = load_registry("shared-context")
IDS = [r.id for r in REGISTRY.requirements][:6]
# Mutants whose whole-suite run fails a handful of tests: every replay of their reports is run again.
REPLAYED = (("shared-context", "versions_do_not_increment"), ("read-context", "conflicts_per_pair_of_genres"))

charges = st.builds(Charge, requirement=st.sampled_from(IDS), verdict=st.sampled_from([v for v in VERDICTS if v != "UNTESTED"]))
tests = st.lists(st.tuples(st.lists(st.sampled_from(IDS), max_size=3), st.lists(charges, max_size=4)), max_size=6)


def result_line(index: int, declared: list[str], charged: list[Charge]) -> TestLine:
    """A result line of one test."""
    verdict = min((c.verdict for c in charged), key=VERDICTS.index, default="PASS")
    return TestLine(
        id=f"t::{index}", name=str(index), spec="shared-context", requirements=declared, charges=charged,
        verdict=verdict, duration_s=0, message="", transcript=[],
    )  # fmt: skip


@given(tests)
def test_no_requirement_is_pass_while_a_check_charged_to_it_failed(runs: list[tuple[list[str], list[Charge]]]) -> None:
    """Whatever the tests charged: a bad charge makes the requirement bad; PASS needs a held check; none is UNTESTED."""
    lines = [StartedLine(adapter="x", implementation={}), *(result_line(i, d, c) for i, (d, c) in enumerate(runs))]
    report = implementation_report("x", lines, [REGISTRY], replay="r", duration_s=0)
    charged: dict[str, set[str]] = {}
    for _, found in runs:
        for charge in found:
            charged.setdefault(charge.requirement, set()).add(charge.verdict)
    for requirement in report.requirements:
        verdicts = charged.get(requirement.id, set())
        if verdicts & BAD:
            assert requirement.verdict in BAD
        if requirement.verdict == "PASS":
            assert "PASS" in verdicts
        if not verdicts - {"SKIP"}:
            assert requirement.verdict in ("SKIP", "UNTESTED")


def verdicts_of(report: dict[str, Any]) -> dict[str, str]:
    """Test id -> verdict, of the first implementation."""
    return {t["id"]: t["verdict"] for t in report["implementations"][0]["tests"]}


def mutant_run(spec: str, mutant: str, tmp_path: Path) -> dict[str, Any]:
    """The report of a mutant's whole-suite run."""
    adapter = f"python:ctxconform.reference.mutants:{mutant}"
    done = Cli(tmp_path)("run", "--adapter", adapter, "--spec", spec, "--seed", "3", "--quiet", "--report-dir", "whole")
    assert done.returncode == 1, done.stdout + done.stderr
    return load_report(tmp_path / "whole")


@pytest.fixture(scope="module")
def replayed_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], dict[str, Any]]:
    """The whole-suite report of each replayed mutant, run once for the tests that replay them."""
    return {(spec, mutant): mutant_run(spec, mutant, tmp_path_factory.mktemp(mutant)) for spec, mutant in REPLAYED}


def test_every_replay_command_of_a_mutant_report_reproduces_its_verdict(
    replayed_reports: dict[tuple[str, str], dict[str, Any]], tmp_path: Path
) -> None:
    """Each failed test's replay command (the first four of each mutant), run as printed, gives the same verdict alone."""
    for (_spec, mutant), report in replayed_reports.items():
        failed = [t for t in report["implementations"][0]["tests"] if t["replay"]]
        assert 0 < len(failed) <= 12, f"{mutant}: pick a mutant that fails a handful of tests, not {len(failed)}"
        for test in failed[:4]:
            words = shlex.split(test["replay"])
            assert words[:2] == ["ctxconform", "run"]
            done = Cli(tmp_path)(*words[1:], "--quiet", "--report-dir", "replay")
            again = verdicts_of(load_report(tmp_path / "replay"))
            assert again == {test["id"]: test["verdict"]}, done.stdout


def test_a_sample_of_tests_gets_the_same_verdict_alone_as_in_the_whole_suite(
    replayed_reports: dict[tuple[str, str], dict[str, Any]], tmp_path: Path
) -> None:
    """Failing and passing tests of a mutant, each run alone by its node id, get the verdicts the whole run gave them."""
    for (spec, mutant), report in replayed_reports.items():
        whole = verdicts_of(report)
        failing = sorted(test for test, verdict in whole.items() if verdict in BAD)
        passing = sorted(test for test, verdict in whole.items() if verdict == "PASS")
        adapter = f"python:ctxconform.reference.mutants:{mutant}"
        for test in [*failing[:2], *passing[:: max(1, len(passing) // 3)][:3]]:
            run = ("run", "--adapter", adapter, "--spec", spec, "--seed", "3", "--quiet", "--report-dir", "alone")
            Cli(tmp_path)(*run, "--test", test)
            assert verdicts_of(load_report(tmp_path / "alone")) == {test: whole[test]}
