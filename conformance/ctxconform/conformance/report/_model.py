"""The canonical report of a run (`report.json`): its model, and building it from the suite's result lines."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from ctxconform.conformance.judge._registry import Registry, Requirement
from ctxconform.conformance.judge._results import Charge, EventKind, EventLine, ResultLine
from ctxconform.conformance.judge._verdicts import BAD, Verdict, worst
from ctxconform.conformance.report._baseline import Baseline, apply_baseline, stale_entries
from ctxconform.conformance.report._tests import TestResult, tests_in
from ctxconform.conformance.report._text import NAME_CHARS, bounded

__all__ = [
    "REPORT_SCHEMA_ID",
    "ImplementationReport",
    "Report",
    "RequirementResult",
    "RunEvent",
    "SpecSummary",
    "TestResult",
    "implementation_report",
    "report_schema",
    "requirement_verdict",
    "tests_in",
]

REPORT_SCHEMA_ID: Final = "https://ctxconform.dev/schemas/report/report.schema.json"
_FROZEN = ConfigDict(frozen=True, extra="forbid")
_FAILED: Final = BAD | {"XFAIL"}


class RequirementResult(BaseModel):
    """One requirement's verdict: the worst verdict charged to it by any test; UNTESTED when no check of it ran."""

    model_config = _FROZEN
    id: str
    spec: str
    level: Literal["MUST", "SHOULD", "MAY"]
    kind: Literal["testable", "untestable", "ambiguous"]
    section: str
    quote: str
    feature: str | None
    readings: list[str] = Field(default=[], description="for an ambiguous requirement: the readings the suite accepts")
    verdict: Verdict
    tests: list[str] = Field(description="the tests that declare the requirement or charged it")
    evidence: int = Field(default=0, ge=0, description="how many checks of the requirement held in the run")


class SpecSummary(BaseModel):
    """One spec as run: the kit's version of it, what the implementation declared, and verdict counts."""

    model_config = _FROZEN
    spec: str
    version: str
    declared_version: str | None = Field(
        description="the version the implementation declares; null when it does not implement the spec"
    )
    features: list[str]
    requirements: int
    counts: dict[str, int] = Field(description="requirement verdict -> how many requirements")


class RunEvent(BaseModel):
    """Something that happened to the implementation itself during the run."""

    model_config = _FROZEN
    kind: EventKind
    at_s: float = Field(ge=0, description="seconds after the suite started")
    test: str = Field(description="the test being set up when it happened; empty at the end of the run")
    message: str


Status = Literal["conformant", "known-failures", "partial", "not-conformant", "unavailable", "error"]


class ImplementationReport(BaseModel):
    """Everything one implementation got in a run."""

    model_config = _FROZEN
    adapter: str
    name: str | None
    version: str | None
    language: str | None
    status: Status = Field(
        description="known-failures: every failure is in the baseline; partial: a filtered run that failed nothing"
    )
    message: str
    stale_baseline: list[str] = Field(default=[], description="baseline entries that no longer fail (XPASS)")
    events: list[RunEvent]
    duration_s: float = Field(ge=0)
    specs: list[SpecSummary]
    counts: dict[str, int] = Field(description="test verdict -> how many tests")
    tests: list[TestResult]
    requirements: list[RequirementResult]


class Report(BaseModel):
    """The canonical result of one `ctxconform run`."""

    model_config = ConfigDict(frozen=True, extra="forbid", json_schema_extra={"$id": REPORT_SCHEMA_ID})
    report_version: Literal[1] = 1
    kit: dict[str, str]
    started_at: str
    finished_at: str
    duration_s: float = Field(ge=0)
    seed: int
    profile: str
    level: Literal["MUST", "SHOULD", "MAY"]
    argv: list[str]
    partial: bool = Field(default=False, description="the run was filtered (--test, --keyword, --requirement, --level)")
    conformant: bool
    implementations: list[ImplementationReport]


def report_schema() -> dict[str, Any]:
    """Return the JSON Schema (2020-12) of report.json, as committed in schemas/report/."""
    schema = Report.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def implementation_report(
    adapter: str,
    lines: Sequence[ResultLine],
    registries: list[Registry],
    *,
    replay: str,
    duration_s: float,
    baseline: Baseline | None = None,
    partial: bool = False,
) -> ImplementationReport:
    """Build one implementation's report from the plugin's result lines, with a baseline's known failures as XFAIL."""
    started = next((line for line in lines if line.event == "started"), None)
    info: dict[str, Any] = started.implementation if started is not None else {}
    tests = tests_in(lines, replay)
    stale = stale_entries(tests, baseline) if baseline else []
    tests = apply_baseline(tests, baseline) if baseline else tests
    stale_requirements = {e.requirement for e in stale}
    charges = _charges_by_requirement(tests)
    requirements = [
        _requirement(r, registry.spec, charges.get(r.id, []), stale=r.id in stale_requirements)
        for registry in registries
        for r in registry.requirements
    ]
    failure = next((line for line in lines if line.event in ("unavailable", "configuration")), None)
    bad = bool(stale) or any(test.verdict in BAD for test in tests)
    return ImplementationReport(
        adapter=adapter,
        name=_identity(info.get("name")),
        version=_identity(info.get("version")),
        language=_identity(info.get("language")),
        status=_status(failure.event if failure else None, bad, tests, partial=partial),
        message=failure.message if failure else "",
        stale_baseline=[e.describe() for e in stale],
        events=[_event(line) for line in lines if isinstance(line, EventLine)],
        duration_s=round(duration_s, 3),
        specs=[_spec(registry, info, requirements) for registry in registries],
        counts=dict(Counter(test.verdict for test in tests)),
        tests=tests,
        requirements=requirements,
    )


def _identity(value: object) -> str | None:
    """A name, version or language as the implementation sent it, bounded; None when it sent no string."""
    return bounded(value, NAME_CHARS) if isinstance(value, str) else None


def _event(line: EventLine) -> RunEvent:
    return RunEvent(kind=line.event, at_s=line.at_s, test=line.test, message=line.message)


def _status(failure: str | None, bad: bool, tests: list[TestResult], *, partial: bool) -> Status:
    if failure is not None:
        return "unavailable" if failure == "unavailable" else "error"
    if not tests:
        return "error"
    if bad:
        return "not-conformant"
    if partial:
        return "partial"
    return "known-failures" if any(t.verdict == "XFAIL" for t in tests) else "conformant"


def _charges_by_requirement(tests: list[TestResult]) -> dict[str, list[tuple[str, Charge]]]:
    found: dict[str, list[tuple[str, Charge]]] = {}
    for test in tests:
        charged = {c.requirement for c in test.charges}
        for charge in test.charges:
            found.setdefault(charge.requirement, []).append((test.id, charge))
        for rid in test.requirements:
            if rid not in charged:  # declared, never checked: the test is named, but nothing is evidenced
                found.setdefault(rid, []).append((test.id, Charge(requirement=rid, verdict="UNTESTED")))
    return found


def _requirement(
    requirement: Requirement, spec: str, charged: list[tuple[str, Charge]], *, stale: bool = False
) -> RequirementResult:
    verdicts = [charge.verdict for _, charge in charged]
    return RequirementResult(
        id=requirement.id,
        spec=spec,
        level=requirement.level,
        kind=requirement.kind,
        section=requirement.section,
        quote=requirement.quote,
        feature=requirement.feature,
        readings=list(requirement.readings),
        verdict="XPASS" if stale else requirement_verdict(verdicts),
        tests=list(dict.fromkeys(test for test, _ in charged)),
        evidence=sum(charge.checks for _, charge in charged),
    )


def requirement_verdict(charged: list[Verdict]) -> Verdict:
    """The worst verdict charged; SKIP only when nothing but skips was, UNTESTED when no check of it ran."""
    ran = [v for v in charged if v not in ("SKIP", "UNTESTED")]
    if ran:
        return worst(ran)
    return "SKIP" if "SKIP" in charged else "UNTESTED"


def _spec(registry: Registry, info: dict[str, Any], requirements: list[RequirementResult]) -> SpecSummary:
    declared = info.get("specs", {}).get(registry.spec)
    mine = [r for r in requirements if r.spec == registry.spec]
    return SpecSummary(
        spec=registry.spec,
        version=registry.version,
        declared_version=declared["version"] if declared else None,
        features=declared["features"] if declared else [],
        requirements=len(mine),
        counts=dict(Counter(r.verdict for r in mine)),
    )


if __name__ == "__main__":
    print(json.dumps(report_schema(), indent=2))
