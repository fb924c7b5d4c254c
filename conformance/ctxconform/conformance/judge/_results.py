"""The result lines a suite run writes and the parent reads: typed models, one writer and one reader.

The pytest child appends one JSON line per event to the results file; `ctxconform run` and the mutation runner read
them back with `read_lines`. Nothing else parses these files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ctxconform.conformance.judge._verdicts import BAD, Verdict

__all__ = [
    "EVENT_KINDS",
    "Charge",
    "CollectedLine",
    "EventLine",
    "ProblemLine",
    "ResultLine",
    "StartedLine",
    "TestLine",
    "parse_line",
    "read_lines",
    "write_line",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid")
EventKind = Literal["restarted", "restart-failed", "restarts-exhausted", "setup-replayed", "stop-forced"]
EVENT_KINDS: Final[frozenset[str]] = frozenset(EventKind.__args__)  # type: ignore[attr-defined]


class Charge(BaseModel):
    """What one test charged to one requirement: PASS for checks that held, or the verdict of the check that failed."""

    model_config = _FROZEN
    requirement: str
    verdict: Verdict
    checks: int = Field(default=0, ge=0, description="how many checks of the requirement held in the test")
    message: str = Field(default="", description="why it is charged a bad verdict or SKIP")


class TestLine(BaseModel):
    """How one test ended, and what it charged to each requirement."""

    __test__ = False  # a model, not a test for pytest to collect
    model_config = _FROZEN
    event: Literal["test"] = "test"
    id: str = Field(description="pytest node id of the test")
    name: str
    spec: str | None
    requirements: list[str] = Field(description="requirement ids the test declares")
    charges: list[Charge] = Field(description="what the test evidenced, per requirement it checked")
    verdict: Verdict
    duration_s: float = Field(ge=0)
    message: str = Field(description="the failure or skip reason, empty on PASS")
    transcript: list[dict[str, Any]] = Field(description="the last calls and replies of a failed test")

    @property
    def failed_requirements(self) -> list[str]:
        """The requirements charged a bad verdict."""
        return [c.requirement for c in self.charges if c.verdict in BAD]


class StartedLine(BaseModel):
    """The implementation started and said who it is."""

    model_config = _FROZEN
    event: Literal["started"] = "started"
    adapter: str
    implementation: dict[str, Any]


class ProblemLine(BaseModel):
    """The run could not begin: a bad configuration (exit 2) or an implementation that would not start (exit 3)."""

    model_config = _FROZEN
    event: Literal["configuration", "unavailable"]
    message: str


class EventLine(BaseModel):
    """Something that happened to the implementation itself during the run."""

    model_config = _FROZEN
    event: EventKind
    at_s: float = Field(ge=0)
    test: str
    message: str
    restarts: int | None = None


class CollectedLine(BaseModel):
    """One collected test and the requirements it declares (written by `--ctxconform-collect`)."""

    model_config = _FROZEN
    event: Literal["collected"] = "collected"
    id: str
    requirements: list[str]


ResultLine = Annotated[TestLine | StartedLine | ProblemLine | EventLine | CollectedLine, Field(discriminator="event")]
_LINE: Final[TypeAdapter[ResultLine]] = TypeAdapter(ResultLine)


def parse_line(record: object) -> ResultLine:
    """One result line from its JSON value; raise pydantic's ValidationError when it is not one."""
    return _LINE.validate_python(record)


def write_line(path: Path, line: BaseModel) -> None:
    """Append one result line."""
    # ASCII JSON: a lone surrogate an implementation sent ("impl\\ud800" is legal JSON) is written as its escape and
    # read back as itself, where UTF-8 (and so model_dump_json) cannot carry it at all.
    text = json.dumps(line.model_dump(mode="json"), ensure_ascii=True, separators=(",", ":"))
    with path.open("a", encoding="ascii") as out:
        out.write(text + "\n")


def read_lines(path: Path) -> list[ResultLine]:
    """Read the result lines of a run (none when the file does not exist; a torn or foreign line is dropped)."""
    if not path.is_file():
        return []
    lines: list[ResultLine] = []
    # split("\n"), not splitlines(): values may hold U+2028 and other characters splitlines() breaks on.
    for text in path.read_text(encoding="utf-8", errors="replace").split("\n"):
        if not text:
            continue
        try:
            lines.append(parse_line(json.loads(text)))
        except (ValueError, ValidationError):
            continue
    return lines
