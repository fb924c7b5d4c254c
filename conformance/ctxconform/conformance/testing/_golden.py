"""Golden scripts: one file format for every spec's scripted scenarios, and one replayer that compares their answers.

A script is a list of steps (an operation, its arguments and context, and the requirement that owns its answer);
each spec's suite runs a step and cuts the normalized answer into named parts. Every part is compared with its
golden snapshot; the first part that differs fails the requirement that owns it, and nothing else.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ctxconform.conformance.exceptions import ConfigurationError, RequirementFailure
from ctxconform.conformance.judge._ledger import current_ledger

__all__ = ["GoldenPart", "GoldenScript", "GoldenStep", "compare_parts", "golden_params", "load_script", "replay_script"]


class GoldenStep(BaseModel):
    """One call of a golden script."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    op: str = Field(description="the operation to call")
    args: Any = Field(default=None, description='its arguments; {"$repeat": {"text": T, "times": N}} stands for T*N')
    context: dict[str, Any] | None = Field(default=None, description="the call's context (participant, session)")
    owner: str | None = Field(default=None, description="the requirement a difference in this step's answer breaks")
    owners: dict[str, str] = Field(default={}, description="part name -> the requirement owning that part")
    needs: list[str] = Field(default=[], description="optional features the step needs")
    bind: str | None = Field(default=None, description="a name later steps use for this step's result")
    invalid: bool = Field(default=False, description="the arguments break the request schema on purpose")
    note: str = ""

    def owner_of(self, part: str, default: str) -> str:
        """The requirement owning one part of this step's answer."""
        return self.owners.get(part) or self.owner or default


class GoldenScript(BaseModel):
    """A scripted scenario of one spec, compared step by step with golden snapshots."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    description: str
    spec: str
    needs: list[str] = Field(default=[], description="optional features the whole script needs")
    owner: str = Field(description="the requirement owning any step that names none")
    steps: list[GoldenStep]

    def owners(self) -> set[str]:
        """Every requirement this script can charge."""
        return {self.owner} | {s.owner for s in self.steps if s.owner} | {r for s in self.steps for r in s.owners.values()}


class GoldenPart(BaseModel):
    """One named part of a normalized answer, and the requirement a difference in it breaks."""

    model_config = ConfigDict(frozen=True)
    name: str
    value: Any
    owner: str = Field(default="", description="empty: the step's owner of this part, else the script's owner")


def load_script(path: Path) -> GoldenScript:
    """Read a golden script; raise ConfigurationError naming the file for one that breaks the format."""
    try:
        script = GoldenScript.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, ValidationError) as error:
        raise ConfigurationError(f"{path} is not a golden script: {error}") from None
    return script.model_copy(update={"steps": [_expand(step) for step in script.steps]})


def golden_params(folder: Path) -> list[Any]:
    """One pytest param per golden script in `folder`, id'd by its stem and declaring exactly the requirements it owns."""
    import pytest  # noqa: PLC0415 - only suites collect params

    scripts = sorted(folder.glob("*.json"))
    return [
        pytest.param(path, id=path.stem, marks=pytest.mark.requirement(*sorted(load_script(path).owners()))) for path in scripts
    ]


def _expand(step: GoldenStep) -> GoldenStep:
    return step.model_copy(update={"args": _repeat(step.args)})


def _repeat(value: Any) -> Any:
    if isinstance(value, dict):
        spec = value.get("$repeat")
        if len(value) == 1 and isinstance(spec, dict):
            return str(spec["text"]) * int(spec["times"])
        return {key: _repeat(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_repeat(item) for item in value]
    return value


def replay_script(
    script: GoldenScript, answer: Callable[[int, GoldenStep], Iterable[GoldenPart]], snapshot: Callable[..., Any]
) -> None:
    """Run every step through `answer` (which calls and normalizes), then compare all parts with their snapshots."""
    ledger = current_ledger()
    for feature in script.needs:
        ledger.need(script.spec, feature)
    parts: list[GoldenPart] = []
    for index, step in enumerate(script.steps):
        for feature in step.needs:
            ledger.need(script.spec, feature)
        parts += [
            part.model_copy(
                update={
                    "name": f"{index:02d}-{step.op}-{part.name}",
                    "owner": part.owner or step.owner_of(part.name, script.owner),
                }
            )
            for part in answer(index, step)
        ]
    compare_parts(parts, snapshot)


def compare_parts(parts: Iterable[GoldenPart], snapshot: Callable[..., Any]) -> None:
    """Compare each part with the snapshot of its name (all are recorded); fail the owner of the first that differs."""
    compared = [(part, snapshot(name=part.name) == part.value) for part in parts]
    ledger = current_ledger()
    differing = [part for part, same in compared if not same]
    for part, same in compared:
        if same:
            ledger.guard(part.owner)
            ledger.hold(part.owner)
    if differing:
        first = differing[0]
        ledger.guard(first.owner)
        others = ", ".join(part.name for part in differing[1:9])
        message = f"part {first.name} differs from the golden snapshot" + (f" (so do {others})" if others else "")
        raise RequirementFailure(first.owner, message, received=first.value)
