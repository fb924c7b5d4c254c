"""Baselines: the known failures of one implementation, which turn into XFAIL, and go stale (XPASS) once fixed."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ctxconform.conformance.exceptions import ConfigurationError
from ctxconform.conformance.report._tests import TestResult

__all__ = [
    "BASELINE_SCHEMA_ID",
    "Baseline",
    "KnownFailure",
    "apply_baseline",
    "baseline_from",
    "baseline_schema",
    "load_baseline",
    "stale_entries",
]

BASELINE_SCHEMA_ID: Final = "https://ctxconform.dev/schemas/report/baseline.schema.json"
Failing = Literal["FAIL", "ERRORED", "TIMEOUT", "CRASH", "PROTOCOL"]
FAILING: Final[frozenset[str]] = frozenset(Failing.__args__)  # type: ignore[attr-defined]


class KnownFailure(BaseModel):
    """One known failure: a test, or every test failing a requirement; optionally only with a given message."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    test: str | None = Field(default=None, description="pytest node id of the failing test")
    requirement: str | None = Field(default=None, description="requirement id the failures are charged to")
    verdict: Failing | None = Field(default=None, description="the verdict expected; any bad verdict when absent")
    message: str | None = Field(default=None, description="text the failure message must contain")
    reason: str = Field(default="", description="why it is known to fail, for people")

    @model_validator(mode="after")
    def _one_target(self) -> KnownFailure:
        if (self.test is None) == (self.requirement is None):
            raise ValueError("name exactly one of test and requirement")
        return self

    def covers(self, test: TestResult) -> bool:
        """Whether this entry explains the failure of `test`."""
        if test.verdict not in FAILING:
            return False
        if self.test is not None and self.test != test.id:
            return False
        if self.requirement is not None and self.requirement not in test.failed_requirements:
            return False
        if self.verdict is not None and self.verdict != test.verdict:
            return False
        return self.message is None or self.message in test.message

    def names(self, test: TestResult) -> bool:
        """Whether `test` is one this entry is about, whatever its verdict."""
        return test.id == self.test if self.test is not None else self.requirement in test.requirements

    def spec(self, packages: dict[str, str]) -> str:
        """The spec the entry belongs to, given {suite package: spec}."""
        if self.requirement is not None:
            return self.requirement.split("/", 1)[0]
        return packages.get(str(self.test).split("/", 1)[0], "")

    def describe(self) -> str:
        """The entry in a few words, for messages."""
        return f"test {self.test}" if self.test is not None else f"requirement {self.requirement}"


class Baseline(BaseModel):
    """The known failures of one implementation."""

    model_config = ConfigDict(frozen=True, extra="forbid", json_schema_extra={"$id": BASELINE_SCHEMA_ID})
    baseline_version: Literal[1] = 1
    adapter: str = Field(default="", description="the implementation it was written for (informative)")
    known_failures: list[KnownFailure]


def load_baseline(path: Path) -> Baseline:
    """Read a baseline file; raise ConfigurationError saying what is wrong with it."""
    try:
        return Baseline.model_validate_json(path.read_bytes())
    except OSError as error:
        raise ConfigurationError(f"cannot read the baseline {path}: {error.strerror}") from error
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the file"
        raise ConfigurationError(f"the baseline {path} is not valid at {where}: {first['msg']}") from error


def apply_baseline(tests: list[TestResult], baseline: Baseline) -> list[TestResult]:
    """Turn failures a baseline covers into XFAIL, and passing tests a test entry names into XPASS (stale)."""
    return [_against(test, baseline) for test in tests]


def stale_entries(tests: list[TestResult], baseline: Baseline) -> list[KnownFailure]:
    """Return the entries that no longer fail: tests they name ran, and none failed as the entry says."""
    return [entry for entry in baseline.known_failures if _stale(entry, tests)]


def baseline_from(adapter: str, tests: list[TestResult], *, keep: Sequence[KnownFailure] = ()) -> Baseline:
    """Write down every failure of a run (before any baseline), one entry per test with its verdict, after `keep`."""
    failing = [t for t in tests if t.verdict in FAILING]
    found = [KnownFailure(test=t.id, verdict=t.verdict) for t in failing]  # type: ignore[arg-type]
    return Baseline(adapter=adapter, known_failures=[*keep, *found])


def baseline_schema() -> dict[str, Any]:
    """Return the JSON Schema (2020-12) of baseline files, as committed in schemas/report/."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **Baseline.model_json_schema()}


def _against(test: TestResult, baseline: Baseline) -> TestResult:
    if test.verdict in FAILING:
        entry = next((e for e in baseline.known_failures if e.covers(test)), None)
        if entry is not None:
            known = [c.model_copy(update={"verdict": "XFAIL"}) if c.verdict in FAILING else c for c in test.charges]
            return test.model_copy(
                update={"verdict": "XFAIL", "message": f"known failure ({test.verdict}): {test.message}", "charges": known}
            )
        return test
    if test.verdict == "PASS" and any(e.test == test.id for e in baseline.known_failures):
        return test.model_copy(update={"verdict": "XPASS", "message": "passes, but the baseline lists it: remove the entry"})
    return test


def _stale(entry: KnownFailure, tests: list[TestResult]) -> bool:
    named = [t for t in tests if entry.names(t) and t.verdict != "SKIP"]
    return bool(named) and not any(entry.covers(t) for t in named)


if __name__ == "__main__":
    print(json.dumps(baseline_schema(), indent=2))
