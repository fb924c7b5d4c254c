"""The durable SQLite file every reference store keeps its state in."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ctxconform.reference.exceptions import StoreError

__all__ = ["SYNCHRONOUS", "Database"]

_SYNCHRONOUS = {"FULL": "FULL", "NORMAL": "NORMAL"}
SYNCHRONOUS = frozenset(_SYNCHRONOUS)


class Database:
    """One SQLite file in write-ahead-log mode; each atomic step is one IMMEDIATE transaction, one caller at a time."""

    def __init__(self, path: Path, schema: str, synchronous: str = "FULL") -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            # FULL: what a store acknowledged is on disk, even if the machine loses power next. NORMAL: it survives a
            # killed process, not a power loss (WAL frames reach the disk at checkpoints, not at every commit).
            self._db.execute(f"PRAGMA synchronous={_SYNCHRONOUS[synchronous.upper()]}")
            self._db.executescript(schema)
        except (OSError, sqlite3.Error) as error:
            message = f"cannot open the database ({error}); check the path is a writable file"
            raise StoreError(f"sqlite:///{path}", message) from error
        self._lock = threading.Lock()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Run one atomic step on the connection: committed when the block ends, rolled back if it raises."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def close(self) -> None:
        """Close the database file."""
        self._db.close()
