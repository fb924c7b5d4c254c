"""The toy-counter suite, written against the public testing API only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from ctxconform.conformance.testing import (
    Client,
    GoldenPart,
    GoldenStep,
    Implementation,
    Operation,
    Operations,
    check_equal,
    golden_params,
    load_script,
    replay_script,
    requirement,
    unique_hex,
)

SPEC = "toy-counter"
SHAPE = "toy-counter/1/answer-shape"
ADDS_ONE = "toy-counter/1/increment-adds-one"
READ = "toy-counter/1/read-returns-count"
UNKNOWN = "toy-counter/2/unknown-counter"
RESET = "toy-counter/3/reset"
OPERATIONS = Operations(
    SPEC,
    {"increment": Operation(SHAPE), "read": Operation(SHAPE), "reset": Operation(SHAPE, feature="reset")},
    error_requirement=SHAPE,
)


class Counters(Client):
    """The toy spec's verbs."""

    def __init__(self, implementation: Implementation) -> None:
        super().__init__(implementation, OPERATIONS)

    def increment(self, name: str) -> Any:
        """Increment a counter and return the answer."""
        return self.call("increment", {"name": name}, serves=ADDS_ONE).result

    def read(self, name: str) -> Any:
        """Read a counter's answer."""
        return self.call("read", {"name": name}, serves=READ).result


@pytest.fixture
def counters(implementation: Implementation) -> Counters:
    """A client of the implementation under test."""
    return Counters(implementation)


@requirement(ADDS_ONE)
def test_increment_adds_one(counters: Counters) -> None:
    """Two increments of a fresh counter give 1, then 2."""
    name = unique_hex(8)
    check_equal(ADDS_ONE, counters.increment(name)["count"], 1, "the first increment's count", sent={"name": name})
    check_equal(ADDS_ONE, counters.increment(name)["count"], 2, "the second increment's count", sent={"name": name})


@requirement(READ)
def test_read_returns_the_count(counters: Counters) -> None:
    """Read gives the count the last increment returned."""
    name = unique_hex(8)
    count = counters.increment(name)["count"]
    check_equal(READ, counters.read(name)["count"], count, "the count read back", sent={"name": name})


@requirement(UNKNOWN)
def test_an_unknown_counter_is_refused(counters: Counters) -> None:
    """Reading a counter never incremented is refused with UNKNOWN_COUNTER."""
    counters.call("read", {"name": unique_hex(8)}).refused(UNKNOWN, "UNKNOWN_COUNTER")


@requirement(RESET)
def test_reset_sets_zero(counters: Counters) -> None:
    """Reset sets a counter to zero (optional feature)."""
    name = unique_hex(8)
    counters.increment(name)
    answer = counters.call("reset", {"name": name}, serves=RESET).result
    check_equal(RESET, answer["count"], 0, "the count after reset")


@pytest.mark.parametrize("script", golden_params(Path(__file__).with_name("golden")))
def test_a_golden_story_matches(script: Path, counters: Counters, snapshot: SnapshotAssertion) -> None:
    """A scripted story's answers match the golden snapshots, part by part."""
    loaded = load_script(script)
    name = unique_hex(8)

    def answer(index: int, step: GoldenStep) -> Iterator[GoldenPart]:
        del index
        checked = counters.call(step.op, {**step.args, "name": name})
        yield GoldenPart(name="answer", value=checked.raw["count"] if checked.ok else {"error": checked.code})

    replay_script(loaded, answer, snapshot)
