"""A durable SQLite store for shared context: one file, write-ahead log, one transaction per operation."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ctxconform.reference._sqlite import Database
from ctxconform.reference.shared_context._model import Entry, Metadata, Session, SessionState
from ctxconform.reference.shared_context._store import Transaction

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


class SQLiteStore:
    """Sessions in one SQLite file; each operation is one IMMEDIATE transaction, so it survives a killed process."""

    def __init__(self, path: Path, synchronous: str = "FULL") -> None:
        self.path = path
        self._database = Database(path, _SCHEMA, synchronous)

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """Run one atomic step: committed when the block ends, rolled back if it raises."""
        with self._database.transaction() as db:
            yield _SQLiteTransaction(db)

    def close(self) -> None:
        """Close the database file."""
        self._database.close()


class _SQLiteTransaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def session(self, session_id: str) -> Session | None:
        row = self._db.execute("SELECT state, total_tokens FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
        return None if row is None else Session(session_id, row[0], row[1])

    def create_session(self, session_id: str) -> None:
        self._db.execute("INSERT INTO sessions VALUES (?, 'active', 0)", (session_id,))

    def set_state(self, session_id: str, state: SessionState) -> None:
        self._db.execute("UPDATE sessions SET state = ? WHERE session_id = ?", (state, session_id))

    def drop_session(self, session_id: str) -> None:
        for table in ("sessions", "entries", "history", "snapshots", "snapshot_entries"):
            self._db.execute(f"DELETE FROM {table} WHERE session_id = ?", (session_id,))  # noqa: S608 - fixed names

    def entry(self, session_id: str, key: str) -> Entry | None:
        row = self._db.execute(
            f"SELECT {_ENTRY_COLUMNS} FROM entries WHERE session_id = ? AND key = ?",  # noqa: S608 - fixed names
            (session_id, key),
        ).fetchone()
        return None if row is None else Entry(*row)

    def metadata(self, session_id: str) -> list[Metadata]:
        rows = self._db.execute(
            "SELECT key, written_by, written_at, version, tokens FROM entries WHERE session_id = ? ORDER BY key",
            (session_id,),
        )
        return [Metadata(*row) for row in rows]

    def put(self, session_id: str, entry: Entry, total_tokens: int, keep_history: int) -> None:
        values = (session_id, entry.key, entry.value, entry.written_by, entry.written_at, entry.version, entry.tokens)
        self._db.execute("INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, ?, ?)", values)
        self._db.execute(
            "INSERT OR REPLACE INTO history VALUES (?, ?, ?, ?, ?, ?, ?)",
            (session_id, entry.key, entry.version, entry.value, entry.written_by, entry.written_at, entry.tokens),
        )
        self._db.execute(
            "DELETE FROM history WHERE session_id = ? AND key = ? AND version <= ?",
            (session_id, entry.key, entry.version - keep_history),
        )
        self._set_total(session_id, total_tokens)

    def remove(self, session_id: str, key: str, total_tokens: int) -> None:
        self._db.execute("DELETE FROM entries WHERE session_id = ? AND key = ?", (session_id, key))
        self._db.execute("DELETE FROM history WHERE session_id = ? AND key = ?", (session_id, key))
        self._set_total(session_id, total_tokens)

    def history(self, session_id: str, key: str) -> list[Entry]:
        rows = self._db.execute(
            f"SELECT {_ENTRY_COLUMNS} FROM history WHERE session_id = ? AND key = ? ORDER BY version",  # noqa: S608
            (session_id, key),
        )
        return [Entry(*row) for row in rows]

    def put_snapshot(self, session_id: str, label: str, taken_at: str) -> int:
        self._db.execute("DELETE FROM snapshot_entries WHERE session_id = ? AND label = ?", (session_id, label))
        self._db.execute("INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?)", (session_id, label, taken_at))
        cursor = self._db.execute(
            "INSERT INTO snapshot_entries SELECT session_id, ?, key, value, written_by, written_at, version, tokens"
            " FROM entries WHERE session_id = ?",
            (label, session_id),
        )
        return cursor.rowcount

    def snapshot(self, session_id: str, label: str) -> tuple[str, list[Entry]] | None:
        row = self._db.execute(
            "SELECT taken_at FROM snapshots WHERE session_id = ? AND label = ?", (session_id, label)
        ).fetchone()
        if row is None:
            return None
        rows = self._db.execute(
            f"SELECT {_ENTRY_COLUMNS} FROM snapshot_entries WHERE session_id = ? AND label = ? ORDER BY key",  # noqa: S608
            (session_id, label),
        )
        return row[0], [Entry(*r) for r in rows]

    def _set_total(self, session_id: str, total_tokens: int) -> None:
        self._db.execute("UPDATE sessions SET total_tokens = ? WHERE session_id = ?", (total_tokens, session_id))
