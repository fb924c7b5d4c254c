"""The durable SQLite file every reference store keeps its state in, with group commit across threads.

Each atomic step runs on the one connection, one thread at a time. When other threads are already waiting for
the connection, a step that succeeded leaves the SQLite transaction open for them (each further step runs inside
a SAVEPOINT of its own, so a step that raises rolls back only its own changes) and the last step of the group
commits once, with one fsync, for all of them. No step returns before the commit that holds it has completed, so
an acknowledged step is exactly as durable as if it had committed alone.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Self

from ctxconform.reference.exceptions import StoreError

__all__ = ["SYNCHRONOUS", "Database", "Step"]

_SYNCHRONOUS = {"FULL": "FULL", "NORMAL": "NORMAL"}
SYNCHRONOUS = frozenset(_SYNCHRONOUS)
MAX_GROUP = 64
"""The most steps one commit holds: a bound on how long the first of them waits for its acknowledgement."""


class _Group:
    """The steps sharing one open SQLite transaction, and how its commit ended."""

    __slots__ = ("done", "error", "steps")

    def __init__(self) -> None:
        self.steps = 1
        self.done = False
        self.error: BaseException | None = None


class Step:
    """One atomic step on the connection, as a context manager: committed (with its group) when the block ends."""

    __slots__ = ("_database", "_group", "db", "fresh", "write")

    def __init__(self, database: Database, *, write: bool) -> None:
        self._database = database
        self._group: _Group | None = None
        self.db = database.connection
        self.write = write
        self.fresh = False
        """Whether this step opened the SQLite transaction: other connections may have committed since the last step."""

    def __enter__(self) -> Self:
        """Wait for the connection, then open the transaction or join the group that holds it open."""
        self._group = self._database.enter(self)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        """Release or roll back the step's changes; return once the commit that holds them has completed."""
        self._database.leave(self, self._group, failed=error is not None)


class Database:
    """One SQLite file in write-ahead-log mode; each atomic step is one IMMEDIATE transaction, or one group of them."""

    def __init__(self, path: Path, schema: str, synchronous: str = "FULL", *, on_abort: Callable[[], None] | None = None) -> None:
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
        self.connection = self._db
        """The connection steps run on; only the thread holding a step may use it."""
        self._on_abort = on_abort
        self._turn = threading.Lock()  # held by the one thread running a step on the connection
        self._state = threading.Condition()  # guards _waiting; signals groups that have committed
        self._waiting = 0
        self._group: _Group | None = None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Run one atomic step on the connection: committed when the block ends, rolled back if it raises."""
        with Step(self, write=True) as step:
            yield step.db

    def step(self, *, write: bool = True) -> Step:
        """An atomic step; one that does not write (`write=False`) opens no transaction itself unless it joins a group."""
        return Step(self, write=write)

    def enter(self, step: Step) -> _Group | None:
        """Take the connection for `step`; return the group it belongs to (None: a read on its own)."""
        if not self._turn.acquire(blocking=False):
            self._wait_for_turn()
        try:
            group = self._group
            if group is not None:
                group.steps += 1
                if step.write:
                    self._db.execute("SAVEPOINT step")
                return group
            step.fresh = True
            if step.write:
                self._db.execute("BEGIN IMMEDIATE")
        except BaseException:
            self._turn.release()
            raise
        if step.write:
            self._group = _Group()
        return self._group

    def leave(self, step: Step, group: _Group | None, *, failed: bool) -> None:
        """End `step`: release or roll back its changes, then commit its group or leave that to a waiting thread."""
        if group is None:  # a read on its own: nothing to commit, nothing to wait for
            try:
                if self._db.in_transaction:  # the step began a read transaction of its own
                    self._db.execute("ROLLBACK" if failed else "COMMIT")
            finally:
                self._turn.release()
            return
        if step.write and step.fresh and failed:  # the group's only step so far: drop the whole transaction
            self._group = None
            try:
                self._db.execute("ROLLBACK")
            finally:
                self._turn.release()
            return
        try:
            if step.write and not step.fresh:
                self._end_savepoint(failed=failed)
        except BaseException as error:
            self._end_group(group, error)
            raise
        # Read without the lock: a thread counted here is blocked on the turn and will take it once it is released.
        if self._waiting and group.steps < MAX_GROUP:
            self._turn.release()
            self._await(group)
        else:
            self._commit(group)
        if group.error is not None:
            message = f"the commit failed ({group.error}); none of its changes were kept"
            raise StoreError(f"sqlite:///{self.path}", message) from group.error

    def close(self) -> None:
        """Commit what a group left open, then close the database file."""
        if not self._turn.acquire(blocking=False):
            self._wait_for_turn()
        try:
            if self._group is not None:
                self._commit_locked(self._group)
            self._db.close()
        finally:
            self._turn.release()

    def _wait_for_turn(self) -> None:
        with self._state:
            self._waiting += 1
        try:
            self._turn.acquire()
        finally:
            with self._state:
                self._waiting -= 1

    def _end_savepoint(self, *, failed: bool) -> None:
        if failed:
            self._db.execute("ROLLBACK TO step")
        self._db.execute("RELEASE step")

    def _await(self, group: _Group) -> None:
        with self._state:
            while not group.done:
                self._state.wait()

    def _commit(self, group: _Group) -> None:
        try:
            self._commit_locked(group)
        finally:
            self._turn.release()

    def _commit_locked(self, group: _Group) -> None:
        try:
            self._db.execute("COMMIT")
        except BaseException as error:
            self._end_group(group, error, release=False)
            if not isinstance(error, sqlite3.Error):
                raise
        else:
            self._group = None
            self._signal(group)

    def _end_group(self, group: _Group, error: BaseException, *, release: bool = True) -> None:
        """Roll the whole group back after `error`: every step of it fails, and the caches above forget it."""
        self._group = None
        group.error = error
        try:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
        finally:
            if self._on_abort is not None:
                self._on_abort()
            self._signal(group)
            if release:
                self._turn.release()

    def _signal(self, group: _Group) -> None:
        with self._state:
            group.done = True
            self._state.notify_all()
