"""The canonical report of a run (`report.json`): its model, and building it from the suite's result lines."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from ctxconform.conformance._baseline import Baseline, apply_baseline, stale_entries
from ctxconform.conformance._registry import Registry
from ctxconform.conformance._verdicts import BAD, Verdict, worst

__all__ = [
    "REPORT_SCHEMA_ID",
    "ImplementationReport",
    "Report",
    "RequirementResult",
    "RunEvent",
    "SpecSummary",
    "TestResult",
    "implementation_report",
    "read_results",
    "report_schema",
    "tests_in",
]

REPORT_SCHEMA_ID: Final = "https://ctxconform.dev/schemas/report/report.schema.json"
_FROZEN = ConfigDict(frozen=True, extra="forbid")
_FAILED: Final = BAD | {"XFAIL"}


class TestResult(BaseModel):
    """How one test ended."""

    __test__ = False  # a model, not a test for pytest to collect
    model_config = _FROZEN
    id: str = Field(description="pytest node id of the test")
    name: str
    spec: str | None
    requirements: list[str] = Field(description="requirement ids the test names")
    failed_requirements: list[str] = Field(description="requirement ids the failure is charged to")
    verdict: Verdict
    duration_s: float = Field(ge=0)
    message: str = Field(description="the failure or skip reason, empty on PASS")
    transcript: list[dict[str, Any]] = Field(description="the last calls and replies of a failed test")
    replay: str = Field(description="a command that runs this test again with the same seed")


class RequirementResult(BaseModel):
    """One requirement's verdict: the worst verdict charged to it by the tests that name it."""

    model_config = _FROZEN
    id: str
    spec: str
    level: Literal["MUST", "SHOULD", "MAY"]
    kind: Literal["testable", "untestable", "ambiguous"]
    section: str
    quote: str
    feature: str | None
    verdict: Verdict
    tests: list[str]


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


EventKind = Literal["restarted", "restart-failed", "restarts-exhausted", "setup-replayed", "stop-forced"]
EVENT_KINDS: Final[frozenset[str]] = frozenset(EventKind.__args__)  # type: ignore[attr-defined]


class RunEvent(BaseModel):
    """Something that happened to the implementation itself during the run."""

    model_config = _FROZEN
    kind: EventKind
    at_s: float = Field(ge=0, description="seconds after the suite started")
    test: str = Field(description="the test being set up when it happened; empty at the end of the run")
    message: str


class ImplementationReport(BaseModel):
    """Everything one implementation got in a run."""

    model_config = _FROZEN
    adapter: str
    name: str | None
    version: str | None
    language: str | None
    status: Literal["conformant", "known-failures", "not-conformant", "unavailable", "error"] = Field(
        description="known-failures: every failure is in the baseline"
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
    conformant: bool
    implementations: list[ImplementationReport]


def report_schema() -> dict[str, Any]:
    """Return the JSON Schema (2020-12) of report.json, as committed in schemas/report/."""
    schema = Report.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def read_results(path: Path) -> list[dict[str, Any]]:
    """Read the result lines the plugin wrote (none when the file does not exist; a torn last line is dropped)."""
    if not path.is_file():
        return []
    records = []
    # split("\n"), not splitlines(): values may hold U+2028 and other characters splitlines() breaks on.
    for line in path.read_text(encoding="utf-8").split("\n"):
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    return records


def tests_in(lines: list[dict[str, Any]], replay: str) -> list[TestResult]:
    """The test results among the plugin's result lines."""
    return [_test(line, replay) for line in lines if line["event"] == "test"]


def implementation_report(
    adapter: str,
    lines: list[dict[str, Any]],
    registries: list[Registry],
    *,
    replay: str,
    duration_s: float,
    baseline: Baseline | None = None,
) -> ImplementationReport:
    """Build one implementation's report from the plugin's result lines, with a baseline's known failures as XFAIL."""
    started = next((line for line in lines if line["event"] == "started"), None)
    info = started["implementation"] if started else {}
    tests = tests_in(lines, replay)
    stale = stale_entries(tests, baseline) if baseline else []
    tests = apply_baseline(tests, baseline) if baseline else tests
    stale_requirements = {e.requirement for e in stale}
    requirements = [
        _requirement(r, registry.spec, tests, stale=r.id in stale_requirements)
        for registry in registries
        for r in registry.requirements
    ]
    failure = next((line for line in lines if line["event"] in ("unavailable", "configuration")), None)
    bad = bool(stale) or any(test.verdict in BAD for test in tests)
    return ImplementationReport(
        adapter=adapter,
        name=info.get("name"),
        version=info.get("version"),
        language=info.get("language"),
        status=_status(failure, bad, tests),
        message=failure["message"] if failure else "",
        stale_baseline=[e.describe() for e in stale],
        events=[_event(line) for line in lines if line["event"] in EVENT_KINDS],
        duration_s=round(duration_s, 3),
        specs=[_spec(registry, info, requirements) for registry in registries],
        counts=dict(Counter(test.verdict for test in tests)),
        tests=tests,
        requirements=requirements,
    )


def _event(line: dict[str, Any]) -> RunEvent:
    return RunEvent(kind=line["event"], at_s=line["at_s"], test=line["test"], message=line["message"])


def _status(
    failure: dict[str, Any] | None, bad: bool, tests: list[TestResult]
) -> Literal["conformant", "known-failures", "not-conformant", "unavailable", "error"]:
    if failure is not None:
        return "unavailable" if failure["event"] == "unavailable" else "error"
    if not tests:
        return "error"
    if bad:
        return "not-conformant"
    return "known-failures" if any(t.verdict == "XFAIL" for t in tests) else "conformant"


def _test(line: dict[str, Any], replay: str) -> TestResult:
    fields = {k: line[k] for k in TestResult.model_fields if k in line and k != "replay"}
    return TestResult(**fields, replay=f"{replay} --test {line['name']!r}" if line["verdict"] in BAD else "")


def _requirement(requirement: Any, spec: str, tests: list[TestResult], *, stale: bool = False) -> RequirementResult:
    naming = [t for t in tests if requirement.id in t.requirements]
    charged = [t.verdict if (t.verdict not in _FAILED or requirement.id in t.failed_requirements) else "PASS" for t in naming]
    return RequirementResult(
        id=requirement.id,
        spec=spec,
        level=requirement.level,
        kind=requirement.kind,
        section=requirement.section,
        quote=requirement.quote,
        feature=requirement.feature,
        verdict="XPASS" if stale else _requirement_verdict(charged),
        tests=[t.id for t in naming],
    )


def _requirement_verdict(charged: list[Verdict]) -> Verdict:
    if not charged:
        return "UNTESTED"
    ran = [v for v in charged if v != "SKIP"]
    return worst(ran) if ran else "SKIP"


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
