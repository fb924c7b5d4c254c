"""The storage interface of shared context, and the in-memory store used in tests."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from typing import Protocol

from ctxconform.reference.shared_context._model import Entry, Metadata, Session, SessionState

__all__ = ["MemoryStore", "ReadConflict", "Store", "Transaction", "reading_step"]


class Transaction(Protocol):
    """The primitive reads and writes of one atomic step against a store."""

    def session(self, session_id: str) -> Session | None:
        """Return the session, or None when it does not exist."""

    def create_session(self, session_id: str) -> None:
        """Create an empty active session."""

    def set_state(self, session_id: str, state: SessionState) -> None:
        """Move a session to another lifecycle state."""

    def drop_session(self, session_id: str) -> None:
        """Remove a session and everything it holds."""

    def entry(self, session_id: str, key: str) -> Entry | None:
        """Return the entry under a key, or None."""

    def metadata(self, session_id: str) -> list[Metadata]:
        """Return the metadata of every entry of a session, without values, ordered by key."""

    def put(self, session_id: str, entry: Entry, total_tokens: int, keep_history: int) -> None:
        """Store an entry, record it in the key's history and set the session's total."""

    def remove(self, session_id: str, key: str, total_tokens: int) -> None:
        """Remove an entry and set the session's total."""

    def history(self, session_id: str, key: str) -> list[Entry]:
        """Return the retained versions of a key, oldest first."""

    def put_snapshot(self, session_id: str, label: str, taken_at: str) -> int:
        """Freeze the session's current entries under a label; return how many were frozen."""

    def snapshot(self, session_id: str, label: str) -> tuple[str, list[Entry]] | None:
        """Return when a snapshot was taken and its entries, or None."""


class Store(Protocol):
    """A place that keeps sessions; every operation runs inside one transaction.

    A store may also offer `reading()`, a cheaper atomic step for operations that only read (see `reading_step`);
    such a step may raise ReadConflict, after which the caller runs the operation again in `transaction()`.
    """

    def transaction(self) -> AbstractContextManager[Transaction]:
        """Open an atomic step."""

    def close(self) -> None:
        """Release the store's resources."""


class ReadConflict(Exception):
    """Raised by a reading step that saw another connection commit mid-step; the step changed nothing."""


def reading_step(store: Store) -> AbstractContextManager[Transaction]:
    """Open an atomic step that only reads: the store's `reading()` when it has one, else an ordinary transaction."""
    opener: Callable[[], AbstractContextManager[Transaction]] = getattr(store, "reading", store.transaction)
    return opener()


class _MemorySession:
    def __init__(self, session_id: str) -> None:
        self.session = Session(session_id, "active", 0)
        self.entries: dict[str, Entry] = {}
        self.history: dict[str, list[Entry]] = {}
        self.snapshots: dict[str, tuple[str, list[Entry]]] = {}


class MemoryStore:
    """A store held in a dict: fast and isolated, but not durable; for tests only."""

    def __init__(self) -> None:
        self._sessions: dict[str, _MemorySession] = {}
        self._lock = threading.RLock()

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """Hold the store's lock for one atomic step."""
        with self._lock:
            yield _MemoryTransaction(self._sessions)

    def close(self) -> None:
        """Forget everything."""
        self._sessions.clear()


class _MemoryTransaction:
    def __init__(self, sessions: dict[str, _MemorySession]) -> None:
        self._sessions = sessions

    def session(self, session_id: str) -> Session | None:
        held = self._sessions.get(session_id)
        return None if held is None else held.session

    def create_session(self, session_id: str) -> None:
        self._sessions[session_id] = _MemorySession(session_id)

    def set_state(self, session_id: str, state: SessionState) -> None:
        held = self._sessions[session_id]
        held.session = replace(held.session, state=state)

    def drop_session(self, session_id: str) -> None:
        del self._sessions[session_id]

    def entry(self, session_id: str, key: str) -> Entry | None:
        return self._sessions[session_id].entries.get(key)

    def metadata(self, session_id: str) -> list[Metadata]:
        entries = self._sessions[session_id].entries
        return [_meta(entries[key]) for key in sorted(entries)]

    def put(self, session_id: str, entry: Entry, total_tokens: int, keep_history: int) -> None:
        held = self._sessions[session_id]
        held.entries[entry.key] = entry
        versions = held.history.setdefault(entry.key, [])
        versions.append(entry)
        del versions[:-keep_history]
        held.session = replace(held.session, total_tokens=total_tokens)

    def remove(self, session_id: str, key: str, total_tokens: int) -> None:
        held = self._sessions[session_id]
        del held.entries[key]
        held.history.pop(key, None)
        held.session = replace(held.session, total_tokens=total_tokens)

    def history(self, session_id: str, key: str) -> list[Entry]:
        return list(self._sessions[session_id].history.get(key, []))

    def put_snapshot(self, session_id: str, label: str, taken_at: str) -> int:
        held = self._sessions[session_id]
        frozen = [held.entries[key] for key in sorted(held.entries)]
        held.snapshots[label] = (taken_at, frozen)
        return len(frozen)

    def snapshot(self, session_id: str, label: str) -> tuple[str, list[Entry]] | None:
        return self._sessions[session_id].snapshots.get(label)


def _meta(entry: Entry) -> Metadata:
    return Metadata(entry.key, entry.written_by, entry.written_at, entry.version, entry.tokens)
