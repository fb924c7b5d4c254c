"""Values at the edges (4.2-4.4, 5.2, 5.3, 6.2, 7.3): wrong types, counts at zero, blank content, stored records, two writers.

Values of every JSON type go where the schemas type something else, and are refused with nothing stored; token counts
are drawn one under, at and one over their floor; blank items are content like any other; a serialized provider with
null or wrongly typed register fields is refused; and two instances on one state see each other's persisted providers.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

import pytest

from ctxconform.conformance.suites.content_provider import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.content_provider.client import (
    MANIFEST,
    SPEC,
    Execution,
    as_given,
    fresh_execution,
    held,
    input_lanes,
    key,
    new_id,
    rehydrated,
    token_totals,
    tool_call,
)
from ctxconform.conformance.testing import (
    DEGENERATE_TEXTS,
    WRONG_TYPES,
    Implementation,
    check,
    check_equal,
    edge,
    requirement,
    schema_errors,
    second_instance,
)

Json = dict[str, Any]
RECORDS: Final = R.S4_4_MANIFEST_RECORDS
TOKENS: Final = R.S7_3_TOKEN_TOTALS
CONTAINMENT: Final = R.S5_2_REGISTERS_ONLY_CONTAINMENT
RECORD_FIELDS: Final = ("toolName", "parametersJson", "outputJson", "toolCallRef")
COUNTS: Final = ("prompt", "completion", "total", "reasoning", "cached")
NO_TOKENS: Final = {"prompt": 0, "completion": 0, "total": 0}


def _bad_record(field: str, value: object) -> bool:
    record = {**tool_call(1), field: value}
    return bool(schema_errors(f"{SPEC}/record_tool_call.request.json", {"executionId": "e", "record": record}))


RECORD_CASES: Final = [
    pytest.param(field, value, id=f"{field}-{value!r}")
    for field in RECORD_FIELDS
    for value in WRONG_TYPES
    if _bad_record(field, value)
]


@edge("wrong-types")
@requirement(RECORDS)
@pytest.mark.parametrize(("field", "value"), RECORD_CASES)
def test_a_tool_call_field_of_the_wrong_type_is_refused(execution: Execution, field: str, value: object) -> None:
    """A tool call record whose name, parameters, output or reference is no string (or blank) is refused, not stored."""
    execution.record(tool_call(1), serves=RECORDS)
    before = execution.document(RECORDS)
    record = {**tool_call(2), field: value}
    sent = {"executionId": execution.execution_id, "record": record}
    execution.send("record_tool_call", sent, serves=RECORDS).refused(RECORDS)
    check_equal(RECORDS, execution.document(RECORDS), before, f"the provider after a record with {field}={value!r}", sent=record)


# A refused count leaves the trace open, and reading it back open is 7.1's: those cases check that too.
TOKEN_CASES: Final = [
    pytest.param(name, count, id=f"{name}={count}", marks=[requirement(R.S7_1_DIAGNOSTIC_VISIBILITY)] if count < 0 else [])
    for name in COUNTS
    for count in (-1, 0, 1)
    if (name, count) != ("total", 1)
]


@edge("boundaries")
@requirement(TOKENS)
@pytest.mark.parametrize(("name", "count"), TOKEN_CASES)
def test_token_counts_from_zero_are_kept_and_below_refused(execution: Execution, name: str, count: int) -> None:
    """A token count of 0 or 1 ends the trace with the counts given; a count of -1 is refused and the trace stays open."""
    tokens = {"prompt": 1, "completion": 0, "total": 1, name: count}
    execution.begin(serves=TOKENS)
    sent = {"executionId": execution.execution_id, "tokens": tokens, "summary": {}}
    outcome = execution.send("end_trace", sent, serves=TOKENS)
    if count < 0:
        outcome.refused(TOKENS)
        traces = execution.traces(TOKENS)
        # The trace is still open: that it can be read at all is 7.1's (an open trace is listed), not the totals'.
        check(R.S7_1_DIAGNOSTIC_VISIBILITY, bool(traces), "the open trace is not listed", received=traces, sent=tokens)
        check_equal(TOKENS, traces[-1].get("ended"), False, "the trace after refused totals", sent=tokens)
        return
    ended = outcome.expect(TOKENS)
    execution.tracing = False
    given = as_given(token_totals(ended.get("tokens")), tokens)
    check_equal(TOKENS, given, tokens, "the token totals of the ended trace", sent=tokens)


@edge("degenerate")
@requirement(
    R.S5_3_STATE_HOLDERS_ONLY,
    R.S4_3_CONSUMABLE_FOR_LLM,
    R.S4_3_CONSUMABLE_CLEARED_AFTER_DELIVERY,
    R.S4_3_SESSION_NOT_CLEARED,
)
@pytest.mark.parametrize("text", DEGENERATE_TEXTS, ids=ascii)
def test_blank_items_are_items_like_any_other(execution: Execution, text: str) -> None:
    """An empty, white-space-only or newline-only item is kept exactly, sent when Consumable, cleared when delivered."""
    for name, classification in (("Notes", "Session"), ("Inbox", "Consumable")):
        execution.add(name, classification, serves=R.S5_3_STATE_HOLDERS_ONLY)
        for item in (text, "after", text):
            execution.append(name, item, serves=R.S5_3_STATE_HOLDERS_ONLY)
    items = [text, "after", text]
    kept = held(execution, "Session") | held(execution, "Consumable")
    expected = {key("Notes"): items, key("Inbox"): items}
    check_equal(R.S5_3_STATE_HOLDERS_ONLY, kept, expected, "the registers holding blank items", sent=text)
    lanes = input_lanes(execution.compose(serves=R.S4_3_CONSUMABLE_FOR_LLM))
    check_equal(R.S4_3_CONSUMABLE_FOR_LLM, lanes, {key("Inbox"): items}, "the input items of the request", sent=text)
    execution.delivered(serves=R.S4_3_CONSUMABLE_CLEARED_AFTER_DELIVERY)
    gone = held(execution, "Consumable")
    check_equal(R.S4_3_CONSUMABLE_CLEARED_AFTER_DELIVERY, gone, {}, "the Consumable items after delivery", sent=text)
    check_equal(R.S4_3_SESSION_NOT_CLEARED, held(execution, "Session"), {key("Notes"): items}, "the Session items")


@edge("degenerate")
@requirement(
    R.S4_1_HOLDS_ALL_PROMPT_CONTEXT,
    R.S3_MULTI_INVOCATION_FLOWS,
    R.S7_3_STEPS_LIST,
    R.S7_3_TOKEN_TOTALS,
    R.S7_3_ORDER_IMPLIES_INVOCATION_ORDER,
)
@pytest.mark.parametrize("registers_", [(), ("Session",), ("Consumable",), ("Session", "Consumable")], ids=repr)
def test_an_empty_provider_composes_an_empty_request(execution: Execution, registers_: tuple[str, ...]) -> None:
    """A provider with only its manifest, or empty registers, composes no input item, invocation after invocation.

    Each invocation has its trace (the flow's); the order they are listed in is 7.3's. An empty request uses no
    tokens: its trace ended with counts of 0 refused as invalid is the token totals' fault (7.3).
    """
    rid = R.S4_1_HOLDS_ALL_PROMPT_CONTEXT
    for classification in registers_:
        execution.add(f"Empty{classification}", classification, serves=rid)
    for _ in range(2):
        execution.begin(serves=R.S3_MULTI_INVOCATION_FLOWS)
        check_equal(rid, execution.compose(serves=rid)["input"], [], "the input items of an empty provider")
        execution.delivered(serves=R.S3_MULTI_INVOCATION_FLOWS)
        ended = execution.op("end_trace", serves=R.S3_MULTI_INVOCATION_FLOWS, tokens=NO_TOKENS, summary={})
        if ended.code == "INVALID_REQUEST":  # counts of 0 taken for no counts: the totals' fault, not the flow's
            ended = replace(ended, serves=TOKENS)
        ended.result  # noqa: B018 - reading the result checks it
        execution.tracing = False
    traces = execution.traces(R.S7_3_STEPS_LIST)
    numbers = [trace.get("invocation") for trace in traces]
    check_equal(R.S3_MULTI_INVOCATION_FLOWS, sorted(numbers, key=repr), [1, 2], "the invocations of an empty provider's requests")
    check_equal(R.S7_3_ORDER_IMPLIES_INVOCATION_ORDER, numbers, [1, 2], "the order of an empty provider's traces")
    steps = [trace.get("steps") for trace in traces]
    check_equal(R.S7_3_STEPS_LIST, steps, [[], []], "the steps of traces with no step")


def _case(register: Json, rid: str, name: str) -> Any:
    return pytest.param(register, rid, id=name, marks=requirement(rid))


def _register(name: object = "Notes", classification: object = "Session", items: object = ("x",)) -> Json:
    return {"name": name, "classification": classification, "items": list(items) if isinstance(items, tuple) else items}


def _wrong(*, lists: bool = True, strings: bool = True) -> list[object]:
    """The kit's wrong-type values, without lists of strings or strings where those are well formed."""
    keep = [v for v in WRONG_TYPES if not (isinstance(v, str) and not strings)]
    return [v for v in keep if lists or not (isinstance(v, list) and all(isinstance(i, str) for i in v))]


STORED: Final = [
    *(_case(_register(name=v), R.S4_2_STABLE_NAME, f"name-{v!r}") for v in _wrong()),
    *(_case(_register(classification=v), R.S3_EXACTLY_TWO_CLASSIFICATIONS, f"class-{v!r}") for v in _wrong()),
    *(_case(_register(items=v), CONTAINMENT, f"items-{v!r}") for v in [*_wrong(lists=False), "abc"]),
    *(_case(_register(items=(v,)), CONTAINMENT, f"item-{v!r}") for v in _wrong(strings=False)),
    *(
        _case({"name": MANIFEST, "classification": "Consumable", "items": [{**tool_call(1), f: None}]}, RECORDS, f)
        for f in RECORD_FIELDS
    ),
]


@edge("stored-records")
@pytest.mark.parametrize(("register", "rid"), STORED)
def test_a_stored_register_with_null_or_wrongly_typed_fields_is_refused(
    implementation: Implementation, register: Json, rid: str
) -> None:
    """A serialized provider whose register has a null or wrongly typed name, classification or items is not rehydrated."""
    manifest = {"name": MANIFEST, "classification": "Consumable", "items": []}
    document = {"registers": [register] if register["name"] == MANIFEST else [manifest, register]}
    target = Execution(implementation)
    target.send("rehydrate", {"executionId": target.execution_id, "provider": document}, serves=rid).refused(rid)
    target.op("get_provider", serves=rid).refused(rid, "PROVIDER_NOT_FOUND")


@edge("two-writers")
@requirement(R.S6_2_PERSIST_AND_REHYDRATE, R.S6_2_DURABLE_ACROSS_RESTART)
def test_two_instances_persist_side_by_side(implementation: Implementation) -> None:
    """Providers persisted by two instances on one state are both kept, each rehydrated by the other instance.

    A provider persisted before the second instance starts is first read back by it: that is keeping beyond the
    writer's process, as across a restart (6.2's durability). Those the two persist while both run must then not be
    lost to each other (6.2's interface: what was persisted is given again).
    """
    rid = R.S6_2_PERSIST_AND_REHYDRATE
    durable = R.S6_2_DURABLE_ACROSS_RESTART
    saved: dict[str, tuple[Implementation, Json]] = {}

    def persist(writer: Implementation, served: str) -> str:
        session = new_id("session")
        with fresh_execution(writer) as execution:
            execution.add("Notes", "Session", serves=served)
            execution.append("Notes", session, serves=served)
            saved[session] = (writer, execution.registers(served))
            execution.persist(session, serves=served)
        return session

    first = persist(implementation, rid)
    with second_instance(implementation, SPEC) as other:
        copy = rehydrated(other, durable, sessionId=first)
        check_equal(durable, copy.registers(durable), saved[first][1], "a provider persisted before this instance started")
        copy.end_execution()
        both = [persist(writer, rid) for writer in (other, implementation)]
        for session in both:
            writer, provider = saved[session]
            reader = other if writer is implementation else implementation
            copy = rehydrated(reader, rid, sessionId=session)
            check_equal(rid, copy.registers(rid), provider, "a provider the other instance persisted")
            copy.end_execution()
