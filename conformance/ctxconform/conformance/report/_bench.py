"""The benchmark report (`reports/bench.json`): figures, each a median and spread over repeated runs."""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["BENCH_SCHEMA_ID", "BenchReport", "Figure", "Machine", "bench_schema", "figure"]

BENCH_SCHEMA_ID: Final = "https://ctxconform.dev/schemas/report/bench.schema.json"
_FROZEN = ConfigDict(frozen=True, extra="forbid")


class Figure(BaseModel):
    """One measured figure: the median of its runs, their spread, and how it compares with a goal or another figure."""

    model_config = _FROZEN
    section: str = Field(description="what is measured, such as transports or shared-context stores")
    name: str = Field(description="the figure, such as 'stdio call p50'")
    unit: str = Field(description="ms, us, s, tests/s, ops/s, ...")
    median: float = Field(description="the median over the runs")
    spread: float = Field(ge=0, description="max - min over the runs")
    runs: int = Field(ge=1, description="how many runs the median and spread are over")
    ratio: float | None = Field(default=None, description="this figure's median over the one `ratio_to` names")
    ratio_to: str | None = Field(default=None, description="the figure the ratio is taken against, measured in the same run")
    goal: str | None = Field(default=None, description="the target, such as '< 60 us'")
    goal_met: bool | None = Field(default=None, description="whether the median meets the goal; null without a goal")
    note: str = Field(default="", description="what the figure means, or why it is missing or off its goal")
    better: Literal["lower", "higher"] = Field(
        default="lower",
        description="which way the median improves: lower for times, higher for rates (tests/s) and for margins over a peer",
    )


class Machine(BaseModel):
    """Where the figures were measured."""

    model_config = _FROZEN
    python: str
    platform: str
    cpus: int = Field(ge=1)


class BenchReport(BaseModel):
    """Every figure of one `nox -s bench` run."""

    model_config = ConfigDict(frozen=True, extra="forbid", json_schema_extra={"$id": BENCH_SCHEMA_ID})
    bench_version: int = Field(default=1, description="the format version of this file")
    created_at: str = Field(description="when the run ended, UTC, ISO 8601")
    duration_s: float = Field(ge=0, description="how long the whole run took")
    machine: Machine
    figures: list[Figure]


def figure(section: str, name: str, unit: str, samples: Sequence[float], **extra: Any) -> Figure:
    """Summarize the samples of repeated runs as a figure (median, spread = max - min); a rate (unit per s) is better higher."""
    if not samples:
        raise ValueError(f"{section}/{name}: no samples to summarize")
    if unit.endswith("/s"):  # tests/s, ops/s, MiB/s: a section need not remember to say so
        extra = {"better": "higher", **extra}
    return Figure(
        section=section,
        name=name,
        unit=unit,
        median=statistics.median(samples),
        spread=max(samples) - min(samples),
        runs=len(samples),
        **extra,
    )


def bench_schema() -> dict[str, Any]:
    """Return the JSON Schema (2020-12) of bench.json, as committed in schemas/report/."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **BenchReport.model_json_schema()}


if __name__ == "__main__":
    print(json.dumps(bench_schema(), indent=2))
