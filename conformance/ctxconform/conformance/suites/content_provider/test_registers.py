"""Registers (sections 3, 4.2, 4.4, 5.2 and 5.3): names, classifications, ordered items, the ToolCallManifest."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import pytest

from ctxconform.conformance.suites.content_provider import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.content_provider.client import (
    MANIFEST,
    Execution,
    key,
    names_are_exact,
    register_view,
    tool_call,
)
from ctxconform.conformance.testing import check, check_equal, requirement

CLASSIFIED: Final = R.S4_2_CLASSIFIED
STABLE: Final = R.S4_2_STABLE_NAME
ORDERED: Final = R.S4_2_ORDERED_LINE_ITEMS
RECORDS: Final = R.S4_4_MANIFEST_RECORDS
EXACT: Final = R.S5_3_STATE_HOLDERS_ONLY
CONTAINMENT: Final = R.S5_2_REGISTERS_ONLY_CONTAINMENT
TWO: Final = R.S3_EXACTLY_TWO_CLASSIFICATIONS

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
    """Check that the provider is as it was."""
    check_equal(requirement_id, execution.registers(), before, f"the provider after {what}")


@requirement(R.S4_4_MANIFEST_REQUIRED, R.S4_4_MANIFEST_CONSUMABLE)
def test_a_new_provider_holds_an_empty_tool_call_manifest(execution: Execution) -> None:
    """A new provider has a register named ToolCallManifest, classified Consumable, with no records."""
    found = execution.registers(R.S4_4_MANIFEST_REQUIRED)
    check(R.S4_4_MANIFEST_REQUIRED, key(MANIFEST) in found, f"a new provider has no {MANIFEST}", received=sorted(found))
    manifest = found[key(MANIFEST)]
    check_equal(R.S4_4_MANIFEST_REQUIRED, manifest["name"], MANIFEST, "the name of the manifest")
    check_equal(R.S4_4_MANIFEST_CONSUMABLE, manifest["classification"], "Consumable", "the classification of the manifest")
    check_equal(R.S4_4_MANIFEST_REQUIRED, manifest["items"], [], "the records of a new manifest")


@requirement(R.S4_2_MULTIPLE_REGISTERS, CLASSIFIED)
def test_registers_of_both_classifications_are_kept_apart(execution: Execution) -> None:
    """Several registers of both classifications each keep their own classification and items."""
    plan = {"Persona": "Session", "Rules": "Session", "Inbox": "Consumable", "Retrieved": "Consumable"}
    for name, classification in plan.items():
        added = register_view(execution.add(name, classification, R.S4_2_MULTIPLE_REGISTERS))
        check_equal(CLASSIFIED, added, {"name": name, "classification": classification, "items": []}, "the register added")
        execution.append(name, f"{name} item")
    found = execution.registers()
    for name, classification in plan.items():
        expected = {"name": name, "classification": classification, "items": [f"{name} item"]}
        check_equal(R.S4_2_MULTIPLE_REGISTERS, found.get(key(name)), expected, f"register {name}")


@requirement(TWO)
@pytest.mark.parametrize("classification", ["Ephemeral", "Persistent", "Transient", "Both", "None", "", "Tool"])
def test_only_two_classifications_are_accepted(execution: Execution, classification: str) -> None:
    """A register of any classification but Session or Consumable is refused with UNKNOWN_CLASSIFICATION."""
    before = execution.registers()
    outcome = execution.send(
        "add_register", {"executionId": execution.execution_id, "name": "Notes", "classification": classification}, serves=TWO
    )
    outcome.refused(TWO, "UNKNOWN_CLASSIFICATION")
    unchanged(execution, before, TWO, f"add_register with classification {classification!r}")


@requirement(CLASSIFIED, STABLE)
@pytest.mark.parametrize("again", ["Notes", "notes", "NOTES", "nOtEs"])
def test_asking_for_a_register_again_gives_it_unchanged(execution: Execution, again: str) -> None:
    """Asking again for a register with its classification gives it, name and items unchanged.

    Asked in another case, it is the same register (names compared without regard to case, the origin's reading) or,
    where names are exact keys, a new empty register of that name beside it (the other reading of 4.2/stable-name).
    """
    exact = again != "Notes" and names_are_exact(execution.implementation)
    execution.add("Notes", "Session")
    execution.append("Notes", "first")
    found = register_view(execution.add(again, "Session", STABLE))
    expected = (
        {"name": again, "classification": "Session", "items": []}
        if exact
        else {"name": "Notes", "classification": "Session", "items": ["first"]}
    )
    check_equal(STABLE, found, expected, f"the register add_register({again!r}) answered")
    document = execution.document()["registers"]
    names = [register["name"] for register in document]
    check(
        STABLE,
        names.count("Notes") == 1 and (again == "Notes" or names.count(again) == (1 if exact else 0)),
        "a register name changed",
        received=names,
    )
    kept = [register_view(r) for r in document if r["name"] == "Notes"]
    check_equal(STABLE, kept, [{"name": "Notes", "classification": "Session", "items": ["first"]}], "the register Notes")
    check(CLASSIFIED, names.count("Notes") == 1, "asking again made another register", received=names)


@requirement(CLASSIFIED)
@pytest.mark.parametrize(("first", "then"), [("Session", "Consumable"), ("Consumable", "Session")])
def test_asking_with_the_other_classification_is_a_conflict(execution: Execution, first: str, then: str) -> None:
    """An existing register asked for with the other classification is refused with CLASSIFICATION_CONFLICT.

    It is asked for in another case unless names are exact keys (there, another spelling would be another register).
    """
    again = "Notes" if names_are_exact(execution.implementation) else "NOTES"
    execution.add("Notes", first)
    execution.append("Notes", "kept")
    before = execution.registers()
    outcome = execution.op("add_register", name=again, classification=then)
    outcome.refused(CLASSIFIED, "CLASSIFICATION_CONFLICT")
    unchanged(execution, before, CLASSIFIED, "a conflicting add_register")


@requirement(R.S4_4_MANIFEST_CONSUMABLE, STABLE)
def test_the_manifest_is_never_session_context(execution: Execution) -> None:
    """The ToolCallManifest asked for as Session is a conflict; as Consumable it is the manifest.

    Where names are compared without regard to case, so are its other spellings; where they are exact keys, another
    spelling names another register, so only the manifest's own name is asked for.
    """
    rid = R.S4_4_MANIFEST_CONSUMABLE
    exact = names_are_exact(execution.implementation)
    for name in (MANIFEST,) if exact else (MANIFEST, "toolcallmanifest"):
        execution.op("add_register", name=name, classification="Session").refused(rid, "CLASSIFICATION_CONFLICT")
    found = register_view(execution.add(MANIFEST if exact else "TOOLCALLMANIFEST", "Consumable", rid))
    check_equal(STABLE, found["name"], MANIFEST, "the name of the manifest add_register answered")
    check_equal(rid, found, {"name": MANIFEST, "classification": "Consumable", "items": []}, "the manifest add_register answered")


@requirement(STABLE)
@pytest.mark.parametrize("name", ["", " ", "   ", "\t", "\n", "\t \r\n", "\u3000"], ids=repr)
def test_blank_register_names_are_refused(execution: Execution, name: str) -> None:
    """An empty or all-whitespace register name is refused with BLANK_NAME and adds nothing."""
    before = execution.registers()
    for classification in ("Session", "Consumable"):
        args = {"executionId": execution.execution_id, "name": name, "classification": classification}
        execution.send("add_register", args, serves=STABLE).refused(STABLE, "BLANK_NAME")
    unchanged(execution, before, STABLE, f"add_register({name!r})")


@requirement(STABLE)
def test_a_register_keeps_its_name_through_everything(execution: Execution) -> None:
    """A register keeps the name it was created with through appends, composing and delivery.

    The appends ask for it in other cases, unless names are exact keys (the other reading of 4.2/stable-name).
    """
    exact = names_are_exact(execution.implementation)
    execution.add("Mixed Case Name", "Consumable")
    answer = execution.append("Mixed Case Name" if exact else "mixed case name", "one")
    check_equal(STABLE, answer["register"], "Mixed Case Name", "the register append_item answered")
    composed = execution.compose()
    named = [i["register"] for i in composed["input"] if i["type"] == "text"]
    check_equal(STABLE, named, ["Mixed Case Name"], "the register the input items name")
    execution.delivered()
    execution.append("Mixed Case Name" if exact else "MIXED CASE NAME", "two")
    found = execution.registers()[key("Mixed Case Name")]
    check_equal(STABLE, found["name"], "Mixed Case Name", "the register's name after a delivery and another append")


@requirement(ORDERED, R.S4_2_ITEMS_ACCUMULATE)
@pytest.mark.parametrize("classification", ["Session", "Consumable"])
def test_items_come_back_in_the_order_they_were_appended(execution: Execution, classification: str) -> None:
    """Appended items, duplicates included, come back in append order, each append adding one."""
    execution.add("Log", classification)
    texts = [f"entry {n % 7}" for n in range(25)]
    for count, text in enumerate(texts, start=1):
        answer = execution.append("Log", text)
        check_equal(R.S4_2_ITEMS_ACCUMULATE, answer["count"], count, f"the count after {count} appends")
    found = execution.registers()[key("Log")]["items"]
    check_equal(ORDERED, found, texts, "the items read back")


@requirement(EXACT)
@pytest.mark.parametrize("classification", ["Session", "Consumable"])
def test_items_are_kept_exactly_as_given(execution: Execution, classification: str) -> None:
    """Whitespace, line ends, duplicates, unicode, NUL and long texts come back exactly as appended."""
    execution.add("Exact", classification)
    for text in EXACT_TEXTS:
        execution.append("Exact", text, EXACT)
    found = execution.registers()[key("Exact")]["items"]
    check_equal(EXACT, found, EXACT_TEXTS, "the items read back")


@requirement(CLASSIFIED)
def test_appending_to_a_register_that_does_not_exist_is_refused(execution: Execution) -> None:
    """An item cannot land in a register nobody created (and so classified): REGISTER_NOT_FOUND, nothing added."""
    before = execution.registers()
    execution.op("append_item", register="Nowhere", text="lost").refused(CLASSIFIED, "REGISTER_NOT_FOUND")
    unchanged(execution, before, CLASSIFIED, "append_item to an unknown register")


@requirement(RECORDS)
def test_tool_calls_are_recorded_with_their_four_fields_in_order(execution: Execution) -> None:
    """Each recorded tool call comes back as {toolName, parametersJson, outputJson, toolCallRef}, exactly, in order."""
    records = [tool_call(1), tool_call(2, "fetch_page"), tool_call(3), tool_call(3)]
    records[1] = {**records[1], "outputJson": '{"text": "caf\\u00e9 ☕\\nline"}', "parametersJson": "[1, 2.5, null]"}
    for count, record in enumerate(records, start=1):
        answer = execution.record(record)
        check_equal(RECORDS, answer["count"], count, f"the count after {count} records")
    found = execution.registers()[key(MANIFEST)]["items"]
    check_equal(RECORDS, found, records, "the records the manifest holds")


@requirement(RECORDS)
def test_text_cannot_be_appended_to_the_manifest(execution: Execution) -> None:
    """The ToolCallManifest holds tool call records only: a text item is refused and the manifest is unchanged."""
    execution.record(tool_call(1))
    before = execution.registers()
    execution.op("append_item", register=MANIFEST, text="not a record").refused(
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
    execution.send("append_item", args, serves=CONTAINMENT).refused(CONTAINMENT)
    unchanged(execution, before, CONTAINMENT, "a container offered as an item")


@requirement(R.S5_2_COMPOSED_SOLELY_OF_REGISTERS)
def test_the_serialized_provider_holds_registers_and_nothing_else(execution: Execution) -> None:
    """After items, a composed request, a failed delivery and a trace, the serialized provider is still {registers}."""
    rid = R.S5_2_COMPOSED_SOLELY_OF_REGISTERS
    execution.add("Persona", "Session")
    execution.append("Persona", "p")
    execution.record(tool_call(1))
    execution.compose()
    execution.failed()
    execution.begin()
    document = execution.document(rid)
    check_equal(rid, sorted(document), ["registers"], "the fields of the serialized provider")
