"""Executions (section 5.1): exactly one provider per agent execution, each apart from the others."""

from __future__ import annotations

from typing import Final

import pytest

from ctxconform.conformance.suites.content_provider import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.content_provider.client import (
    Execution,
    fresh_execution,
    new_id,
    populate,
    registers,
    tool_call,
)
from ctxconform.conformance.testing import Implementation, check, check_equal, requirement

ONE: Final = R.S5_1_ONE_PROVIDER_PER_EXECUTION
POPULATED: Final = {"persona", "rules", "inbox", "retrieved"}  # the registers populate() adds
OPS_ON_AN_EXECUTION: Final = [
    ("get_provider", {}),
    ("add_register", {"name": "Notes", "classification": "Session"}),
    ("append_item", {"register": "Notes", "text": "x"}),
    ("record_tool_call", {"record": tool_call(1)}),
    ("compose", {}),
    ("mark_delivered", {}),
    ("mark_failed", {}),
    ("begin_trace", {}),
    ("add_trace_step", {"step": {"kind": "x"}}),
    ("end_trace", {"tokens": {"prompt": 1, "completion": 1, "total": 2}, "summary": {}}),
    ("get_traces", {}),
    ("persist", {"sessionId": "ctxconform-session-unused"}),
    ("end_execution", {}),
]


@requirement(ONE)
def test_creating_a_provider_again_never_replaces_it(execution: Execution) -> None:
    """A second create_provider for an execution is refused (PROVIDER_EXISTS) or a no-op; the provider is unchanged."""
    populate(execution)
    before = execution.registers()
    again = execution.op("create_provider", serves=ONE)
    if again.ok:  # the no-op reading: it answers the existing provider
        check_equal(ONE, registers(again.result["provider"]), before, "the provider a second create_provider answered")
    else:
        again.refused(ONE, "PROVIDER_EXISTS")
    check_equal(ONE, execution.registers(), before, "the provider after a second create_provider")


@requirement(ONE)
def test_rehydrating_into_an_execution_that_has_a_provider_never_replaces_it(execution: Execution) -> None:
    """Rehydrating into an execution that already has its provider never replaces that provider."""
    populate(execution)
    before = execution.registers()
    stranger = {"registers": [{"name": "ToolCallManifest", "classification": "Consumable", "items": []}]}
    outcome = execution.op("rehydrate", serves=ONE, provider=stranger)
    if not outcome.ok:
        outcome.refused(ONE, "PROVIDER_EXISTS")
    check_equal(ONE, execution.registers(), before, "the provider after rehydrating into its execution")


@requirement(ONE)
def test_each_execution_has_its_own_provider(implementation: Implementation, execution: Execution) -> None:
    """Registers, items and tool calls of one execution are never seen in another's provider."""
    populate(execution)
    with fresh_execution(implementation) as other:
        other.add("Notes", "Session")
        other.append("Notes", "only here")
        found = other.registers()
        check(ONE, not set(found) & POPULATED, "a new execution shows another execution's registers", received=sorted(found))
        check_equal(ONE, found["toolcallmanifest"]["items"], [], "the tool calls of a new execution")
    check(ONE, "notes" not in execution.registers(), "another execution's register appeared in this one")


@requirement(ONE)
@pytest.mark.parametrize(("op", "fields"), OPS_ON_AN_EXECUTION, ids=[op for op, _ in OPS_ON_AN_EXECUTION])
def test_an_execution_without_a_provider_is_refused(implementation: Implementation, op: str, fields: dict[str, object]) -> None:
    """Every operation on an execution that was never created is refused with PROVIDER_NOT_FOUND."""
    Execution(implementation, new_id("never-created")).op(op, serves=ONE, **fields).refused(ONE, "PROVIDER_NOT_FOUND")


@requirement(ONE)
def test_an_ended_execution_is_gone(implementation: Implementation) -> None:
    """After end_execution the execution has no provider and no traces, and its id can start a new execution."""
    with fresh_execution(implementation, ended=False) as execution:
        populate(execution)
        execution.begin()
        execution.end_execution().expect(ONE)
        execution.op("get_provider", serves=ONE).refused(ONE, "PROVIDER_NOT_FOUND")
        execution.op("get_traces", serves=ONE).refused(ONE, "PROVIDER_NOT_FOUND")
        found = registers(execution.create(ONE))
        leftover = set(found) & POPULATED or found["toolcallmanifest"]["items"]
        check(ONE, not leftover, "a new provider under an ended execution's id holds the old one's items", received=found)
        check_equal(ONE, execution.traces(ONE), [], "the traces of a new execution under an ended one's id")
        execution.end_execution()
