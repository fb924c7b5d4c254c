"""Persistence (sections 3, 4.3, 4.4, 5.2 and 6.2): rehydrate(persist(p)) = p, across restarts too."""

from __future__ import annotations

from typing import Any, Final

import pytest

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance.suites.content_provider.client import (
    MANIFEST,
    SESSION_ITEMS,
    Execution,
    expect_request,
    fresh_execution,
    new_id,
    populate,
    registers,
    rehydrated,
    require,
    tool_call,
)

requirement = pytest.mark.requirement

ROUND_TRIP: Final = "content-provider/6.2/persist-and-rehydrate"
DURABLE: Final = "content-provider/6.2/durable-across-restart"
SOLELY: Final = "content-provider/5.2/composed-solely-of-registers"
Json = dict[str, Any]


def manifest(*records: Json) -> Json:
    """A serialized ToolCallManifest holding `records`."""
    return {"name": MANIFEST, "classification": "Consumable", "items": list(records)}


def document(*extra: Json) -> Json:
    """A serialized provider: a manifest with one record, and `extra` registers."""
    return {"registers": [manifest(tool_call(1)), *extra]}


def assert_not_rehydrated(implementation: Implementation, provider: object, requirement_id: str, *codes: str) -> None:
    """Rehydrating `provider` into a new execution is refused (with one of `codes`), and the execution has no provider."""
    target = Execution(implementation)
    target.send("rehydrate", {"executionId": target.execution_id, "provider": provider}, requirement_id).refused(
        requirement_id, *codes
    )
    target.call("get_provider").refused(requirement_id, "PROVIDER_NOT_FOUND")


@requirement(ROUND_TRIP)
def test_rehydrating_a_persisted_provider_gives_it_back(implementation: Implementation, execution: Execution) -> None:
    """A provider persisted under a session id comes back equal, from the session id and from the serialized provider."""
    populate(execution)
    execution.append("Inbox", "  exact  \n")
    saved = execution.persist(new_session := new_id("session"))
    original = execution.registers()
    require(registers(saved) == original, ROUND_TRIP, f"persist answered {saved}, the provider is {original}")
    for source in ({"sessionId": new_session}, {"provider": saved}):
        copy = rehydrated(implementation, ROUND_TRIP, **source)
        require(copy.registers() == original, ROUND_TRIP, f"rehydrated from {sorted(source)}: {copy.document()}")
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
    require(copy.registers() == first, ROUND_TRIP, f"the saved provider changed with the live one: {copy.document()}")
    execution.persist(session)
    again = rehydrated(implementation, ROUND_TRIP, sessionId=session)
    require(
        again.registers() == execution.registers(), ROUND_TRIP, f"a second persist did not replace the first: {again.document()}"
    )
    copy.end_execution()
    again.end_execution()


@requirement(ROUND_TRIP)
def test_rehydrating_an_unknown_session_is_refused(implementation: Implementation) -> None:
    """A session id nothing was persisted under is refused with SESSION_NOT_FOUND, and no provider is created."""
    target = Execution(implementation)
    target.call("rehydrate", sessionId=new_id("never-saved")).refused(ROUND_TRIP, "SESSION_NOT_FOUND")
    target.call("get_provider").refused(ROUND_TRIP, "PROVIDER_NOT_FOUND")


@requirement(DURABLE)
def test_a_persisted_provider_survives_a_restart(implementation: Implementation) -> None:
    """A provider persisted before the implementation restarts (same state directory) is rehydrated equal afterwards."""
    session = new_id("session")
    with fresh_execution(implementation, ended=False) as execution:
        populate(execution)
        original = registers(execution.persist(session, DURABLE))
    implementation.restart()
    copy = rehydrated(implementation, DURABLE, sessionId=session)
    require(copy.registers() == original, DURABLE, f"after a restart the session holds {copy.document()}")
    copy.end_execution()


@requirement("content-provider/4.3/session-persistent-across-calls")
def test_session_context_carries_into_the_next_request(implementation: Implementation, execution: Execution) -> None:
    """A rehydrated provider's Session items are in the next request's instructions; undelivered consumables are input."""
    lanes = populate(execution)
    execution.compose()
    execution.delivered()
    execution.append("Inbox", "follow-up question")
    session = new_id("session")
    execution.persist(session)
    following = rehydrated(implementation, ROUND_TRIP, sessionId=session)
    wanted: dict[str, list[object]] = {name: [] for name in lanes} | {"inbox": ["follow-up question"]}
    expect_request(
        following.compose(),
        SESSION_ITEMS,
        wanted,
        instructions_requirement="content-provider/4.3/session-persistent-across-calls",
    )
    following.end_execution()


@requirement("content-provider/4.4/manifest-required")
@pytest.mark.parametrize(
    "provider",
    [{"registers": []}, {"registers": [{"name": "Notes", "classification": "Session", "items": ["x"]}]}],
    ids=["no-registers", "no-manifest"],
)
def test_a_provider_without_a_manifest_is_refused(implementation: Implementation, provider: Json) -> None:
    """Rehydrating a serialized provider without a ToolCallManifest is refused with MANIFEST_MISSING."""
    assert_not_rehydrated(implementation, provider, "content-provider/4.4/manifest-required", "MANIFEST_MISSING")


@requirement(SOLELY)
@pytest.mark.parametrize(
    "extra", [{"traces": []}, {"pending": {"inbox": 1}}, {"sessionId": "s"}, {"metadata": {}}], ids=lambda e: next(iter(e))
)
def test_a_provider_holding_more_than_registers_is_refused(implementation: Implementation, extra: Json) -> None:
    """A serialized provider with anything beside its registers is refused, and no provider is created."""
    assert_not_rehydrated(implementation, {**document(), **extra}, SOLELY)


@pytest.mark.parametrize(
    ("register", "rid", "codes"),
    [
        (
            {"name": "Notes", "classification": "Ephemeral", "items": []},
            "content-provider/3/exactly-two-classifications",
            ("UNKNOWN_CLASSIFICATION",),
        ),
        ({"name": "  ", "classification": "Session", "items": []}, "content-provider/4.2/stable-name", ("BLANK_NAME",)),
        (
            {
                "name": "Notes",
                "classification": "Session",
                "items": [{"name": "Inner", "classification": "Session", "items": []}],
            },
            "content-provider/5.2/registers-only-containment",
            (),
        ),
        ({"name": "Notes", "classification": "Session"}, SOLELY, ()),
        (
            {"name": "Notes", "classification": "Session", "items": [], "children": []},
            "content-provider/5.2/registers-only-containment",
            (),
        ),
    ],
    ids=["unknown-classification", "blank-name", "nested-register", "no-items", "children"],
)
@requirement("content-provider/3/exactly-two-classifications", "content-provider/4.2/stable-name")
@requirement("content-provider/5.2/registers-only-containment", SOLELY)
def test_a_provider_with_a_malformed_register_is_refused(
    implementation: Implementation, register: Json, rid: str, codes: tuple[str, ...]
) -> None:
    """Unknown classifications, blank names, nested registers and odd fields in a serialized provider are refused."""
    assert_not_rehydrated(implementation, document(register), rid, *codes)


@requirement("content-provider/4.4/manifest-consumable", "content-provider/4.2/stable-name")
@pytest.mark.parametrize(
    ("registers_", "rid", "codes"),
    [
        ([{**manifest(), "classification": "Session"}], "content-provider/4.4/manifest-consumable", ("CLASSIFICATION_CONFLICT",)),
        (
            [
                manifest(),
                {"name": "Notes", "classification": "Session", "items": []},
                {"name": "NOTES", "classification": "Consumable", "items": []},
            ],
            "content-provider/4.2/stable-name",
            ("INVALID_REQUEST", "CLASSIFICATION_CONFLICT"),
        ),
        ([manifest(), manifest()], "content-provider/4.2/stable-name", ("INVALID_REQUEST", "CLASSIFICATION_CONFLICT")),
        ([{**manifest(), "items": ["text in the manifest"]}], "content-provider/4.4/manifest-records", ()),
    ],
    ids=["session-manifest", "same-name-twice", "two-manifests", "text-in-manifest"],
)
@requirement("content-provider/4.4/manifest-records")
def test_a_provider_whose_registers_clash_is_refused(
    implementation: Implementation, registers_: list[Json], rid: str, codes: tuple[str, ...]
) -> None:
    """A Session manifest, a name used twice (in any case) or text in the manifest make a serialized provider unusable."""
    assert_not_rehydrated(implementation, {"registers": registers_}, rid, *codes)


@requirement("content-provider/3/independent-of-choreography")
def test_what_a_provider_holds_does_not_depend_on_the_invocations_around_it(implementation: Implementation) -> None:
    """Two providers given the same items serialize alike, whether or not requests, failures and traces came in between."""
    rid = "content-provider/3/independent-of-choreography"
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
        require(busy.registers(rid) == plain.registers(rid), rid, f"{busy.document()}\nversus {plain.document()}")
        session = new_id("session")
        require(registers(busy.persist(session, rid)) == registers(plain.persist(session, rid)), rid, "the saved forms differ")
