"""CTRF JSON (the Common Test Report Format) from a report: every test of every implementation, verdicts kept."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final

from ctxconform.conformance.report._json import indented_json
from ctxconform.conformance.report._model import ImplementationReport, Report, TestResult

__all__ = ["CTRF_SPEC_VERSION", "ctrf_status", "render_ctrf"]

CTRF_SPEC_VERSION: Final = "1.0.0"
# CTRF has five statuses; the verdict itself travels as rawStatus and in labels.
_STATUS: Final[Mapping[str, str]] = {
    "PASS": "passed",
    "SKIP": "skipped",
    "XFAIL": "skipped",  # a known failure, excused by the baseline: reported like JUnit's skipped
    "UNTESTED": "other",
}
_SUMMARY_KEYS: Final = ("passed", "failed", "skipped", "pending", "other")


def ctrf_status(verdict: str) -> str:
    """Return the CTRF status a verdict maps to: every verdict that fails a run is `failed`."""
    return _STATUS.get(verdict, "failed")


def render_ctrf(report: Report) -> str:
    """Return the report as CTRF JSON text."""
    tests = [_test(imp, index, test) for index, imp in enumerate(report.implementations) for test in imp.tests]
    document = {
        "reportFormat": "CTRF",
        "specVersion": CTRF_SPEC_VERSION,
        "timestamp": report.finished_at,
        "generatedBy": f"{report.kit['name']} {report.kit['version']}",
        "results": {
            "tool": {"name": report.kit["name"], "version": report.kit["version"]},
            "summary": _summary(report, tests),
            "tests": tests,
            "environment": _environment(report),
            "extra": {"implementations": [_implementation(imp) for imp in report.implementations]},
        },
        "extra": {"seed": report.seed, "profile": report.profile, "level": report.level, "conformant": report.conformant},
    }
    return indented_json(document)


def _summary(report: Report, tests: list[dict[str, Any]]) -> dict[str, Any]:
    counts = Counter(test["status"] for test in tests)
    return {
        "tests": len(tests),
        **{key: counts.get(key, 0) for key in _SUMMARY_KEYS},
        "suites": len({(test["suite"][0], test["suite"][1]) for test in tests}),
        "start": _epoch_ms(report.started_at),
        "stop": _epoch_ms(report.finished_at),
        "duration": round(report.duration_s * 1000),
        "extra": {"verdicts": dict(sorted(Counter(test["rawStatus"] for test in tests).items()))},
    }


def _test(imp: ImplementationReport, index: int, test: TestResult) -> dict[str, Any]:
    levels = {r.id: r.level for r in imp.requirements}
    entry: dict[str, Any] = {
        "testId": f"{imp.adapter} {test.id}",
        "name": test.name,
        "status": ctrf_status(test.verdict),
        "rawStatus": test.verdict,
        "duration": round(test.duration_s * 1000),
        "suite": [_label(imp), test.spec or "?", test.id.split("::")[0]],
        "filePath": test.id.split("::")[0],
        "type": "conformance",
        "labels": _labels(test, levels),
        "extra": {
            "implementation": index,
            "requirements": [{"id": rid, "level": levels.get(rid)} for rid in test.requirements],
            "failed_requirements": test.failed_requirements,
            "replay": test.replay,
        },
    }
    if test.message:
        entry["message"] = test.message
    if test.transcript:
        entry["trace"] = json.dumps(test.transcript, indent=2, ensure_ascii=False)
    return entry


def _labels(test: TestResult, levels: Mapping[str, str]) -> dict[str, Any]:
    labels: dict[str, Any] = {"verdict": test.verdict, "spec": test.spec or "?"}
    if test.requirements:
        labels["requirement"] = test.requirements
        labels["level"] = sorted({levels[rid] for rid in test.requirements if rid in levels}) or ["?"]
    if test.failed_requirements:
        labels["failed_requirement"] = test.failed_requirements
    return labels


def _implementation(imp: ImplementationReport) -> dict[str, Any]:
    return {
        "adapter": imp.adapter,
        "name": imp.name,
        "version": imp.version,
        "language": imp.language,
        "status": imp.status,
        "message": imp.message,
        "specs": {spec.spec: spec.declared_version for spec in imp.specs},
    }


def _environment(report: Report) -> dict[str, Any]:
    if len(report.implementations) != 1:
        return {"reportName": "ctxconform comparison", "testEnvironment": "conformance"}
    imp = report.implementations[0]
    return {
        "reportName": "ctxconform",
        "appName": imp.name or imp.adapter,
        "appVersion": imp.version or "",
        "testEnvironment": "conformance",
        "healthy": imp.status in ("conformant", "known-failures"),
    }


def _label(imp: ImplementationReport) -> str:
    return f"{imp.name or '?'} ({imp.adapter})"


def _epoch_ms(timestamp: str) -> int:
    return round(datetime.fromisoformat(timestamp).timestamp() * 1000)
