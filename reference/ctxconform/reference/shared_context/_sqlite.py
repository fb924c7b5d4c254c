"""A durable SQLite store for shared context: one file, write-ahead log, one atomic step per operation, reads from memory."""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path
from types import TracebackType
from typing import Final, Self

from ctxconform.reference._sqlite import Database, Step
from ctxconform.reference.shared_context._model import Entry, Metadata, Session, SessionState
from ctxconform.reference.shared_context._store import ReadConflict, Transaction

__all__ = ["SQLiteStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    session_id TEXT PRIMARY KEY, state TEXT NOT NULL, total_tokens INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS entries (
    session_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, written_by TEXT NOT NULL,
    written_at TEXT NOT NULL, version INTEGER NOT NULL, tokens INTEGER NOT NULL,
    PRIMARY KEY (session_id, key));
CREATE TABLE IF NOT EXISTS history (
    session_id TEXT NOT NULL, key TEXT NOT NULL, version INTEGER NOT NULL, value TEXT NOT NULL,
    written_by TEXT NOT NULL, written_at TEXT NOT NULL, tokens INTEGER NOT NULL,
    PRIMARY KEY (session_id, key, version));
CREATE TABLE IF NOT EXISTS snapshots (
    session_id TEXT NOT NULL, label TEXT NOT NULL, taken_at TEXT NOT NULL,
    PRIMARY KEY (session_id, label));
CREATE TABLE IF NOT EXISTS snapshot_entries (
    session_id TEXT NOT NULL, label TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
    written_by TEXT NOT NULL, written_at TEXT NOT NULL, version INTEGER NOT NULL, tokens INTEGER NOT NULL,
    PRIMARY KEY (session_id, label, key));
"""

_ENTRY_COLUMNS = "key, written_by, written_at, version, tokens, value"
_UPDATE_ENTRY = (
    "UPDATE entries SET value = ?, written_by = ?, written_at = ?, version = ?, tokens = ? WHERE session_id = ? AND key = ?"
)
_INSERT_ENTRY = (
    "INSERT OR REPLACE INTO entries (value, written_by, written_at, version, tokens, session_id, key)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)
# The oldest retained version becomes the new one: the key keeps as many versions, and no row is freed or added.
_ROTATE_HISTORY = (
    "UPDATE OR REPLACE history SET value = ?, written_by = ?, written_at = ?, version = ?, tokens = ?"
    " WHERE session_id = ? AND key = ? AND version = ?"
)
_INSERT_HISTORY = (
    "INSERT OR REPLACE INTO history (value, written_by, written_at, version, tokens, session_id, key)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_TRIM_HISTORY = "DELETE FROM history WHERE session_id = ? AND key = ? AND version <= ?"
MAX_CACHED_SESSIONS: Final = 256
"""The most sessions a store keeps in memory for its reads; the oldest loaded is forgotten first."""


class SQLiteStore:
    """Sessions in one SQLite file; each operation is one atomic step, so it survives a killed process.

    Reads are served from memory: the sessions and entries this connection last saw, kept while SQLite's
    data_version says no other connection (in this process or another) has committed since. Concurrent steps
    share commits (see `Database`), so a busy server pays one fsync per group of writes, not per write.
    """

    def __init__(self, path: Path, synchronous: str = "FULL") -> None:
        self.path = path
        self._cache = _Cache()
        self._database = Database(path, _SCHEMA, synchronous, on_abort=self._cache.forget)

    def transaction(self) -> AbstractContextManager[Transaction]:
        """Open an atomic step: committed when the block ends (with any steps sharing its commit), rolled back if it raises."""
        return _SQLiteTransaction(self._database, self._cache, write=True)

    def reading(self) -> AbstractContextManager[Transaction]:
        """Open an atomic step that only reads: no write lock and no commit to wait for, unless writes are in flight."""
        return _SQLiteTransaction(self._database, self._cache, write=False)

    def batch(self) -> AbstractContextManager[None]:
        """Let the calling thread's steps in the block share one commit at its end (see `Database.batch`)."""
        return self._database.batch()

    def close(self) -> None:
        """Close the database file."""
        self._database.close()
        self._cache.forget()


class _Cached:
    """One session as this connection last saw it: its record, its entries by key, and their sorted metadata."""

    __slots__ = ("entries", "metadata", "session")

    def __init__(self, session: Session, entries: dict[str, Entry]) -> None:
        self.session = session
        self.entries = entries
        self.metadata: list[Metadata] | None = None


class _Cache:
    """The sessions reads need, valid for one data_version of the file; only the thread holding a step touches it."""

    def __init__(self) -> None:
        self.sessions: dict[str, _Cached] = {}
        self.version = -1
        self._mark: bytes | None = None  # the file's commit mark when the version was last asked for

    def check(self, db: sqlite3.Connection, mark: bytes | None, *, pin: bool = False) -> int:
        """Forget everything if another connection has committed since the last check; return the data_version.

        `mark` is the file's commit mark read just now: equal to the last one, it says nobody committed since,
        without asking SQLite; unless asked to `pin` (start the read transaction the step goes on reading in).
        """
        if not pin and mark is not None and mark == self._mark:
            return self.version
        version: int = db.execute("PRAGMA data_version").fetchone()[0]
        if version != self.version:
            self.sessions.clear()
            self.version = version
        self._mark = mark  # read before asking: a commit in between changes the mark, so the next check asks again
        return version

    def forget(self) -> None:
        """Forget every session: changes it held were rolled back."""
        self.sessions.clear()

    def load(self, db: sqlite3.Connection, session_id: str) -> _Cached | None:
        """Read a session and its entries from the file and hold them (forgetting the oldest held session when full)."""
        row = db.execute("SELECT state, total_tokens FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
        if row is None:
            return None
        rows = db.execute(f"SELECT {_ENTRY_COLUMNS} FROM entries WHERE session_id = ?", (session_id,))  # noqa: S608
        if len(self.sessions) >= MAX_CACHED_SESSIONS:
            del self.sessions[next(iter(self.sessions))]
        cached = self.sessions[session_id] = _Cached(Session(session_id, row[0], row[1]), {r[0]: Entry(*r) for r in rows})
        return cached


class _SQLiteTransaction(Step):
    """One step as a context manager, and the Transaction its block uses: reads from the cache, writes to both.

    A step that only reads, on its own, opens no SQLite transaction: one data_version check says the cache is
    the last committed state. Should it need the file after all (a session not in memory, a history, a snapshot),
    it opens a read transaction then, and if another connection committed in between after the step already
    answered from memory, it raises ReadConflict rather than mix two states in one answer.
    """

    __slots__ = ("_cache", "_changed", "_served")

    def __init__(self, database: Database, cache: _Cache, *, write: bool) -> None:
        super().__init__(database, write=write)
        self._cache = cache
        self._changed = False
        self._served = False

    def __enter__(self) -> Self:
        try:
            self._database.enter(self)
            if self.fresh:  # a write asks SQLite: its own last commit changed the mark anyway
                self._cache.check(self.db, None if self.write else self._database.commit_mark())
        except BaseException:
            self._database.leave(self, failed=True)  # a no-op unless the step holds the connection
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        if error is not None and self._changed:
            self._cache.forget()  # the step's changes are rolled back: so are the cache's
        self._database.leave(self, failed=error is not None)

    def session(self, session_id: str) -> Session | None:
        cached = self._held(session_id)
        return None if cached is None else cached.session

    def entry(self, session_id: str, key: str) -> Entry | None:
        cached = self._held(session_id)
        return None if cached is None else cached.entries.get(key)

    def metadata(self, session_id: str) -> list[Metadata]:
        cached = self._held(session_id)
        if cached is None:
            return []
        if cached.metadata is None:
            cached.metadata = [_meta(cached.entries[key]) for key in sorted(cached.entries)]
        return list(cached.metadata)

    def create_session(self, session_id: str) -> None:
        self._change()
        self.db.execute("INSERT INTO sessions VALUES (?, 'active', 0)", (session_id,))
        self._cache.sessions.pop(session_id, None)

    def set_state(self, session_id: str, state: SessionState) -> None:
        self._change()
        self.db.execute("UPDATE sessions SET state = ? WHERE session_id = ?", (state, session_id))
        cached = self._cache.sessions.get(session_id)
        if cached is not None:
            cached.session = Session(session_id, state, cached.session.total_tokens)

    def drop_session(self, session_id: str) -> None:
        self._change()
        for table in ("sessions", "entries", "history", "snapshots", "snapshot_entries"):
            self.db.execute(f"DELETE FROM {table} WHERE session_id = ?", (session_id,))  # noqa: S608 - fixed names
        self._cache.sessions.pop(session_id, None)

    def put(self, session_id: str, entry: Entry, total_tokens: int, keep_history: int) -> None:
        self._change()
        cached = self._cache.sessions.get(session_id)
        row = (entry.value, entry.written_by, entry.written_at, entry.version, entry.tokens, session_id, entry.key)
        # Rows are changed in place where they exist: a rewritten row stays on its page, where a replaced one
        # would move and free pages, and each page a commit touches is another page the WAL has to write.
        if cached is not None and entry.key in cached.entries:
            self.db.execute(_UPDATE_ENTRY, row)
        else:
            self.db.execute(_INSERT_ENTRY, row)
        oldest = entry.version - keep_history
        if oldest < 1 or self.db.execute(_ROTATE_HISTORY, (*row, oldest)).rowcount == 0:
            self.db.execute(_INSERT_HISTORY, row)
        if oldest >= 1:  # versions older than the rotated one remain when the depth has shrunk since they were written
            self.db.execute(_TRIM_HISTORY, (session_id, entry.key, oldest))
        self._set_total(session_id, total_tokens)
        if cached is not None:
            cached.entries[entry.key] = entry

    def remove(self, session_id: str, key: str, total_tokens: int) -> None:
        self._change()
        self.db.execute("DELETE FROM entries WHERE session_id = ? AND key = ?", (session_id, key))
        self.db.execute("DELETE FROM history WHERE session_id = ? AND key = ?", (session_id, key))
        self._set_total(session_id, total_tokens)
        cached = self._cache.sessions.get(session_id)
        if cached is not None:
            cached.entries.pop(key, None)

    def history(self, session_id: str, key: str) -> list[Entry]:
        rows = self._file().execute(
            f"SELECT {_ENTRY_COLUMNS} FROM history WHERE session_id = ? AND key = ? ORDER BY version",  # noqa: S608
            (session_id, key),
        )
        return [Entry(*row) for row in rows]

    def put_snapshot(self, session_id: str, label: str, taken_at: str) -> int:
        self._change()
        self.db.execute("DELETE FROM snapshot_entries WHERE session_id = ? AND label = ?", (session_id, label))
        self.db.execute("INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?)", (session_id, label, taken_at))
        cursor = self.db.execute(
            "INSERT INTO snapshot_entries SELECT session_id, ?, key, value, written_by, written_at, version, tokens"
            " FROM entries WHERE session_id = ?",
            (label, session_id),
        )
        return cursor.rowcount

    def snapshot(self, session_id: str, label: str) -> tuple[str, list[Entry]] | None:
        db = self._file()
        row = db.execute("SELECT taken_at FROM snapshots WHERE session_id = ? AND label = ?", (session_id, label)).fetchone()
        if row is None:
            return None
        rows = self.db.execute(
            f"SELECT {_ENTRY_COLUMNS} FROM snapshot_entries WHERE session_id = ? AND label = ? ORDER BY key",  # noqa: S608
            (session_id, label),
        )
        return row[0], [Entry(*r) for r in rows]

    def _held(self, session_id: str) -> _Cached | None:
        cached = self._cache.sessions.get(session_id)
        if cached is None:
            cached = self._cache.load(self._file(), session_id)
        self._served = True
        return cached

    def _file(self) -> sqlite3.Connection:
        """The connection, inside a transaction that sees the state the step has answered from so far."""
        if self.write or self._group is not None or self.began:
            return self.db
        before = self._cache.version
        self.db.execute("BEGIN")  # a read on its own: pin one snapshot for the rest of the step
        self.began = True
        if self._cache.check(self.db, self._database.commit_mark(), pin=True) != before and self._served:
            raise ReadConflict("another connection committed while this step was reading; read again")
        return self.db

    def _change(self) -> None:
        if not self.write:
            raise RuntimeError("a reading step cannot write: open it with transaction()")
        self._changed = True

    def _set_total(self, session_id: str, total_tokens: int) -> None:
        self.db.execute("UPDATE sessions SET total_tokens = ? WHERE session_id = ?", (total_tokens, session_id))
        cached = self._cache.sessions.get(session_id)
        if cached is not None:
            cached.session = Session(session_id, cached.session.state, total_tokens)
            cached.metadata = None


def _meta(entry: Entry) -> Metadata:
    return Metadata(entry.key, entry.written_by, entry.written_at, entry.version, entry.tokens)
