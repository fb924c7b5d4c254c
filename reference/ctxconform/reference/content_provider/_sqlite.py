"""A durable SQLite store of persisted providers: one file, write-ahead log, one transaction per operation."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from ctxconform.reference._sqlite import Database
from ctxconform.reference.content_provider._model import ContentProvider
from ctxconform.reference.content_provider._store import decode, encode

__all__ = ["SQLiteProviderStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS providers (
    session_id TEXT PRIMARY KEY, document TEXT NOT NULL, saved_at TEXT NOT NULL);
"""


class SQLiteProviderStore:
    """One row per session holding the whole serialized provider, so a save is atomic and survives a killed process."""

    def __init__(self, path: Path, synchronous: str = "FULL") -> None:
        self.path = path
        self._database = Database(path, _SCHEMA, synchronous)

    def save(self, session_id: str, provider: ContentProvider) -> None:
        """Replace the session's provider in one IMMEDIATE transaction."""
        document, saved_at = encode(provider), datetime.now(UTC).isoformat()
        with self._database.transaction() as db:
            db.execute("INSERT OR REPLACE INTO providers VALUES (?, ?, ?)", (session_id, document, saved_at))

    def load(self, session_id: str) -> ContentProvider | None:
        """Read the session's provider, or None."""
        with self._database.transaction() as db:
            row = db.execute("SELECT document FROM providers WHERE session_id = ?", (session_id,)).fetchone()
        return None if row is None else decode(row[0])

    def close(self) -> None:
        """Close the database file."""
        self._database.close()
