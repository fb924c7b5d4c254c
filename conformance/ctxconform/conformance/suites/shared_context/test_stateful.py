"""Stateful differential test: random operation sequences against the implementation and the reference side by side."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, ClassVar, Final

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, rule, run_state_machine_as_test

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance._inprocess import InProcessTransport
from ctxconform.conformance.exceptions import RequirementFailure
from ctxconform.conformance.suites.shared_context.client import Outcome, Session, new_session_id
from ctxconform.reference import Reference

KEYS: Final = st.sampled_from(["current_phase", "problem_summary", "scope", "open_questions", "k1", "x" * 64])
BAD_KEYS: Final = st.sampled_from(["", "Scope", "phase.status", "inv:findings", "x" * 65, "a-b", "caf\u00e9"])
PARTICIPANTS: Final = st.sampled_from(["orchestrator", "subagent:analysis", "subagent:analysis:3"])
# Lengths are multiples of four, so every reading of len/4 gives the same count; 0 is left out for the same reason.
TOKENS: Final = st.one_of(st.integers(1, 40), st.integers(900, 1000), st.integers(1001, 1010))
FILLER: Final = st.characters(codec="utf-8", exclude_categories=["Cs"])

# What a mismatch breaks, by action, and by the error code the reference gave.
BY_ACTION: Final = {
    "list_keys": "shared-context/3.1/returns-all-keys",
    "read": "shared-context/3.2/returns-value",
    "write": "shared-context/3.3/version-increments",
    "delete": "shared-context/3.4/removes-key",
    "create_session": "shared-context/8.4/create-empty-store",
    "archive_session": "shared-context/8.4/archive-read-only",
    "delete_session": "shared-context/8.4/delete-session-gone",
}
BY_CODE: Final = {
    "KEY_NOT_FOUND": "shared-context/5/key-not-found",
    "VALUE_TOO_LARGE": "shared-context/5/value-too-large",
    "STORE_FULL": "shared-context/5/store-full",
    "INVALID_KEY": "shared-context/5/invalid-key-on-write",
    "SESSION_NOT_FOUND": "shared-context/5/session-not-found",
    "SESSION_ARCHIVED": "shared-context/5/session-archived",
}


def oracle() -> Implementation:
    """The reference, in memory, driven through the same protocol path as the implementation under test."""
    reference = Implementation(
        "oracle", InProcessTransport(lambda: Reference(store_url="memory:")), Path(tempfile.mkdtemp(prefix="ctxconform-oracle-"))
    )
    reference.start()
    return reference


def comparable(action: str, result: Any) -> Any:
    """Drop what may differ between two conforming implementations: timestamps, warnings, key order."""
    if action == "list_keys":
        keys = sorted((_without(k, "written_at") for k in result["keys"]), key=lambda k: str(k["key"]))
        return {**_without(result, "written_at", "total_size_tokens"), "keys": keys}
    return _without(result, "written_at", "warning")


def _without(mapping: dict[str, Any], *names: str) -> dict[str, Any]:
    return {k: v for k, v in mapping.items() if k not in names}


def agree(action: str, actual: Outcome, expected: Outcome, *, archived: bool) -> None:
    """Fail with the right requirement id unless the implementation answered as the reference did."""
    if not expected.ok:
        if archived and expected.code == "SESSION_ARCHIVED":
            actual.refused("shared-context/5/session-archived", "SESSION_ARCHIVED")
        else:
            actual.refused(BY_CODE.get(str(expected.code), BY_ACTION[action]), str(expected.code))
        return
    if archived and action in ("read", "list_keys") and actual.code == "SESSION_ARCHIVED":
        return  # the other accepted reading of reads on an archived session
    got, want = comparable(action, actual.expect(BY_ACTION[action])), comparable(action, expected.result)
    if got != want:
        raise RequirementFailure(BY_ACTION[action], f"{action}: implementation answered {got!r}, the reference {want!r}")


class SharedContextMachine(RuleBasedStateMachine):
    """Both implementations get the same calls; every answer must agree, modulo timestamps and accepted readings."""

    implementation: ClassVar[Implementation]
    reference: ClassVar[Implementation]
    sessions = Bundle("sessions")

    def __init__(self) -> None:
        super().__init__()
        self.archived: set[str] = set()
        self.live: set[str] = set()

    def both(self, session_id: str, participant: str = "orchestrator") -> tuple[Session, Session]:
        """The same session in the implementation and in the reference."""
        return Session(self.implementation, session_id, participant), Session(self.reference, session_id, participant)

    def call(self, action: str, session_id: str, participant: str, request: dict[str, Any] | None) -> None:
        """Make one call on both and compare."""
        mine, theirs = self.both(session_id, participant)
        if request is None:
            actual, expected = mine.lifecycle(action), theirs.lifecycle(action)
        else:
            actual, expected = mine.tool(request), theirs.tool(request)
        agree(action, actual, expected, archived=session_id in self.archived)

    @rule(target=sessions)
    def create_session(self) -> str:
        """Create a session in both."""
        session_id = new_session_id()
        self.call("create_session", session_id, "system", None)
        self.live.add(session_id)
        return session_id

    @rule(session_id=sessions, participant=PARTICIPANTS, key=KEYS, tokens=TOKENS, motif=st.text(FILLER, min_size=1, max_size=8))
    def write(self, session_id: str, participant: str, key: str, tokens: int, motif: str) -> None:
        """Write a value of a known token count, built from a short generated motif (drawing 4000 characters is slow)."""
        value = (motif * (4 * tokens))[: 4 * tokens]
        self.call("write", session_id, participant, {"action": "write", "key": key, "value": value})

    @rule(session_id=sessions, key=BAD_KEYS)
    def write_bad_key(self, session_id: str, key: str) -> None:
        """Write under a key outside the naming rules."""
        self.call("write", session_id, "orchestrator", {"action": "write", "key": key, "value": "v" * 8})

    @rule(session_id=sessions, participant=PARTICIPANTS, key=KEYS)
    def read(self, session_id: str, participant: str, key: str) -> None:
        """Read a key, present or not."""
        self.call("read", session_id, participant, {"action": "read", "key": key})

    @rule(session_id=sessions, participant=PARTICIPANTS, key=KEYS)
    def delete(self, session_id: str, participant: str, key: str) -> None:
        """Delete a key, present or not."""
        self.call("delete", session_id, participant, {"action": "delete", "key": key})

    @rule(session_id=sessions, participant=PARTICIPANTS)
    def list_keys(self, session_id: str, participant: str) -> None:
        """List a session's keys."""
        self.call("list_keys", session_id, participant, {"action": "list_keys"})

    @rule(session_id=sessions)
    def archive_session(self, session_id: str) -> None:
        """Archive a session (idempotent in the reference)."""
        if session_id in self.live:
            self.call("archive_session", session_id, "system", None)
            self.archived.add(session_id)

    @rule(session_id=consumes(sessions))
    def delete_session(self, session_id: str) -> None:
        """Delete a session; later calls to it must get SESSION_NOT_FOUND."""
        self.call("delete_session", session_id, "system", None)
        self.live.discard(session_id)
        self.call("list_keys", session_id, "orchestrator", {"action": "list_keys"})

    def teardown(self) -> None:
        """Delete what this run created, so the implementation's store stays small."""
        for session_id in self.live:
            for side in self.both(session_id):
                side.lifecycle("delete_session")


@pytest.mark.requirement(
    "shared-context/4.4/last-write-wins",
    "shared-context/3.3/version-increments",
    "shared-context/3.3/creates-or-overwrites",
    "shared-context/3.1/returns-all-keys",
    "shared-context/3.2/returns-value",
    "shared-context/3.4/removes-key",
    "shared-context/4.2/store-size-limit",
    "shared-context/8.1/per-session-isolation",
    "shared-context/8.4/create-empty-store",
    "shared-context/8.4/archive-read-only",
    "shared-context/8.4/delete-session-gone",
    "shared-context/5/key-not-found",
    "shared-context/5/value-too-large",
    "shared-context/5/store-full",
    "shared-context/5/invalid-key-on-write",
    "shared-context/5/session-not-found",
    "shared-context/5/session-archived",
)
def test_random_operation_sequences_agree_with_the_reference(implementation: Implementation) -> None:
    """Random writes, reads, deletes, lists and lifecycle calls over sessions and participants agree with the reference."""
    reference = oracle()
    machine = type("Machine", (SharedContextMachine,), {"implementation": implementation, "reference": reference})
    try:
        run_state_machine_as_test(machine)
    finally:
        reference.stop()
