"""The ambiguity register: every ambiguous requirement with its readings, from the command line and in the report."""

from __future__ import annotations

import json

from ctxconform.conformance import load_registry, specs
from ctxconform.conformance.judge._document import squeeze
from helpers import STARTED, Cli, build, line

SPEC = "shared-context"


def ambiguous(spec: str) -> list[str]:
    """The ids of a spec's ambiguous requirements, in registry order."""
    return [r.id for r in load_registry(spec).requirements if r.kind == "ambiguous"]


def test_the_register_lists_every_ambiguous_requirement_with_its_readings_and_counts(cli: Cli) -> None:
    """`requirements --ambiguous --json` has every ambiguous requirement of every spec, its quote and readings, and counts."""
    done = cli("requirements", "--ambiguous", "--json")
    assert done.returncode == 0, done.stderr
    register = json.loads(done.stdout)
    assert [entry["spec"] for entry in register["specs"]] == list(specs())
    for entry in register["specs"]:
        registry = load_registry(entry["spec"])
        assert [r["id"] for r in entry["requirements"]] == ambiguous(entry["spec"])
        assert entry["count"] == len(entry["requirements"])
        for listed in entry["requirements"]:
            requirement = registry[listed["id"]]
            assert (listed["quote"], listed["readings"]) == (requirement.quote, list(requirement.readings))
            assert len(listed["readings"]) >= 2
    assert register["count"] == sum(len(ambiguous(spec)) for spec in specs())


def test_the_register_as_text_numbers_the_readings_and_counts_per_spec(cli: Cli) -> None:
    """The text listing gives each spec's count, each requirement's quote, its readings numbered, and a total by spec."""
    done = cli("requirements", "--ambiguous", "--spec", SPEC)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    found = ambiguous(SPEC)
    assert lines[0] == f"{SPEC}: {len(found)} ambiguous"
    assert lines[-1] == f"ambiguity register: {len(found)} ambiguous requirements ({SPEC} {len(found)})"
    registry = load_registry(SPEC)
    for rid in found:
        requirement = registry[rid]
        start = lines.index(f"  {rid} ({requirement.level}, \u00a7 {requirement.section})")
        assert lines[start + 1] == f"    quote: {squeeze(requirement.quote)}"
        readings = [f"    {n}. {squeeze(reading)}" for n, reading in enumerate(requirement.readings, start=1)]
        assert lines[start + 2 : start + 2 + len(readings)] == readings


def test_each_requirement_result_of_a_report_carries_its_kind_and_readings() -> None:
    """report.json's requirement rows say each requirement's kind, and an ambiguous one's readings."""
    report = build([STARTED, line("a", "PASS", [])])
    registry = load_registry(SPEC)
    for result in report.implementations[0].requirements:
        assert (result.kind, result.readings) == (registry[result.id].kind, list(registry[result.id].readings))
    assert any(result.readings for result in report.implementations[0].requirements) == bool(ambiguous(SPEC))
