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

import pytest
from pydantic import BaseModel, ConfigDict, Field

from ctxconform.conformance._registry import LEVELS, Level, Registry
from ctxconform.conformance._report import read_results
from ctxconform.conformance._specs import SPECS, suite_root
from ctxconform.conformance._verdicts import BAD

__all__ = [
    "MUTATION_SCHEMA_ID",
    "MutantOutcome",
    "MutationOptions",
    "MutationReport",
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
    killed: bool
    killed_by: list[str] = Field(description="requirement ids charged by the tests that caught it")
    tests: int = Field(ge=0, description="how many tests ran against it")
    failed_tests: list[str] = Field(description="the tests that caught it")
    duration_s: float = Field(ge=0)
    message: str = Field(description="why the mutant survived or could not be checked; empty when killed")


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
    uncovered: list[str] = Field(description="testable MUST requirements no killed mutant breaks")


@dataclass(frozen=True)
class MutationOptions:
    """What every mutant's run shares."""

    seed: int
    profile: str
    timeout: float
    work_dir: Path


def run_mutant(name: str, options: MutationOptions) -> MutantOutcome:
    """Run the tests of the requirements mutant `name` breaks against it (in this process) and say if it was killed."""
    from ctxconform.reference.mutants import mutant_named  # noqa: PLC0415 - the reference is imported by workers only

    mutant = mutant_named(name)
    results = options.work_dir / f"mutant-{name}.jsonl"
    started = time.monotonic()
    arguments = [*_arguments(mutant.adapter, mutant.spec, mutant.breaks, options), f"--ctxconform-results={results}"]
    output = _pytest_in_process(arguments)
    tests = [line for line in read_results(results) if line["event"] == "test"]
    caught = [t for t in tests if t["verdict"] in BAD]
    killed_by = sorted({rid for t in caught for rid in t["failed_requirements"]} & set(mutant.breaks))
    return MutantOutcome(
        name=name,
        spec=mutant.spec,
        level=_strongest(SPECS[mutant.spec].registry, mutant.breaks),
        breaks=list(mutant.breaks),
        description=mutant.description,
        killed=bool(killed_by),
        killed_by=killed_by,
        tests=len(tests),
        failed_tests=[t["id"] for t in caught],
        duration_s=round(time.monotonic() - started, 3),
        message="" if killed_by else _survival(tests, caught, output),
    )


def run_mutants(names: list[str], options: MutationOptions, jobs: int) -> Iterator[MutantOutcome]:
    """Run mutants in `jobs` worker processes; yield outcomes as they finish, in the order given."""
    if jobs <= 1:
        yield from (run_mutant(name, options) for name in names)
        return
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        yield from pool.map(run_mutant, names, [options] * len(names))


def uncovered_requirements(outcomes: Iterable[MutantOutcome], specs: Iterable[str]) -> list[str]:
    """Return the testable MUST requirements of `specs` that no killed mutant breaks."""
    covered = {rid for outcome in outcomes if outcome.killed for rid in outcome.killed_by}
    return [
        r.id
        for spec in specs
        for r in SPECS[spec].registry.requirements
        if r.level == "MUST" and r.kind == "testable" and r.id not in covered
    ]


def mutation_report(
    outcomes: list[MutantOutcome], specs: list[str], *, seed: int, profile: str, complete: bool, duration_s: float
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
        uncovered=uncovered_requirements(outcomes, specs) if complete else [],
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


def _arguments(adapter: str, spec: str, breaks: tuple[str, ...], options: MutationOptions) -> list[str]:
    root = suite_root()
    return [
        str(SPECS[spec].directory),
        "-c",
        str(root / "pytest.ini"),
        "--rootdir",
        str(root),
        "-q",
        "-p",
        "no:cacheprovider",
        f"--ctxconform-adapter={adapter}",
        *(f"--ctxconform-requirement={rid}" for rid in breaks),
        f"--ctxconform-timeout={options.timeout}",
        f"--hypothesis-seed={options.seed}",
        f"--hypothesis-profile={options.profile}",
    ]


def _pytest_in_process(arguments: list[str]) -> str:
    output = io.StringIO()
    with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
        pytest.main(arguments)
    return output.getvalue()


def _survival(tests: list[dict[str, Any]], caught: list[dict[str, Any]], output: str) -> str:
    if not tests:
        return f"no test of these requirements ran:\n{output[-1500:]}"
    if caught:
        charged = sorted({rid for t in caught for rid in t["failed_requirements"]})
        return f"tests failed, but charged other requirements: {', '.join(charged)}"
    return f"all {len(tests)} tests of these requirements passed: the suite has a hole here"


if __name__ == "__main__":
    print(json.dumps(mutation_schema(), indent=2))
