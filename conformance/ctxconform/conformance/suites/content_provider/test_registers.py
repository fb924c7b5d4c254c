"""Registers (sections 3, 4.2, 4.4, 5.2 and 5.3): names, classifications, ordered items, the ToolCallManifest."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import pytest

from ctxconform.conformance.suites.content_provider.client import MANIFEST, Execution, key, require, tool_call

requirement = pytest.mark.requirement

CLASSIFIED: Final = "content-provider/4.2/classified"
STABLE: Final = "content-provider/4.2/stable-name"
ORDERED: Final = "content-provider/4.2/ordered-line-items"
RECORDS: Final = "content-provider/4.4/manifest-records"
EXACT: Final = "content-provider/5.3/state-holders-only"
CONTAINMENT: Final = "content-provider/5.2/registers-only-containment"
TWO: Final = "content-provider/3/exactly-two-classifications"

EXACT_TEXTS: Final = [
    "  leading and trailing spaces  ",
    "two\nlines",
    "windows\r\nline end",
    "\ttabbed",
    "same",
    "same",
    "emoji 🎉 and accents éàü",
    "right-to-left \u05e9\u05dc\u05d5\u05dd",
    "combining e\u0301 vs \u00e9",
    "nul \x00 inside",
    '{"looks": "like JSON"}',
    "## a markdown heading\n- a list",
    "x" * 20_000,
]


def unchanged(execution: Execution, before: Mapping[str, object], requirement_id: str, what: str) -> None:
    """Fail `requirement_id` unless the provider is as it was."""
    require(execution.registers() == before, requirement_id, f"{what} changed the provider")


@requirement("content-provider/4.4/manifest-required", "content-provider/4.4/manifest-consumable")
def test_a_new_provider_holds_an_empty_tool_call_manifest(execution: Execution) -> None:
    """A new provider has a register named ToolCallManifest, classified Consumable, with no records."""
    found = execution.registers("content-provider/4.4/manifest-required")
    require(key(MANIFEST) in found, "content-provider/4.4/manifest-required", f"a new provider has no {MANIFEST}: {found}")
    manifest = found[key(MANIFEST)]
    require(manifest["name"] == MANIFEST, "content-provider/4.4/manifest-required", f"the manifest is named {manifest['name']!r}")
    require(manifest["classification"] == "Consumable", "content-provider/4.4/manifest-consumable", f"manifest: {manifest}")
    require(manifest["items"] == [], "content-provider/4.4/manifest-required", f"a new manifest holds {manifest['items']}")


@requirement("content-provider/4.2/multiple-registers", CLASSIFIED)
def test_registers_of_both_classifications_are_kept_apart(execution: Execution) -> None:
    """Several registers of both classifications each keep their own classification and items."""
    plan = {"Persona": "Session", "Rules": "Session", "Inbox": "Consumable", "Retrieved": "Consumable"}
    for name, classification in plan.items():
        added = execution.add(name, classification, "content-provider/4.2/multiple-registers")
        require(added == {"name": name, "classification": classification, "items": []}, CLASSIFIED, f"added: {added}")
        execution.append(name, f"{name} item")
    found = execution.registers()
    for name, classification in plan.items():
        expected = {"name": name, "classification": classification, "items": [f"{name} item"]}
        require(found.get(key(name)) == expected, "content-provider/4.2/multiple-registers", f"{name}: {found.get(key(name))}")


@requirement(TWO)
@pytest.mark.parametrize("classification", ["Ephemeral", "Persistent", "Transient", "Both", "None", "", "Tool"])
def test_only_two_classifications_are_accepted(execution: Execution, classification: str) -> None:
    """A register of any classification but Session or Consumable is refused with UNKNOWN_CLASSIFICATION."""
    before = execution.registers()
    outcome = execution.send(
        "add_register", {"executionId": execution.execution_id, "name": "Notes", "classification": classification}
    )
    outcome.refused(TWO, "UNKNOWN_CLASSIFICATION")
    unchanged(execution, before, TWO, f"add_register with classification {classification!r}")


@requirement(CLASSIFIED, STABLE)
@pytest.mark.parametrize("again", ["Notes", "notes", "NOTES", "nOtEs"])
def test_asking_for_a_register_again_gives_it_unchanged(execution: Execution, again: str) -> None:
    """Asking again for a register (in any case) with its classification gives it, name and items unchanged."""
    execution.add("Notes", "Session")
    execution.append("Notes", "first")
    found = execution.add(again, "Session", STABLE)
    require(
        found == {"name": "Notes", "classification": "Session", "items": ["first"]}, STABLE, f"add_register({again!r}): {found}"
    )
    names = [register["name"] for register in execution.document()["registers"]]
    require(names.count("Notes") == 1 and (again == "Notes" or again not in names), STABLE, f"registers: {names}")


@requirement(CLASSIFIED)
@pytest.mark.parametrize(("first", "then"), [("Session", "Consumable"), ("Consumable", "Session")])
def test_asking_with_the_other_classification_is_a_conflict(execution: Execution, first: str, then: str) -> None:
    """An existing register asked for with the other classification is refused with CLASSIFICATION_CONFLICT."""
    execution.add("Notes", first)
    execution.append("Notes", "kept")
    before = execution.registers()
    outcome = execution.call("add_register", name="NOTES", classification=then)
    outcome.refused(CLASSIFIED, "CLASSIFICATION_CONFLICT")
    unchanged(execution, before, CLASSIFIED, "a conflicting add_register")


@requirement("content-provider/4.4/manifest-consumable")
def test_the_manifest_is_never_session_context(execution: Execution) -> None:
    """The ToolCallManifest asked for as Session is a conflict; as Consumable (in any case) it is the manifest."""
    rid = "content-provider/4.4/manifest-consumable"
    for name in (MANIFEST, "toolcallmanifest"):
        execution.call("add_register", name=name, classification="Session").refused(rid, "CLASSIFICATION_CONFLICT")
    found = execution.add("TOOLCALLMANIFEST", "Consumable", rid)
    require(found == {"name": MANIFEST, "classification": "Consumable", "items": []}, rid, f"the manifest: {found}")


@requirement(STABLE)
@pytest.mark.parametrize("name", ["", " ", "   ", "\t", "\n", "\t \r\n", "\u3000"], ids=repr)
def test_blank_register_names_are_refused(execution: Execution, name: str) -> None:
    """An empty or all-whitespace register name is refused with BLANK_NAME and adds nothing."""
    before = execution.registers()
    for classification in ("Session", "Consumable"):
        args = {"executionId": execution.execution_id, "name": name, "classification": classification}
        execution.send("add_register", args).refused(STABLE, "BLANK_NAME")
    unchanged(execution, before, STABLE, f"add_register({name!r})")


@requirement(STABLE)
def test_a_register_keeps_its_name_through_everything(execution: Execution) -> None:
    """A register keeps the name it was created with through appends in other cases, composing and delivery."""
    execution.add("Mixed Case Name", "Consumable")
    answer = execution.append("mixed case name", "one")
    require(answer["register"] == "Mixed Case Name", STABLE, f"append_item answered register {answer['register']!r}")
    composed = execution.compose()
    require([i["register"] for i in composed["input"] if i["type"] == "text"] == ["Mixed Case Name"], STABLE, f"{composed}")
    execution.delivered()
    execution.append("MIXED CASE NAME", "two")
    found = execution.registers()[key("Mixed Case Name")]
    require(found["name"] == "Mixed Case Name", STABLE, f"the register is now named {found['name']!r}")


@requirement(ORDERED, "content-provider/4.2/items-accumulate")
@pytest.mark.parametrize("classification", ["Session", "Consumable"])
def test_items_come_back_in_the_order_they_were_appended(execution: Execution, classification: str) -> None:
    """Appended items, duplicates included, come back in append order, each append adding one."""
    execution.add("Log", classification)
    texts = [f"entry {n % 7}" for n in range(25)]
    for count, text in enumerate(texts, start=1):
        answer = execution.append("Log", text)
        require(answer["count"] == count, "content-provider/4.2/items-accumulate", f"after {count} appends: {answer}")
    found = execution.registers()[key("Log")]["items"]
    require(found == texts, ORDERED, f"appended {texts}, got {found}")


@requirement(EXACT)
@pytest.mark.parametrize("classification", ["Session", "Consumable"])
def test_items_are_kept_exactly_as_given(execution: Execution, classification: str) -> None:
    """Whitespace, line ends, duplicates, unicode, NUL and long texts come back exactly as appended."""
    execution.add("Exact", classification)
    for text in EXACT_TEXTS:
        execution.append("Exact", text, EXACT)
    found = execution.registers()[key("Exact")]["items"]
    differing = [i for i, (a, b) in enumerate(zip(found, EXACT_TEXTS, strict=False)) if a != b]
    require(found == EXACT_TEXTS, EXACT, f"{len(found)} items for {len(EXACT_TEXTS)}; differing at {differing[:5]}")


@requirement(CLASSIFIED)
def test_appending_to_a_register_that_does_not_exist_is_refused(execution: Execution) -> None:
    """An item cannot land in a register nobody created (and so classified): REGISTER_NOT_FOUND, nothing added."""
    before = execution.registers()
    execution.call("append_item", register="Nowhere", text="lost").refused(CLASSIFIED, "REGISTER_NOT_FOUND")
    unchanged(execution, before, CLASSIFIED, "append_item to an unknown register")


@requirement(RECORDS)
def test_tool_calls_are_recorded_with_their_four_fields_in_order(execution: Execution) -> None:
    """Each recorded tool call comes back as {toolName, parametersJson, outputJson, toolCallRef}, exactly, in order."""
    records = [tool_call(1), tool_call(2, "fetch_page"), tool_call(3), tool_call(3)]
    records[1] = {**records[1], "outputJson": '{"text": "caf\\u00e9 ☕\\nline"}', "parametersJson": "[1, 2.5, null]"}
    for count, record in enumerate(records, start=1):
        answer = execution.record(record)
        require(answer["count"] == count, RECORDS, f"after {count} records: {answer}")
    found = execution.registers()[key(MANIFEST)]["items"]
    require(found == records, RECORDS, f"recorded {records}, the manifest holds {found}")


@requirement(RECORDS)
def test_text_cannot_be_appended_to_the_manifest(execution: Execution) -> None:
    """The ToolCallManifest holds tool call records only: a text item is refused and the manifest is unchanged."""
    execution.record(tool_call(1))
    before = execution.registers()
    execution.call("append_item", register=MANIFEST, text="not a record").refused(
        RECORDS, "MANIFEST_RECORDS_ONLY", "INVALID_REQUEST"
    )
    unchanged(execution, before, RECORDS, "a text item offered to the manifest")


@requirement(CONTAINMENT)
@pytest.mark.parametrize(
    "item",
    [
        {"name": "Inner", "classification": "Session", "items": ["x"]},
        ["a", "b"],
        {"text": "wrapped"},
        [{"name": "Inner", "classification": "Consumable", "items": []}],
    ],
    ids=["register", "list", "object", "list-of-registers"],
)
def test_an_item_that_is_a_container_is_refused(execution: Execution, item: object) -> None:
    """Registers hold line items, never registers or other containers: an object or list as an item is refused."""
    execution.add("Outer", "Session")
    before = execution.registers()
    args = {"executionId": execution.execution_id, "register": "Outer", "text": item}
    execution.send("append_item", args, CONTAINMENT).refused(CONTAINMENT)
    unchanged(execution, before, CONTAINMENT, "a container offered as an item")


@requirement("content-provider/5.2/composed-solely-of-registers")
def test_the_serialized_provider_holds_registers_and_nothing_else(execution: Execution) -> None:
    """After items, a composed request, a failed delivery and a trace, the serialized provider is still {registers}."""
    rid = "content-provider/5.2/composed-solely-of-registers"
    execution.add("Persona", "Session")
    execution.append("Persona", "p")
    execution.record(tool_call(1))
    execution.compose()
    execution.failed()
    execution.begin()
    document = execution.document(rid)
    require(set(document) == {"registers"}, rid, f"the serialized provider holds {sorted(document)}")
