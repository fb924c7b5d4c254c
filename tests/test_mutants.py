"""Mutants: the catalogue covers every testable MUST, and `ctxconform mutants` says which mutants the suites catch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxconform.conformance.judge import specs
from ctxconform.conformance.judge._schemas import schema_errors
from ctxconform.conformance.run._mutation import MutationOptions, run_mutant, uncovered_requirements
from ctxconform.reference import Reference, mutants
from ctxconform.reference.mutants import MUTANTS, Mutant, mutant_named
from helpers import Cli

TESTABLE_MUSTS = {r.id for s in specs().values() for r in s.registry.requirements if r.level == "MUST" and r.kind == "testable"}


def test_every_testable_must_requirement_has_a_mutant() -> None:
    """Each testable MUST of the five specs is among the requirements some mutant breaks."""
    assert TESTABLE_MUSTS - {rid for m in MUTANTS for rid in m.breaks} == set()


def test_every_mutant_names_known_requirements_of_its_spec_and_says_what_it_breaks() -> None:
    """Breaks are registry ids of the mutant's spec; names are unique; descriptions are sentences of their own."""
    known = {r.id for s in specs().values() for r in s.registry.requirements}
    for m in MUTANTS:
        assert set(m.breaks) <= known, m.name
        assert all(rid.startswith(f"{m.spec}/") for rid in m.breaks), m.name
        assert m.description, m.name
        assert not m.description.startswith("The reference"), m.name
    assert len({m.name for m in MUTANTS}) == len(MUTANTS)


def test_each_mutant_is_reachable_as_an_adapter_factory_and_says_its_name() -> None:
    """`python:ctxconform.reference.mutants:NAME` finds each factory; it builds a Reference named `mutant:NAME`."""
    for m in MUTANTS:
        assert getattr(mutants, m.name) is m.factory
        built = m.factory()
        assert isinstance(built, Reference)
        assert built.name == f"mutant:{m.name}"
    with pytest.raises(AttributeError, match="no mutant"):
        _ = mutants.not_a_mutant


def test_a_mutant_that_changes_nothing_survives_with_a_clear_message(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A 'mutant' that is the reference itself is not killed, and the outcome says the suite has a hole."""
    harmless = Mutant("changes_nothing", "read-context", ("read-context/summarization/threshold",), "nothing", Reference)
    known = {**mutants._by_name(), harmless.name: harmless}
    monkeypatch.setattr(mutants, "_by_name", lambda: known)
    outcome = run_mutant(harmless.name, MutationOptions(seed=1, profile="ci", timeout=10, work_dir=tmp_path))
    assert not outcome.killed
    assert outcome.tests > 0
    assert "the suite has a hole" in outcome.message


def test_uncovered_requirements_are_the_testable_musts_no_killed_mutant_breaks() -> None:
    """With no outcome every testable MUST is uncovered."""
    assert set(uncovered_requirements([], list(specs()))) == TESTABLE_MUSTS


def test_a_sample_of_mutants_is_killed_and_reported(cli: Cli, tmp_path: Path) -> None:
    """One mutant per spec, drawn with a random seed, is killed; mutants.json validates and counts them."""
    # One per spec and one job: the tests already run in parallel workers, and `nox -s mutants` runs them all.
    done = cli("mutants", "--sample", "1", "--jobs", "1", "--report-dir", str(tmp_path), timeout=900)
    report = json.loads((tmp_path / "mutants.json").read_text(encoding="utf-8"))
    assert done.returncode == 0, f"seed {report['seed']}: replay with --seed\n{done.stdout}{done.stderr}"
    assert schema_errors("report/mutants.schema.json", report) == []
    assert report["complete"] is False
    assert report["kill_rate"] == 1.0
    assert {spec: t["mutants"] for spec, t in report["per_spec"].items()} == dict.fromkeys(specs(), 1)
    assert all(o["killed_by"] and set(o["killed_by"]) <= set(o["breaks"]) for o in report["mutants"])
    assert all(mutant_named(o["name"]).spec == o["spec"] for o in report["mutants"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mutant", "no_such_mutant"], "unknown mutant(s) no_such_mutant"),
        (["--sample", "0"], "--sample must be at least 1"),
        (["--jobs", "0"], "--jobs must be a whole number from 1 to 256"),
        (["--spec", "nope"], "nope"),
    ],
)
def test_bad_mutants_options_exit_2_with_a_clear_message(args: list[str], message: str, cli: Cli) -> None:
    """Unknown names and impossible numbers are usage errors."""
    done = cli("mutants", *args)
    assert done.returncode == 2
    assert message in done.stderr
