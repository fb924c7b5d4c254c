"""A shared-context session as a test sees it: tool actions and system operations, each charged to what it serves.

The spec has one agent-facing operation, the `shared_context` tool, whose actions each have their own request and
response shape; a reply is therefore checked against its action's schema and a malformed one charged to that
action's shape requirement, and a call that breaks down is charged to it too unless the test says otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, Final

from ctxconform.conformance.suites.shared_context import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.testing import (
    Checked,
    Client,
    Implementation,
    Operation,
    Operations,
    RequirementId,
    check,
    unique_hex,
)

__all__ = [
    "ARCHIVED_READ_CODES",
    "OPERATIONS",
    "REWRITE_READINGS",
    "SPEC",
    "TOKEN_READINGS",
    "Entries",
    "Session",
    "accepted",
    "fresh_session",
    "misjudged",
    "new_session",
    "new_session_id",
    "rewrite_reading",
    "rewrite_versions",
    "stored",
    "token_readings",
    "unchanged",
]

SPEC: Final = "shared-context"
TOOL: Final = "shared_context"
Json = dict[str, Any]
Entries = dict[str, tuple[Any, Any, Any]]  # key -> (value, version, written_by), as answered


def _action(requirement: str, feature: str | None = None) -> Operation:
    return Operation(requirement=requirement, feature=feature)


# The requirement a malformed answer of each action (or a broken call) breaks, and the feature an extension needs.
ACTIONS: Final[Mapping[str, Operation]] = {
    "list_keys": _action(R.S3_1_REQUEST_AND_RESPONSE_SHAPE),
    "read": _action(R.S3_2_REQUEST_AND_RESPONSE_SHAPE),
    "write": _action(R.S3_3_REQUEST_AND_RESPONSE_SHAPE),
    "delete": _action(R.S3_4_REQUEST_AND_RESPONSE_SHAPE),
    "read_batch": _action(R.S7_4_READ_BATCH, "read_batch"),
    "read_history": _action(R.S7_3_READ_HISTORY_ACTION, "read_history"),
    "snapshot": _action(R.S7_6_SNAPSHOT, "snapshot"),
    "read_snapshot": _action(R.S7_6_SNAPSHOT, "snapshot"),
}

OPERATIONS: Final = Operations(
    spec=SPEC,
    table={
        TOOL: Operation(requirement=R.S3_FOUR_OPERATIONS),
        "create_session": Operation(R.S8_4_CREATE_EMPTY_STORE, f"{SPEC}/create_session.response.json"),
        "archive_session": Operation(R.S8_4_ARCHIVE_READ_ONLY, f"{SPEC}/archive_session.response.json"),
        "delete_session": Operation(R.S8_4_DELETE_SESSION_GONE, f"{SPEC}/delete_session.response.json"),
    },
    error_schema=f"{SPEC}/error.json",
    error_requirement=R.S5_ERROR_CODE_AND_MESSAGE,
)


TOKEN_READINGS: Final[tuple[Callable[[int], int], ...]] = (
    lambda length: length // 4,  # rounded down
    lambda length: -(-length // 4),  # rounded up
    lambda length: round(length / 4),  # to nearest, halves to even
    lambda length: int(length / 4 + 0.5),  # to nearest, halves up
    lambda length: max(1, length // 4),  # rounded down, at least 1 (the origin implementation)
)
"""Each accepted reading of `len(value) / 4` (spec 8.2), as the token count of a value of `length` characters."""


def token_readings(length: int) -> frozenset[int]:
    """Every accepted reading of `len(value) / 4` for a value of `length` characters (spec 8.2)."""
    return frozenset(reading(length) for reading in TOKEN_READINGS)


ARCHIVED_READ_CODES: Final = ("SESSION_ARCHIVED", "SESSION_NOT_FOUND")
"""The codes a read of an archived session may be refused with, under 4.5's reading that context does not survive it."""

REWRITE_READINGS: Final = ("restart", "continue")
"""The readings of 3.3/rewrite-after-delete-version-one: a key written again after its delete starts at 1, or continues."""


def rewrite_versions(deleted: int) -> dict[str, int]:
    """The version the first write after a delete gives under each reading, for a key deleted at version `deleted`."""
    return {"restart": 1, "continue": deleted + 1}


def rewrite_reading(version: object, deleted: int) -> str | None:
    """The reading a rewrite's version follows (the key was deleted at version `deleted`), or None when it follows none."""
    return next((name for name, wanted in rewrite_versions(deleted).items() if version == wanted), None)


VALID_KEY: Final = re.compile("[a-z0-9_]{1,64}")
MAX_KEY_LENGTH: Final = 64
MAX_VALUE_CHARACTERS: Final = 4000  # 1000 tokens under every reading of len/4 (4.1/value-limit-boundary)


def misjudged(checked: Checked, key: object, value: object) -> RequirementId | None:
    """The rule a refused write was judged to break although it does not, or None when it names no such rule.

    A value of at most 4000 characters refused as VALUE_TOO_LARGE is within the limit (value-limit-boundary); a key
    of [a-z0-9_]{1,64} refused as INVALID_KEY is a valid key (key-max-length when it has 64 characters, else
    key-pattern). A refusal of such a write is that rule's failure, not the failure of what the write was for.
    """
    if checked.ok:
        return None
    if checked.code == "VALUE_TOO_LARGE" and isinstance(value, str) and len(value) <= MAX_VALUE_CHARACTERS:
        return R.S4_1_VALUE_LIMIT_BOUNDARY
    if checked.code == "INVALID_KEY" and isinstance(key, str) and VALID_KEY.fullmatch(key):
        return R.S4_3_KEY_MAX_LENGTH if len(key) == MAX_KEY_LENGTH else R.S4_3_KEY_PATTERN
    return None


def stored(checked: Checked, key: object, value: object, requirement: str, *, otherwise: str | None = None) -> Json:
    """The schema-checked answer of a write that must be taken, which holds `requirement`.

    A refusal fails the rule it misjudged (see `misjudged`), else `otherwise` (by default `requirement`).
    """
    if checked.ok:
        answer: Json = checked.expect(requirement)
        return answer
    blamed = misjudged(checked, key, value) or otherwise or requirement
    # Charged as the call's own: a write refused for a rule it does not break serves that rule.
    refused: Json = replace(checked, serves=blamed).expect(blamed)
    return refused


def new_session_id() -> str:
    """Return a session id no other test uses."""
    return f"ctxconform-{unique_hex(16)}"


class Session(Client):
    """One shared-context session of the implementation under test, called as one participant."""

    def __init__(self, implementation: Implementation, session_id: str, participant: str = "orchestrator") -> None:
        super().__init__(implementation, OPERATIONS)
        self.session_id = session_id
        self.participant = participant

    def as_participant(self, participant: str) -> Session:
        """Return the same session, called by another participant."""
        return Session(self.implementation, self.session_id, participant)

    def tool(self, request: object, *, serves: str | None = None, needs: str | None = None) -> Checked:
        """Call the shared_context tool with any request (malformed ones too); see the module docstring."""
        name = request.get("action") if isinstance(request, dict) else None
        action = ACTIONS.get(name) if isinstance(name, str) else None
        operation = action or Operation(R.S5_ERROR_CODE_AND_MESSAGE)
        context = {"session_id": self.session_id, "participant": self.participant}
        checked = self.call(TOOL, request, context, serves=serves or operation.requirement, needs=needs or ())
        if action is None:
            return replace(checked, operation=operation)
        schema = f"{SPEC}/{name}.response.json"
        return replace(checked, op=str(name), operation=replace(operation, schema=schema))

    def list_keys(self, *, serves: str | None = None) -> Checked:
        """list_keys."""
        return self.tool({"action": "list_keys"}, serves=serves)

    def read(self, key: object, *, serves: str | None = None) -> Checked:
        """Read one key."""
        return self.tool({"action": "read", "key": key}, serves=serves)

    def write(self, key: object, value: object, *, serves: str | None = None) -> Checked:
        """Write one key."""
        return self.tool({"action": "write", "key": key, "value": value}, serves=serves)

    def delete(self, key: object, *, serves: str | None = None) -> Checked:
        """Delete one key."""
        return self.tool({"action": "delete", "key": key}, serves=serves)

    def extension(self, request: Json, *, serves: str | None = None) -> Checked:
        """Call an optional extension action; the test is skipped unless the implementation declares its feature."""
        return self.tool(request, serves=serves, needs=ACTIONS[request["action"]].feature)

    def lifecycle(self, op: str, *, serves: str | None = None, **args: object) -> Checked:
        """Call a system operation (create_session, archive_session, delete_session) on this session."""
        served = serves or OPERATIONS.of(op).requirement
        return self.call(op, {"session_id": self.session_id, **args}, {"participant": "system"}, serves=served)

    def listing(self, requirement: str | None = None) -> dict[str, Json]:
        """list_keys as {key: metadata}; a refusal fails `requirement` (default: list_keys' shape)."""
        served = requirement or R.S3_1_REQUEST_AND_RESPONSE_SHAPE
        return {item["key"]: item for item in self.list_keys(serves=served).expect(served)["keys"]}

    def keys(self, requirement: str | None = None) -> list[str]:
        """The keys list_keys lists, sorted."""
        return sorted(self.listing(requirement))

    def values(self, requirement: str | None = None) -> Entries:
        """Read every key: {key: (value, version, written_by)}; refusals fail `requirement` (default: the shapes)."""
        found = {}
        for key in self.listing(requirement):
            entry = self.read(key, serves=requirement).expect(requirement or R.S3_2_REQUEST_AND_RESPONSE_SHAPE)
            found[entry["key"]] = (entry["value"], entry["version"], entry["written_by"])
        return found

    def state(self, requirement: str | None = None) -> tuple[Entries, Json]:
        """Everything observable about the store: every entry and the list_keys answer."""
        served = requirement or R.S3_1_REQUEST_AND_RESPONSE_SHAPE
        return self.values(requirement), self.list_keys(serves=served).expect(served)

    def put(self, key: str, value: str, requirement: str = R.S3_3_CREATES_OR_OVERWRITES) -> Json:
        """Write one key as setup and return the answer: a refusal fails `requirement`, or the rule it misjudged."""
        return stored(self.write(key, value, serves=requirement), key, value, requirement)

    def remove(self, key: str, requirement: str = R.S3_4_REMOVES_KEY) -> Json:
        """Delete one key as setup and return the answer: a refusal fails `requirement`."""
        answer: Json = self.delete(key, serves=requirement).expect(requirement)
        return answer

    def seed(self, entries: Mapping[str, str], requirement: str = R.S3_3_CREATES_OR_OVERWRITES) -> None:
        """Write `entries`, as setup: a refusal fails `requirement`."""
        for key, value in entries.items():
            self.put(key, value, requirement)


def accepted(checked: Checked, requirement: RequirementId | str) -> Json:
    """Check that a call `requirement` says must succeed did, and return its schema-checked result."""
    check(requirement, checked.ok, f"{checked.op} was refused", sent=checked.sent, received=checked.error)
    answer: Json = checked.expect(requirement)
    return answer


def unchanged(requirement: RequirementId | str, session: Session, before: tuple[Entries, Json], sent: object) -> None:
    """Check that the store is as it was before `sent`; a difference fails `requirement`."""
    after = session.state(requirement)
    check(
        requirement,
        after == before,
        "the refused request changed the store",
        sent=sent,
        received={"entries": after[0], "list_keys": after[1]},
        expected={"entries": before[0], "list_keys": before[1]},
    )


@contextmanager
def fresh_session(
    implementation: Implementation, entries: Mapping[str, str] | None = None, participant: str = "orchestrator"
) -> Iterator[Session]:
    """A new session holding exactly `entries`, created through the system operation and deleted afterwards.

    Keys a new session already holds are deleted first: that a new store is empty is create-empty-store's to check
    (with `new_session`), and a test of anything else must not fail because of them.
    """
    created = new_session(implementation, participant)
    # A participant of its own, so no test's participant has called the session before the test does.
    setup = created.as_participant("subagent:ctxconform_setup")
    try:
        for key in setup.keys(R.S8_4_CREATE_EMPTY_STORE):
            setup.remove(key, R.S8_4_CREATE_EMPTY_STORE)
        created.seed(entries or {})
        yield created
    finally:
        if implementation.broken is None:
            created.lifecycle("delete_session")


def new_session(implementation: Implementation, participant: str = "orchestrator") -> Session:
    """A session created through the system operation, as the implementation creates it; the caller deletes it."""
    created = Session(implementation, new_session_id(), participant)
    created.lifecycle("create_session").expect(R.S8_4_CREATE_EMPTY_STORE)
    return created
