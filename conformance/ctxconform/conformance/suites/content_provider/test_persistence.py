"""Persistence (sections 3, 4.3, 4.4, 5.2 and 6.2): rehydrate(persist(p)) = p, across restarts too."""

from __future__ import annotations

from typing import Any, Final

import pytest

from ctxconform.conformance.suites.content_provider import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.content_provider.client import (
    MANIFEST,
    SESSION_ITEMS,
    Execution,
    expect_request,
    fresh_execution,
    input_lanes,
    key,
    names_are_exact,
    new_id,
    populate,
    register_view,
    registers,
    rehydrated,
    tool_call,
)
from ctxconform.conformance.testing import Implementation, check_equal, requirement

ROUND_TRIP: Final = R.S6_2_PERSIST_AND_REHYDRATE
SOLELY: Final = R.S5_2_COMPOSED_SOLELY_OF_REGISTERS
Json = dict[str, Any]


def manifest(*records: Json) -> Json:
    """A serialized ToolCallManifest holding `records`."""
    return {"name": MANIFEST, "classification": "Consumable", "items": list(records)}


def document(*extra: Json) -> Json:
    """A serialized provider: a manifest with one record, and `extra` registers."""
    return {"registers": [manifest(tool_call(1)), *extra]}


def not_rehydrated(implementation: Implementation, provider: object, requirement_id: str, *codes: str) -> None:
    """Check that rehydrating `provider` into a new execution is refused (with one of `codes`), and creates no provider."""
    target = Execution(implementation)
    target.send("rehydrate", {"executionId": target.execution_id, "provider": provider}, serves=requirement_id).refused(
        requirement_id, *codes
    )
    target.op("get_provider", serves=requirement_id).refused(requirement_id, "PROVIDER_NOT_FOUND")


@requirement(ROUND_TRIP)
def test_rehydrating_a_persisted_provider_gives_it_back(implementation: Implementation, execution: Execution) -> None:
    """A provider persisted under a session id comes back equal, from the session id and from the serialized provider."""
    populate(execution)
    execution.append("Inbox", "  exact  \n")
    session = new_id("session")
    saved = execution.persist(session)
    original = execution.registers()
    check_equal(ROUND_TRIP, registers(saved), original, "the provider persist answered")
    for source in ({"sessionId": session}, {"provider": saved}):
        copy = rehydrated(implementation, ROUND_TRIP, **source)
        check_equal(ROUND_TRIP, copy.registers(ROUND_TRIP), original, f"the provider rehydrated from {next(iter(source))}")
        copy.end_execution()


@requirement(ROUND_TRIP)
def test_a_persisted_provider_is_a_copy_and_a_new_persist_replaces_it(
    implementation: Implementation, execution: Execution
) -> None:
    """Changes after persist do not reach the saved provider until it is persisted again, which replaces it."""
    session = new_id("session")
    execution.add("Notes", "Session")
    execution.append("Notes", "before")
    first = execution.registers()
    execution.persist(session)
    execution.append("Notes", "after")
    copy = rehydrated(implementation, ROUND_TRIP, sessionId=session)
    check_equal(ROUND_TRIP, copy.registers(ROUND_TRIP), first, "the saved provider after the live one changed")
    execution.persist(session)
    again = rehydrated(implementation, ROUND_TRIP, sessionId=session)
    check_equal(ROUND_TRIP, again.registers(ROUND_TRIP), execution.registers(), "the saved provider after a second persist")
    copy.end_execution()
    again.end_execution()


@requirement(ROUND_TRIP)
def test_rehydrating_an_unknown_session_gives_nothing_saved(implementation: Implementation) -> None:
    """A session id nothing was persisted under gives no saved provider.

    It is refused with SESSION_NOT_FOUND and no provider is created (the reference), or gives the execution a new
    provider holding only an empty ToolCallManifest (the other reading of 6.2).
    """
    target = Execution(implementation)
    outcome = target.op("rehydrate", sessionId=new_id("never-saved"))
    if outcome.ok:
        found = registers(outcome.expect(ROUND_TRIP)["provider"])
        check_equal(ROUND_TRIP, found, registers({"registers": [manifest()]}), "the provider of a session never saved")
        check_equal(ROUND_TRIP, target.registers(ROUND_TRIP), found, "the provider the execution holds")
        target.end_execution()
        return
    outcome.refused(ROUND_TRIP, "SESSION_NOT_FOUND")
    target.op("get_provider", serves=ROUND_TRIP).refused(ROUND_TRIP, "PROVIDER_NOT_FOUND")


@requirement(R.S6_2_DURABLE_ACROSS_RESTART)
def test_a_persisted_provider_survives_a_restart(implementation: Implementation) -> None:
    """A provider persisted before the implementation restarts (same state directory) is rehydrated equal afterwards."""
    durable = R.S6_2_DURABLE_ACROSS_RESTART
    session = new_id("session")
    with fresh_execution(implementation, ended=False) as execution:
        populate(execution)
        original = registers(execution.persist(session, durable))
    implementation.restart()
    copy = rehydrated(implementation, durable, sessionId=session)
    check_equal(durable, copy.registers(durable), original, "the provider rehydrated after a restart")
    copy.end_execution()


@requirement(R.S4_3_SESSION_PERSISTENT_ACROSS_CALLS)
def test_session_context_carries_into_the_next_request(implementation: Implementation, execution: Execution) -> None:
    """A rehydrated provider's Session items are in the next request's instructions."""
    populate(execution)
    execution.compose()
    execution.delivered()
    execution.append("Inbox", "follow-up question")
    session = new_id("session")
    execution.persist(session)
    following = rehydrated(implementation, sessionId=session)
    composed = following.compose()
    expect_request(composed, SESSION_ITEMS, {}, instructions=R.S4_3_SESSION_PERSISTENT_ACROSS_CALLS, inputs=None, separate=None)
    following.end_execution()


@requirement(ROUND_TRIP)
def test_undelivered_consumables_carry_into_the_next_request(implementation: Implementation, execution: Execution) -> None:
    """A rehydrated provider's next request carries the input items the persisted one would have.

    Each register's in order; the order across registers is free (4.3), and a serialized provider keeps none.
    """
    populate(execution)
    execution.compose()
    execution.delivered()
    execution.append("Inbox", "follow-up question")
    execution.persist(session := new_id("session"))
    expected = input_lanes(execution.compose())
    following = rehydrated(implementation, ROUND_TRIP, sessionId=session)
    found = input_lanes(following.compose(ROUND_TRIP))
    check_equal(ROUND_TRIP, found, expected, "the input items of the rehydrated provider, by register")
    following.end_execution()


@requirement(R.S4_4_MANIFEST_REQUIRED)
@pytest.mark.parametrize(
    "provider",
    [{"registers": []}, {"registers": [{"name": "Notes", "classification": "Session", "items": ["x"]}]}],
    ids=["no-registers", "no-manifest"],
)
def test_a_provider_without_a_manifest_is_never_rehydrated_without_one(implementation: Implementation, provider: Json) -> None:
    """Rehydrating a serialized provider without a ToolCallManifest never gives a provider without one.

    It is refused with MANIFEST_MISSING (the reference), or gives its registers with an empty ToolCallManifest added
    (the other reading of 4.4).
    """
    rid = R.S4_4_MANIFEST_REQUIRED
    target = Execution(implementation)
    outcome = target.send("rehydrate", {"executionId": target.execution_id, "provider": provider}, serves=rid)
    if not outcome.ok:
        outcome.refused(rid, "MANIFEST_MISSING")
        target.op("get_provider", serves=rid).refused(rid, "PROVIDER_NOT_FOUND")
        return
    expected = registers({"registers": [*provider["registers"], manifest()]})
    check_equal(rid, registers(outcome.expect(rid)["provider"]), expected, "the provider rehydrated, a manifest added")
    check_equal(rid, target.registers(rid), expected, "the provider the execution holds")
    target.end_execution()


@requirement(SOLELY)
@pytest.mark.parametrize(
    "extra", [{"traces": []}, {"pending": {"inbox": 1}}, {"sessionId": "s"}, {"metadata": {}}], ids=lambda e: next(iter(e))
)
def test_a_provider_holding_more_than_registers_is_refused(implementation: Implementation, extra: Json) -> None:
    """A serialized provider with anything beside its registers is refused, and no provider is created."""
    not_rehydrated(implementation, {**document(), **extra}, SOLELY)


MALFORMED_REGISTERS: Final = [
    pytest.param(
        {"name": "Notes", "classification": "Ephemeral", "items": []},
        R.S3_EXACTLY_TWO_CLASSIFICATIONS,
        ("UNKNOWN_CLASSIFICATION",),
        id="unknown-classification",
        marks=requirement(R.S3_EXACTLY_TWO_CLASSIFICATIONS),
    ),
    pytest.param(
        {"name": "  ", "classification": "Session", "items": []},
        R.S4_2_STABLE_NAME,
        ("BLANK_NAME",),
        id="blank-name",
        marks=requirement(R.S4_2_STABLE_NAME),
    ),
    pytest.param(
        {"name": "Notes", "classification": "Session", "items": [{"name": "Inner", "classification": "Session", "items": []}]},
        R.S5_2_REGISTERS_ONLY_CONTAINMENT,
        (),
        id="nested-register",
        marks=requirement(R.S5_2_REGISTERS_ONLY_CONTAINMENT),
    ),
    pytest.param({"name": "Notes", "classification": "Session"}, SOLELY, (), id="no-items", marks=requirement(SOLELY)),
    pytest.param(
        {"name": "Notes", "classification": "Session", "items": [], "children": []},
        R.S5_2_REGISTERS_ONLY_CONTAINMENT,
        (),
        id="children",
        marks=requirement(R.S5_2_REGISTERS_ONLY_CONTAINMENT),
    ),
]


@pytest.mark.parametrize(("register", "rid", "codes"), MALFORMED_REGISTERS)
def test_a_provider_with_a_malformed_register_is_refused(
    implementation: Implementation, register: Json, rid: str, codes: tuple[str, ...]
) -> None:
    """Unknown classifications, blank names, nested registers and odd fields in a serialized provider are refused."""
    not_rehydrated(implementation, document(register), rid, *codes)


CLASHING_REGISTERS: Final = [
    pytest.param(
        [{**manifest(), "classification": "Session"}],
        R.S4_4_MANIFEST_CONSUMABLE,
        ("CLASSIFICATION_CONFLICT",),
        id="session-manifest",
        marks=requirement(R.S4_4_MANIFEST_CONSUMABLE),
    ),
    pytest.param(
        [
            manifest(),
            {"name": "Notes", "classification": "Session", "items": []},
            {"name": "NOTES", "classification": "Consumable", "items": []},
        ],
        R.S4_2_STABLE_NAME,
        ("INVALID_REQUEST", "CLASSIFICATION_CONFLICT"),
        id="same-name-twice",
        marks=requirement(R.S4_2_STABLE_NAME),
    ),
    pytest.param(
        [manifest(), manifest()],
        R.S4_2_STABLE_NAME,
        ("INVALID_REQUEST", "CLASSIFICATION_CONFLICT"),
        id="two-manifests",
        marks=requirement(R.S4_2_STABLE_NAME),
    ),
    pytest.param(
        [{**manifest(), "items": ["text in the manifest"]}],
        R.S4_4_MANIFEST_RECORDS,
        (),
        id="text-in-manifest",
        marks=requirement(R.S4_4_MANIFEST_RECORDS),
    ),
]


@pytest.mark.parametrize(("registers_", "rid", "codes"), CLASHING_REGISTERS)
def test_a_provider_whose_registers_clash_is_refused(
    implementation: Implementation, registers_: list[Json], rid: str, codes: tuple[str, ...]
) -> None:
    """A Session manifest, a name used twice or text in the manifest make a serialized provider unusable.

    Two names differing only in case clash where names are compared without regard to case; where they are exact
    keys (the other reading of 4.2/stable-name) they are two registers, rehydrated as such.
    """
    names = [register["name"] for register in registers_]
    if len(set(names)) == len(names) and len({key(name) for name in names}) < len(names) and names_are_exact(implementation):
        copy = rehydrated(implementation, rid, provider={"registers": registers_})
        found = [register_view(register) for register in copy.document(rid)["registers"]]
        check_equal(rid, sorted(found, key=lambda r: r["name"]), sorted(registers_, key=lambda r: r["name"]), "the registers")
        copy.end_execution()
        return
    not_rehydrated(implementation, {"registers": registers_}, rid, *codes)


@requirement(R.S3_INDEPENDENT_OF_CHOREOGRAPHY)
def test_what_a_provider_holds_does_not_depend_on_the_invocations_around_it(implementation: Implementation) -> None:
    """Two providers given the same items serialize alike, whether or not requests, failures and traces came in between."""
    rid = R.S3_INDEPENDENT_OF_CHOREOGRAPHY
    with fresh_execution(implementation) as plain, fresh_execution(implementation) as busy:
        populate(plain)
        busy.begin()
        populate(busy)
        busy.compose()
        busy.failed()
        busy.step({"kind": "retry"})
        busy.compose()
        busy.failed()
        busy.end({"prompt": 1, "completion": 0, "total": 1}, {"status": "failed"})
        check_equal(rid, busy.registers(rid), plain.registers(rid), "the registers of a provider that saw invocations")
        saved_busy = registers(busy.persist(new_id("session"), rid))
        saved_plain = registers(plain.persist(new_id("session"), rid))
        check_equal(rid, saved_busy, saved_plain, "the saved form of a provider that saw invocations")
