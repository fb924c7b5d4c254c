"""Composing a request (sections 3, 4.1 and 4.3): Session items in the instructions lane, Consumable items as input items."""

from __future__ import annotations

import pytest

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance.suites.content_provider.client import (
    IN_INPUT,
    IN_INSTRUCTIONS,
    SEPARATE,
    SESSION_ITEMS,
    Execution,
    expect_request,
    fresh_execution,
    input_lanes,
    populate,
    require,
    tool_call,
)

requirement = pytest.mark.requirement

DETERMINISTIC = "content-provider/3/deterministic-composition"
HOLDS_ALL = "content-provider/4.1/holds-all-prompt-context"
FOR_LLM = "content-provider/4.3/consumable-for-llm"
# Items an implementation may be tempted to skip as carrying nothing for the LLM.
SKIPPABLE = ["", " ", "\n", "\t \r\n", "again", "again", ""]


@requirement(IN_INSTRUCTIONS, IN_INPUT, SEPARATE, "content-provider/4.3/consumable-for-llm")
def test_each_classification_goes_to_its_own_lane(execution: Execution) -> None:
    """Session items are in the instructions lane, Consumable items and tool calls are the input items, never mixed."""
    lanes = populate(execution)
    expect_request(execution.compose(), SESSION_ITEMS, lanes)


@requirement(FOR_LLM)
def test_no_pending_consumable_is_held_back(execution: Execution) -> None:
    """Blank, whitespace-only and repeated Consumable items are input items of the next request like any other."""
    execution.add("Scratch", "Consumable")
    for text in SKIPPABLE:
        execution.append("Scratch", text)
    execution.record(tool_call(1))
    found = input_lanes(execution.compose(FOR_LLM))
    held = {name: r["items"] for name, r in execution.registers().items() if r["classification"] == "Consumable" and r["items"]}
    require(found == held, FOR_LLM, f"the provider holds {held}, the request carries {found}")


@requirement(IN_INSTRUCTIONS)
def test_session_items_are_in_the_instructions_verbatim_and_in_order(execution: Execution) -> None:
    """Multi-line, indented and unicode Session items appear verbatim in the instructions, a register's in order."""
    texts = ["line one\nline two", "  indented  ", "unicode: ☃ € ß 中文", "last"]
    execution.add("Background", "Session")
    for text in texts:
        execution.append("Background", text)
    composed = execution.compose()
    expect_request(composed, {"Background": texts}, {})


@requirement(IN_INPUT, "content-provider/4.4/manifest-consumable")
def test_tool_calls_become_input_items_with_their_records(execution: Execution) -> None:
    """Each ToolCallManifest record is one input item {type: tool_call, register, record}, in the order recorded."""
    records = [tool_call(n) for n in (3, 1, 2)]
    for record in records:
        execution.record(record)
    composed = execution.compose()
    expect_request(composed, {}, {"toolcallmanifest": list(records)})


@requirement(DETERMINISTIC)
def test_composing_twice_gives_the_same_request(execution: Execution) -> None:
    """With no change in between, a second compose answers exactly the first's request."""
    populate(execution)
    first = execution.compose()
    second = execution.compose(DETERMINISTIC)
    require(first == second, DETERMINISTIC, f"first {first}\nthen {second}")


@requirement(DETERMINISTIC)
def test_providers_built_alike_compose_alike(implementation: Implementation, execution: Execution) -> None:
    """Two providers given the same registers and items by the same calls compose the same request."""
    populate(execution)
    with fresh_execution(implementation) as twin:
        populate(twin)
        theirs, mine = twin.compose(DETERMINISTIC), execution.compose(DETERMINISTIC)
    require(theirs == mine, DETERMINISTIC, f"one provider composed {mine}\nthe other {theirs}")


@requirement(HOLDS_ALL)
def test_a_request_is_made_of_the_provider_alone(execution: Execution) -> None:
    """An empty provider composes no input items; a populated one exactly its Consumable items and its Session items."""
    empty = execution.compose(HOLDS_ALL)
    require(empty["input"] == [], HOLDS_ALL, f"an empty provider composed input items {empty['input']}")
    lanes = populate(execution, records=1)
    expect_request(execution.compose(HOLDS_ALL), SESSION_ITEMS, lanes, input_requirement=HOLDS_ALL)


@requirement("content-provider/4.3/session-not-cleared", "content-provider/4.3/consumable-kept-until-delivered")
def test_composing_clears_nothing(execution: Execution) -> None:
    """Composing (twice) leaves every Session and Consumable item in the provider."""
    populate(execution)
    before = execution.registers()
    execution.compose()
    execution.compose()
    after = execution.registers()
    for name, register in before.items():
        rid = "content-provider/4.3/session-not-cleared"
        if register["classification"] == "Consumable":
            rid = "content-provider/4.3/consumable-kept-until-delivered"
        require(after.get(name) == register, rid, f"composing changed {register['name']}: {after.get(name)}")
