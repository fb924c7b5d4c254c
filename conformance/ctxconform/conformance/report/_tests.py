"""One test's result as a report holds it, read from the plugin's result lines."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ctxconform.conformance.judge._results import Charge, ResultLine, TestLine
from ctxconform.conformance.judge._verdicts import BAD, Verdict

__all__ = ["TestResult", "tests_in"]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class TestResult(BaseModel):
    """How one test ended."""

    __test__ = False  # a model, not a test for pytest to collect
    model_config = _FROZEN
    id: str = Field(description="pytest node id of the test")
    name: str
    spec: str | None
    requirements: list[str] = Field(description="requirement ids the test declares")
    charges: list[Charge] = Field(description="what the test charged to each requirement it checked")
    failed_requirements: list[str] = Field(description="requirement ids charged a bad verdict")
    verdict: Verdict
    duration_s: float = Field(ge=0)
    message: str = Field(description="the failure or skip reason, empty on PASS")
    transcript: list[dict[str, Any]] = Field(description="the last calls and replies of a failed test")
    replay: str = Field(description="a command that runs this test again with the same seed")

    @classmethod
    def from_line(cls, line: TestLine, replay: str) -> TestResult:
        """The result of one test line; `replay` is the run's command, extended with the test's exact id when it failed."""
        command = f"{replay} --test {shlex.quote(line.id)}" if replay and line.verdict in BAD else ""
        fields = line.model_dump(exclude={"event"})
        return cls(**fields, failed_requirements=line.failed_requirements, replay=command)


def tests_in(lines: Sequence[ResultLine], replay: str) -> list[TestResult]:
    """The test results among the plugin's result lines."""
    return [TestResult.from_line(line, replay) for line in lines if isinstance(line, TestLine)]
