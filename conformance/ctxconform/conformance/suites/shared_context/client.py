"""A shared-context session as a test sees it: calls through the harness, results checked against the schemas."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance._outcome import CheckedReply
from ctxconform.conformance._protocol import Reply
from ctxconform.conformance._schemas import schema_errors
from ctxconform.conformance._unique import unique_hex
from ctxconform.conformance.exceptions import RequirementFailure

__all__ = ["SPEC", "Outcome", "Session", "fresh_session", "new_session_id", "token_readings"]

SPEC: Final = "shared-context"
Json = dict[str, Any]

# The requirement a malformed response breaks, per action.
_SHAPES: Final = {
    "list_keys": "shared-context/3.1/request-and-response-shape",
    "read": "shared-context/3.2/request-and-response-shape",
    "write": "shared-context/3.3/request-and-response-shape",
    "delete": "shared-context/3.4/request-and-response-shape",
    "read_batch": "shared-context/7.4/read-batch",
    "read_history": "shared-context/7.3/read-history-action",
    "snapshot": "shared-context/7.6/snapshot",
    "read_snapshot": "shared-context/7.6/snapshot",
    "create_session": "shared-context/8.4/create-empty-store",
    "archive_session": "shared-context/8.4/archive-read-only",
    "delete_session": "shared-context/8.4/delete-session-gone",
}
_ERROR_SHAPE: Final = "shared-context/5/error-code-and-message"


def token_readings(length: int) -> frozenset[int]:
    """Every accepted reading of `len(value) / 4` for a value of `length` characters (spec 8.2)."""
    exact = length / 4
    return frozenset({length // 4, -(-length // 4), round(exact), int(exact + 0.5), max(1, length // 4)})


def new_session_id() -> str:
    """Return a session id no other test uses."""
    return f"ctxconform-{unique_hex(16)}"


@dataclass(frozen=True)
class Outcome(CheckedReply):
    """A checked reply: a result that matches its schema, or an error with a known code and a message."""

    @property
    def result(self) -> Json:
        """The result, checked against the action's schema; a failure naming the shape requirement otherwise."""
        if not self.reply.ok:
            requirement = _SHAPES.get(self.action, _ERROR_SHAPE)
            raise RequirementFailure(requirement, f"{self.action} failed with {self.reply.error} where a result was expected")
        errors = schema_errors(f"{SPEC}/{self.action}.response.json", self.reply.result) if self.action else []
        if errors:
            raise RequirementFailure(
                _SHAPES[self.action], f"{self.action} response does not match its schema: {'; '.join(errors)}"
            )
        result: Json = self.reply.result
        return result

    def expect(self, requirement: str) -> Json:
        """Return the result, or fail `requirement` when the call was refused."""
        if not self.reply.ok:
            raise RequirementFailure(requirement, f"{self.action} was refused with {self.reply.error}")
        return self.result


class Session:
    """One shared-context session of the implementation under test, called as one participant."""

    def __init__(self, implementation: Implementation, session_id: str, participant: str = "orchestrator") -> None:
        self.implementation = implementation
        self.session_id = session_id
        self.participant = participant

    def as_participant(self, participant: str) -> Session:
        """Return the same session, called by another participant."""
        return Session(self.implementation, self.session_id, participant)

    def tool(self, request: object) -> Outcome:
        """Call the shared_context tool with any request (malformed ones too)."""
        context = {"session_id": self.session_id, "participant": self.participant}
        reply = self.implementation.call(SPEC, "shared_context", request, context)
        action = request.get("action") if isinstance(request, dict) else None
        return check(action if isinstance(action, str) and action in _SHAPES else "", reply)

    def list_keys(self) -> Outcome:
        """list_keys."""
        return self.tool({"action": "list_keys"})

    def read(self, key: object) -> Outcome:
        """Read one key."""
        return self.tool({"action": "read", "key": key})

    def write(self, key: object, value: object) -> Outcome:
        """Write one key."""
        return self.tool({"action": "write", "key": key, "value": value})

    def delete(self, key: object) -> Outcome:
        """Delete one key."""
        return self.tool({"action": "delete", "key": key})

    def lifecycle(self, op: str, **args: object) -> Outcome:
        """Call a system operation (create_session, archive_session, delete_session) on this session."""
        reply = self.implementation.call(SPEC, op, {"session_id": self.session_id, **args}, {"participant": "system"})
        return check(op, reply)

    def values(self) -> dict[str, tuple[str, int, str]]:
        """Read every key: {key: (value, version, written_by)}."""
        found = {}
        for meta in self.list_keys().result["keys"]:
            entry = self.read(meta["key"]).result
            found[entry["key"]] = (entry["value"], entry["version"], entry["written_by"])
        return found


@contextmanager
def fresh_session(implementation: Implementation, entries: Mapping[str, str] | None = None) -> Iterator[Session]:
    """A new session holding `entries`, created through the system operation and deleted afterwards."""
    created = Session(implementation, new_session_id())
    created.lifecycle("create_session").expect("shared-context/8.4/create-empty-store")
    try:
        for key, value in (entries or {}).items():
            created.write(key, value).expect("shared-context/3.3/creates-or-overwrites")
        yield created
    finally:
        if implementation.broken is None:
            created.lifecycle("delete_session")


def check(action: str, reply: Reply) -> Outcome:
    """Check an error reply against the error schema now; a result is checked when a test reads it."""
    if not reply.ok:
        errors = schema_errors(f"{SPEC}/error.json", reply.error)
        if errors:
            raise RequirementFailure(_ERROR_SHAPE, f"error object does not match the schema: {'; '.join(errors)}")
    return Outcome(reply, action)
