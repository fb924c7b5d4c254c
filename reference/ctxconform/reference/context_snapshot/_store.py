"""A durable SQLite store of snapshots: one file, write-ahead log, one transaction per operation."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

from ctxconform.reference._sqlite import Database
from ctxconform.reference.context_snapshot._model import Actor, Header, Item, Kind
from ctxconform.reference.context_snapshot._objects import ObjectId

__all__ = ["SnapshotStore", "SnapshotTransaction"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS snapshots (
    object_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, created_by TEXT NOT NULL, selection_strategy TEXT NOT NULL,
    summary TEXT, algorithm TEXT NOT NULL, finalized INTEGER NOT NULL, next_seq INTEGER NOT NULL, item_count INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS items (
    snapshot_id TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, path TEXT NOT NULL, preview TEXT, blob TEXT,
    PRIMARY KEY (snapshot_id, seq));
"""
_HEADER = "object_id, created_at, created_by, selection_strategy, summary, algorithm, finalized"


class SnapshotTransaction:
    """Reads and writes inside one transaction."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def header(self, object_id: str) -> Header | None:
        """A snapshot's header, or None."""
        row = self._db.execute(f"SELECT {_HEADER} FROM snapshots WHERE object_id = ?", (object_id,)).fetchone()  # noqa: S608
        if row is None:
            return None
        actor = Actor(**json.loads(row[2]))
        return Header(row[0], row[1], actor, row[3], row[4], row[5], bool(row[6]))

    def insert(self, header: Header) -> None:
        """Add a new, empty snapshot."""
        actor = json.dumps({k: v for k, v in vars(header.created_by).items() if v is not None})
        values = (header.object_id, header.created_at, actor, header.selection_strategy, header.summary, header.algorithm)
        self._db.execute("INSERT INTO snapshots VALUES (?, ?, ?, ?, ?, ?, 0, 0, 0)", values)

    def items(self, object_id: str) -> tuple[Item, ...]:
        """A snapshot's items, in order."""
        rows = self._db.execute("SELECT kind, path, preview, blob FROM items WHERE snapshot_id = ? ORDER BY seq", (object_id,))
        return tuple(_item(*row) for row in rows)

    def append(self, object_id: str, item: Item) -> int:
        """Append an item and return its index."""
        seq, count = self._db.execute("SELECT next_seq, item_count FROM snapshots WHERE object_id = ?", (object_id,)).fetchone()
        self._db.execute("INSERT INTO items VALUES (?, ?, ?, ?, ?, ?)", (object_id, seq, *_columns(item)))
        self._db.execute(
            "UPDATE snapshots SET next_seq = next_seq + 1, item_count = item_count + 1 WHERE object_id = ?", (object_id,)
        )
        return int(count)

    def item_at(self, object_id: str, index: int) -> tuple[int, Item] | None:
        """The sequence number and the item at `index`, or None."""
        seq = self.sequence_number(object_id, index)
        if seq is None:
            return None
        row = self._db.execute(
            "SELECT kind, path, preview, blob FROM items WHERE snapshot_id = ? AND seq = ?", (object_id, seq)
        ).fetchone()
        return None if row is None else (seq, _item(*row))

    def sequence_number(self, object_id: str, index: int) -> int | None:
        """The sequence number of the item at `index` (the index-th in order), or None; the point a variant overrides."""
        row = self._db.execute(
            "SELECT seq FROM items WHERE snapshot_id = ? ORDER BY seq LIMIT 1 OFFSET ?", (object_id, index)
        ).fetchone()
        return None if row is None else int(row[0])

    def replace(self, object_id: str, seq: int, item: Item) -> None:
        """Store a changed item in place."""
        kind, path, preview, blob = _columns(item)
        self._db.execute(
            "UPDATE items SET kind = ?, path = ?, preview = ?, blob = ? WHERE snapshot_id = ? AND seq = ?",
            (kind, path, preview, blob, object_id, seq),
        )

    def remove(self, object_id: str, seq: int) -> None:
        """Drop one item."""
        self._db.execute("DELETE FROM items WHERE snapshot_id = ? AND seq = ?", (object_id, seq))
        self._db.execute("UPDATE snapshots SET item_count = item_count - 1 WHERE object_id = ?", (object_id,))

    def finalize(self, object_id: str) -> None:
        """Mark a snapshot finalized; nothing changes it afterwards."""
        self._db.execute("UPDATE snapshots SET finalized = 1 WHERE object_id = ?", (object_id,))


class SnapshotStore:
    """Snapshots in one SQLite file; each operation is one IMMEDIATE transaction, so none is ever half-written."""

    transactions: ClassVar[type[SnapshotTransaction]] = SnapshotTransaction
    """The class of the transactions the store opens; the point a variant overrides."""

    def __init__(self, path: Path, synchronous: str = "FULL") -> None:
        self.path = path
        self._database = Database(path, _SCHEMA, synchronous)

    @contextmanager
    def transaction(self) -> Iterator[SnapshotTransaction]:
        """Run one atomic step: committed when the block ends, rolled back if it raises."""
        with self._database.transaction() as db:
            yield self.transactions(db)

    def close(self) -> None:
        """Close the database file."""
        self._database.close()


def _columns(item: Item) -> tuple[str, str, str | None, str | None]:
    return json.dumps(item.kind.to_json()), item.path, item.preview, None if item.blob is None else item.blob.hex


def _item(kind: str, path: str, preview: str | None, blob: str | None) -> Item:
    value = json.loads(kind)
    parsed = Kind(value["other"], other=True) if isinstance(value, dict) else Kind(value)
    return Item(parsed, path, preview, None if blob is None else ObjectId.parse(blob))
