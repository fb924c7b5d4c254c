"""Composing a request (sections 3, 4.1 and 4.3): Session items in the instructions lane, Consumable items as input items."""

from __future__ import annotations

from typing import Any, Final

from ctxconform.conformance.suites.content_provider import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.content_provider.client import (
    SESSION_ITEMS,
    Execution,
    expect_request,
    fresh_execution,
    held,
    input_lanes,
    populate,
    request_lanes,
    tool_call,
)
from ctxconform.conformance.testing import Implementation, check, check_equal, requirement

# Items an implementation may be tempted to skip as carrying nothing for the LLM.
SKIPPABLE: Final = ["", " ", "\n", "\t \r\n", "again", "again", ""]
Json = dict[str, Any]


@requirement(
    R.S4_3_SESSION_IN_INSTRUCTIONS,
    R.S4_3_CONSUMABLE_IN_INPUT_ITEMS,
    R.S3_SEPARATE_PERSISTENT_AND_CONSUMABLE,
    R.S4_3_CONSUMABLE_FOR_LLM,
)
def test_each_classification_goes_to_its_own_lane(execution: Execution) -> None:
    """Session items are in the instructions lane, Consumable items and tool calls are the input items, never mixed."""
    lanes = populate(execution)
    session, consumable = held(execution, "Session"), held(execution, "Consumable")  # in the order the provider holds
    composed = execution.compose()
    carried = sum(len(items) for items in input_lanes(composed).values())
    pending = sum(len(items) for items in lanes.values())
    check(
        R.S4_3_CONSUMABLE_FOR_LLM,
        carried >= pending,
        "pending Consumable items were held back",
        received=composed["input"],
        expected=lanes,
    )
    expect_request(composed, session, consumable)


@requirement(R.S4_3_CONSUMABLE_FOR_LLM)
def test_no_pending_consumable_is_held_back(execution: Execution) -> None:
    """Blank, whitespace-only and repeated Consumable items are input items of the next request like any other."""
    execution.add("Scratch", "Consumable")
    for text in SKIPPABLE:
        execution.append("Scratch", text)
    execution.record(tool_call(1))
    held = {name: r["items"] for name, r in execution.registers().items() if r["classification"] == "Consumable" and r["items"]}
    found = input_lanes(execution.compose())
    check_equal(R.S4_3_CONSUMABLE_FOR_LLM, found, held, "the input items by register, against the pending Consumable items")


@requirement(R.S4_3_SESSION_IN_INSTRUCTIONS, R.S5_3_STATE_HOLDERS_ONLY)
def test_session_items_are_in_the_instructions_in_order(execution: Execution) -> None:
    """Multi-line, indented and unicode Session items are held exactly and can be read in the instructions, in order."""
    texts = ["line one\nline two", "  indented  ", "unicode: ☃ € ß 中文", "last"]
    execution.add("Background", "Session")
    for text in texts:
        execution.append("Background", text)
    held = execution.registers()["background"]["items"]
    check_equal(R.S5_3_STATE_HOLDERS_ONLY, held, texts, "the items the register holds, as given")
    expect_request(execution.compose(), {"Background": texts}, {}, inputs=None, separate=None)


@requirement(R.S4_3_CONSUMABLE_IN_INPUT_ITEMS)
def test_tool_calls_become_input_items_with_their_records(execution: Execution) -> None:
    """Each ToolCallManifest record is one input item {type: tool_call, register, record}, in the order recorded."""
    records = [tool_call(n) for n in (3, 1, 2)]
    for record in records:
        execution.record(record)
    expect_request(execution.compose(), {}, {"toolcallmanifest": list(records)}, instructions=None, separate=None)


def unchanged_by(execution: Execution, before: dict[str, Json], what: str) -> None:
    """Check that every register holds what it held before `what`: Session ones kept, Consumable ones kept."""
    after = execution.registers()
    for name, register in before.items():
        rid = R.S4_3_SESSION_NOT_CLEARED
        if register["classification"] == "Consumable":
            rid = R.S4_3_CONSUMABLE_KEPT_UNTIL_DELIVERED
        check_equal(rid, after.get(name), register, f"register {register['name']} after {what}")


@requirement(R.S3_DETERMINISTIC_COMPOSITION, R.S4_3_SESSION_NOT_CLEARED, R.S4_3_CONSUMABLE_KEPT_UNTIL_DELIVERED)
def test_composing_twice_gives_the_same_request(execution: Execution) -> None:
    """With no change in between (composing changes nothing), a second compose gives exactly the first's two lanes."""
    populate(execution)
    before = execution.registers()
    first = execution.compose()
    unchanged_by(execution, before, "a composition")
    second = execution.compose(R.S3_DETERMINISTIC_COMPOSITION)
    check_equal(
        R.S3_DETERMINISTIC_COMPOSITION,
        request_lanes(second),
        request_lanes(first),
        "the second request composed with no change in between",
    )


@requirement(R.S3_DETERMINISTIC_COMPOSITION)
def test_providers_built_alike_compose_alike(implementation: Implementation, execution: Execution) -> None:
    """Two providers given the same registers and items by the same calls compose the same two lanes."""
    populate(execution)
    with fresh_execution(implementation) as twin:
        populate(twin)
        theirs = twin.compose(R.S3_DETERMINISTIC_COMPOSITION)
        mine = execution.compose(R.S3_DETERMINISTIC_COMPOSITION)
    check_equal(
        R.S3_DETERMINISTIC_COMPOSITION, request_lanes(theirs), request_lanes(mine), "the request of a provider built alike"
    )


@requirement(R.S4_1_HOLDS_ALL_PROMPT_CONTEXT)
def test_a_request_is_made_of_the_provider_alone(execution: Execution) -> None:
    """An empty provider composes no input items; a populated one exactly its Consumable items and its Session items."""
    empty = execution.compose(R.S4_1_HOLDS_ALL_PROMPT_CONTEXT)
    check_equal(R.S4_1_HOLDS_ALL_PROMPT_CONTEXT, empty["input"], [], "the input items of an empty provider's request")
    populate(execution, records=1)
    lanes = held(execution, "Consumable")
    expect_request(
        execution.compose(R.S4_1_HOLDS_ALL_PROMPT_CONTEXT),
        SESSION_ITEMS,
        lanes,
        instructions=R.S4_1_HOLDS_ALL_PROMPT_CONTEXT,
        inputs=R.S4_1_HOLDS_ALL_PROMPT_CONTEXT,
        separate=None,
    )


@requirement(R.S4_3_SESSION_NOT_CLEARED, R.S4_3_CONSUMABLE_KEPT_UNTIL_DELIVERED)
def test_composing_clears_nothing(execution: Execution) -> None:
    """Composing (twice) leaves every Session and Consumable item in the provider."""
    populate(execution)
    before = execution.registers()
    execution.compose()
    execution.compose()
    unchanged_by(execution, before, "two compositions")
