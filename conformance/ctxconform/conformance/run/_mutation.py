"""Mutation testing of the suites: run each mutant of the reference against the tests of what it breaks.

A mutant is killed when a test naming one of the requirements it breaks gets a bad verdict. Worker processes
import pytest and the suites once and run pytest in-process for mutant after mutant, which makes a mutant cost
seconds rather than a whole interpreter start.
"""

from __future__ import annotations

import contextlib
import io
import json
import multiprocessing
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from ctxconform.conformance.judge._registry import LEVELS, Level, Registry
from ctxconform.conformance.judge._results import read_lines
from ctxconform.conformance.judge._specs import specs
from ctxconform.conformance.judge._verdicts import BAD, Verdict
from ctxconform.conformance.report._model import TestResult, requirement_verdict, tests_in
from ctxconform.conformance.run._request import SuiteRequest

__all__ = [
    "MUTATION_SCHEMA_ID",
    "ChargingFigures",
    "MutantOutcome",
    "MutationOptions",
    "MutationReport",
    "charging_figures",
    "mutation_report",
    "mutation_schema",
    "run_mutant",
    "run_mutants",
    "uncovered_requirements",
]

MUTATION_SCHEMA_ID: Final = "https://ctxconform.dev/schemas/report/mutants.schema.json"
_FROZEN = ConfigDict(frozen=True, extra="forbid")


class MutantOutcome(BaseModel):
    """What the suite did to one mutant."""

    model_config = _FROZEN
    name: str
    spec: str
    level: Literal["MUST", "SHOULD", "MAY"] = Field(description="the strongest level among the requirements it breaks")
    breaks: list[str] = Field(description="the requirement ids the mutant breaks")
    description: str
    edge: str | None = Field(
        default=None, description="the class of edge input whose defect it has (identifiers, wrong-types, ...), if any"
    )
    killed: bool
    killed_by: list[str] = Field(description="requirement ids charged by the tests that caught it")
    tests: int = Field(ge=0, description="how many tests ran against it")
    failed_tests: list[str] = Field(description="the tests that caught it")
    duration_s: float = Field(ge=0)
    message: str = Field(description="why the mutant survived or could not be checked; empty when killed")
    flagged: list[str] = Field(default=[], description="every requirement with a bad verdict (whole-suite runs)")
    collateral: list[str] = Field(default=[], description="flagged requirements the mutant does not break")
    harness: list[str] = Field(default=[], description="tests that ended HARNESS: bugs of the suite or kit, never the mutant's")


class ChargingFigures(BaseModel):
    """How precisely a spec's suite charges the failures mutants cause (whole-suite runs only)."""

    model_config = _FROZEN
    mutants: int = Field(ge=0)
    recall: float = Field(ge=0, le=1, description="share of mutants with at least one broken requirement flagged")
    precision: float = Field(ge=0, le=1, description="share of flagged requirements that the mutant breaks")
    mean_collateral: float = Field(ge=0, description="flagged requirements not broken, per mutant")
    max_collateral: int = Field(ge=0, description="the most collateral requirements of any one mutant")
    worst: str = Field(description="the mutant with the most collateral requirements")


class MutationReport(BaseModel):
    """The result of `ctxconform mutants`: each mutant's outcome, kill rates and uncovered MUST requirements."""

    model_config = ConfigDict(frozen=True, extra="forbid", json_schema_extra={"$id": MUTATION_SCHEMA_ID})
    report_version: Literal[1] = 1
    seed: int
    profile: str
    complete: bool = Field(description="whether every mutant of every spec ran (no --spec, --mutant or --sample)")
    duration_s: float = Field(ge=0)
    mutants: list[MutantOutcome]
    killed: int = Field(ge=0)
    kill_rate: float = Field(ge=0, le=1)
    per_spec: dict[str, dict[str, int]] = Field(description="spec -> {mutants, killed}")
    per_level: dict[str, dict[str, int]] = Field(description="level -> {mutants, killed}")
    per_edge: dict[str, dict[str, int]] = Field(
        default={}, description="class of edge input -> {mutants, killed}, for the mutants of an edge-input defect"
    )
    uncovered: list[str] = Field(description="testable MUST requirements no killed mutant breaks")
    whole: bool = Field(default=False, description="each mutant ran its spec's whole suite, so charging is measured")
    charging: dict[str, ChargingFigures] = Field(default={}, description="spec (and 'all') -> charging figures")


@dataclass(frozen=True)
class MutationOptions:
    """What every mutant's run shares."""

    seed: int
    profile: str
    timeout: float
    work_dir: Path
    whole: bool = False


def run_mutant(name: str, options: MutationOptions) -> MutantOutcome:
    """Run the tests of the requirements mutant `name` breaks against it (in this process) and say if it was killed."""
    from ctxconform.reference.mutants import mutant_named  # noqa: PLC0415 - the reference is imported by workers only

    mutant = mutant_named(name)
    results = options.work_dir / f"mutant-{name}.jsonl"
    started = time.monotonic()
    selection = () if options.whole else mutant.breaks
    arguments = _arguments(
        mutant.adapter, mutant.spec, selection, options, results=results, basetemp=options.work_dir / f"tmp-{name}"
    )
    output = _pytest_in_process(arguments)
    tests = tests_in(read_lines(results), replay="")
    caught = [t for t in tests if t.verdict in BAD]
    flagged = _flagged(tests)
    killed_by = sorted(set(flagged) & set(mutant.breaks))
    return MutantOutcome(
        name=name,
        spec=mutant.spec,
        level=_strongest(specs()[mutant.spec].registry, mutant.breaks),
        breaks=list(mutant.breaks),
        description=mutant.description,
        edge=mutant.edge,
        killed=bool(killed_by),
        killed_by=killed_by,
        tests=len(tests),
        failed_tests=[t.id for t in caught],
        duration_s=round(time.monotonic() - started, 3),
        message="" if killed_by else _survival(tests, flagged, output),
        flagged=flagged,
        collateral=sorted(set(flagged) - set(mutant.breaks)),
        harness=[t.id for t in tests if t.verdict == "HARNESS"],
    )


def _flagged(tests: list[TestResult]) -> list[str]:
    charged: dict[str, list[Verdict]] = {}
    for test in tests:
        for charge in test.charges:
            charged.setdefault(charge.requirement, []).append(charge.verdict)
    return sorted(rid for rid, verdicts in charged.items() if requirement_verdict(verdicts) in BAD)


def run_mutants(names: list[str], options: MutationOptions, jobs: int) -> Iterator[MutantOutcome]:
    """Run mutants in `jobs` worker processes; yield outcomes as they finish, in the order given."""
    if jobs <= 1:
        yield from (run_mutant(name, options) for name in names)
        return
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        yield from pool.map(run_mutant, names, [options] * len(names))


def uncovered_requirements(outcomes: Iterable[MutantOutcome], spec_ids: Iterable[str]) -> list[str]:
    """Return the testable MUST requirements of `specs` that no killed mutant breaks."""
    covered = {rid for outcome in outcomes if outcome.killed for rid in outcome.killed_by}
    return [
        r.id
        for spec in spec_ids
        for r in specs()[spec].registry.requirements
        if r.level == "MUST" and r.kind == "testable" and r.id not in covered
    ]


def mutation_report(
    outcomes: list[MutantOutcome],
    specs: list[str],
    *,
    seed: int,
    profile: str,
    complete: bool,
    duration_s: float,
    whole: bool = False,
) -> MutationReport:
    """Summarize outcomes: kill rate, counts per spec and level, and (for whole runs) uncovered MUST requirements."""
    killed = sum(o.killed for o in outcomes)
    return MutationReport(
        seed=seed,
        profile=profile,
        complete=complete,
        duration_s=round(duration_s, 3),
        mutants=outcomes,
        killed=killed,
        kill_rate=round(killed / len(outcomes), 4) if outcomes else 1.0,
        per_spec=_tally(outcomes, lambda o: o.spec),
        per_level=_tally(outcomes, lambda o: o.level),
        per_edge=_tally([o for o in outcomes if o.edge], lambda o: str(o.edge)),
        uncovered=uncovered_requirements(outcomes, specs) if complete else [],
        whole=whole,
        charging=charging_figures(outcomes) if whole else {},
    )


def charging_figures(outcomes: list[MutantOutcome]) -> dict[str, ChargingFigures]:
    """Recall, precision and collateral per spec and over all ('all'), from whole-suite mutant runs."""
    groups: dict[str, list[MutantOutcome]] = {"all": list(outcomes)}
    for outcome in outcomes:
        groups.setdefault(outcome.spec, []).append(outcome)
    return {name: _figures(group) for name, group in sorted(groups.items()) if group}


def _figures(outcomes: list[MutantOutcome]) -> ChargingFigures:
    flagged = sum(len(o.flagged) for o in outcomes)
    right = sum(len(set(o.flagged) & set(o.breaks)) for o in outcomes)
    worst = max(outcomes, key=lambda o: len(o.collateral))
    return ChargingFigures(
        mutants=len(outcomes),
        recall=round(sum(o.killed for o in outcomes) / len(outcomes), 4),
        precision=round(right / flagged, 4) if flagged else 1.0,
        mean_collateral=round(sum(len(o.collateral) for o in outcomes) / len(outcomes), 2),
        max_collateral=len(worst.collateral),
        worst=worst.name,
    )


def mutation_schema() -> dict[str, Any]:
    """Return the JSON Schema (2020-12) of mutants.json, as committed in schemas/report/."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **MutationReport.model_json_schema()}


def _tally(outcomes: list[MutantOutcome], key: Any) -> dict[str, dict[str, int]]:
    total = Counter(key(o) for o in outcomes)
    killed = Counter(key(o) for o in outcomes if o.killed)
    return {name: {"mutants": count, "killed": killed[name]} for name, count in sorted(total.items())}


def _strongest(registry: Registry, ids: tuple[str, ...]) -> Level:
    levels = [registry[rid].level for rid in ids if rid in registry.ids]
    return min(levels, key=LEVELS.index, default="MUST")


def _arguments(
    adapter: str,
    spec: str,
    breaks: tuple[str, ...] | tuple[()],
    options: MutationOptions,
    *,
    results: Path,
    basetemp: Path,
) -> list[str]:
    request = SuiteRequest.for_specs(
        [specs()[spec]],
        adapter=adapter,
        results=results,
        requirements=breaks,
        timeout=options.timeout,
        seed=options.seed,
        profile=options.profile,
        basetemp=basetemp,
    )
    return [*request.arguments(), "-q", "-p", "no:cacheprovider"]


def _pytest_in_process(arguments: list[str]) -> str:
    # Imported here: the rest of the CLI starts faster without pytest.
    import pytest  # noqa: PLC0415

    output = io.StringIO()
    with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
        pytest.main(arguments)
    return output.getvalue()


def _survival(tests: list[TestResult], flagged: list[str], output: str) -> str:
    if not tests:
        return f"no test of these requirements ran:\n{output[-1500:]}"
    if flagged:
        return f"tests failed, but charged other requirements: {', '.join(flagged)}"
    return f"all {len(tests)} tests of these requirements passed: the suite has a hole here"


if __name__ == "__main__":
    print(json.dumps(mutation_schema(), indent=2))
