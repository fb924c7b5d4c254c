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
from contextlib import contextmanager, suppress
from pathlib import Path
from types import TracebackType
from typing import Self

from ctxconform.reference._wal_index import WalIndex
from ctxconform.reference.exceptions import StoreError

__all__ = ["SYNCHRONOUS", "Database", "Step"]

_SYNCHRONOUS = {"FULL": "FULL", "NORMAL": "NORMAL"}
SYNCHRONOUS = frozenset(_SYNCHRONOUS)
MAX_GROUP = 64
"""The most steps one commit holds: a bound on how long the first of them waits for its acknowledgement."""
_AWAIT_SECONDS = 0.05
"""How often a step waiting for its group's commit checks that someone is still there to make it."""


class _Group:
    """The steps sharing one open SQLite transaction, and how its commit ended."""

    __slots__ = ("done", "error", "steps")

    def __init__(self) -> None:
        self.steps = 1
        self.done = False
        self.error: BaseException | None = None


class Step:
    """One atomic step on the connection, as a context manager: committed (with its group) when the block ends."""

    __slots__ = ("_database", "_group", "began", "db", "fresh", "held", "write")

    def __init__(self, database: Database, *, write: bool) -> None:
        self._database = database
        self._group: _Group | None = None
        self.db = database.connection
        self.write = write
        self.fresh = False
        """Whether this step opened the SQLite transaction: other connections may have committed since the last step."""
        self.held = False
        """Whether this step holds the connection: set by `Database.enter`, cleared by `Database.leave`."""
        self.began = False
        """Whether this step, a read on its own, began a read transaction of its own (which `leave` ends)."""

    def __enter__(self) -> Self:
        """Wait for the connection, then open the transaction or join the group that holds it open."""
        self._database.enter(self)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        """Release or roll back the step's changes; return once the commit that holds them has completed."""
        self._database.leave(self, failed=error is not None)


class Database:
    """One SQLite file in write-ahead-log mode; each atomic step is one IMMEDIATE transaction, or one group of them."""

    def __init__(self, path: Path, schema: str, synchronous: str = "FULL", *, on_abort: Callable[[], None] | None = None) -> None:
        self.path = path
        self._synchronous = _SYNCHRONOUS[synchronous.upper()]
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = self._connect()
            self._db.executescript(schema)
        except (OSError, sqlite3.Error) as error:
            message = f"cannot open the database ({error}); check the path is a writable file"
            raise StoreError(f"sqlite:///{path}", message) from error
        self.connection = self._db
        """The connection steps run on; only the thread holding a step may use it."""
        self._index = WalIndex(path)  # opened while the connection is: SQLite keeps the file for as long
        self._on_abort = on_abort
        self._turn = threading.Lock()  # held by the one thread running a step on the connection
        self._owner = 0  # the thread holding the turn for a step (0: none), so close() from inside a step cannot wait on itself
        self._state = threading.Condition()  # guards _waiting; signals groups that have committed
        self._waiting = 0
        self._group: _Group | None = None
        self._lost: BaseException | None = None  # why the connection was dropped (a ROLLBACK failed); reopened next step
        self._batching = 0  # the thread whose steps leave their group open for the batch's end to commit (0: none)
        self._batched: set[_Group] = set()  # the groups the batch's steps were in: any that failed fails the batch

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            # FULL: what a store acknowledged is on disk, even if the machine loses power next. NORMAL: it survives a
            # killed process, not a power loss (WAL frames reach the disk at checkpoints, not at every commit).
            db.execute(f"PRAGMA synchronous={self._synchronous}")
        except BaseException:
            db.close()
            raise
        return db

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Run one atomic step on the connection: committed when the block ends, rolled back if it raises."""
        with Step(self, write=True) as step:
            yield step.db

    def commit_mark(self) -> bytes | None:
        """A value that changes whenever any connection commits to the file (None: unknown, ask SQLite)."""
        return self._index.mark()

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Let the calling thread's steps in the block share one commit, made when the block ends.

        Each step returns before its changes are committed: what it answered may be told to nobody until the block
        has ended without raising. A StoreError from the block means its steps' changes were lost (once one
        group of them fails, the block's later steps fail too): tell each caller the store failed.
        """
        if self._batching:
            raise RuntimeError("a batch is running on this database already; end it first")
        self._batching, self._batched = threading.get_ident(), set()
        try:
            yield
        finally:
            self._batching = 0
            self._commit_open()

    def _refuse_after_a_failed_batch_group(self) -> None:
        if self._batching == self._owner and any(group.error is not None for group in self._batched):
            message = "an earlier step of this batch failed to commit; the batch's steps fail with it"
            raise StoreError(f"sqlite:///{self.path}", message)

    def _finish(self, group: _Group) -> None:
        """Commit the group a step leaves, or leave that to a step waiting to join it, or to the batch's end."""
        if self._batching == threading.get_ident():
            self._batched.add(group)
            self._release()
        # Read without the lock: a thread counted here is blocked on the turn and will take it once it is released.
        elif self._waiting and group.steps < MAX_GROUP:
            self._release()
            self._await(group)
        else:
            self._commit(group)

    def _commit_open(self) -> None:
        """Commit the group the batch left open, if any; StoreError when any group of the batch's steps failed."""
        self._take_turn()
        if self._group is None:
            self._turn.release()
        else:
            self._owner = threading.get_ident()
            self._commit(self._group)
        failed = next((group.error for group in self._batched if group.error is not None), None)
        self._batched = set()
        if failed is not None:
            message = f"the commit failed ({failed}); none of the batch's changes were kept"
            raise StoreError(f"sqlite:///{self.path}", message) from failed

    def step(self, *, write: bool = True) -> Step:
        """An atomic step; one that does not write (`write=False`) opens no transaction itself unless it joins a group."""
        return Step(self, write=write)

    def enter(self, step: Step) -> None:
        """Take the connection for `step` and open its transaction, or join it to the group that holds one open.

        Sets `step.held`, `step.fresh` and the step's group (None: a read on its own). If this raises, the step
        holds nothing: the turn is released, and a group it was joining is committed if nobody else will.
        """
        joined = False
        try:
            self._take_turn()
            step.held = True
            self._owner = threading.get_ident()
            if self._group is None and self._lost is None and self._db.in_transaction:
                # Left open by a step that failed past its bookkeeping: nobody was told it committed, so it never is.
                self._rollback()
                if self._on_abort is not None:
                    self._on_abort()
            if self._lost is not None:
                self._reopen()
            self._refuse_after_a_failed_batch_group()
            step.db = self._db
            group = step._group = self._group  # noqa: SLF001 - the step's own record, kept by the database
            if group is not None:
                group.steps += 1
                joined = True
                if step.write:
                    self._db.execute("SAVEPOINT step")
                return
            step.fresh = True
            if step.write:
                group = _Group()
                self._db.execute("BEGIN IMMEDIATE")
                self._group = step._group = group  # noqa: SLF001
        except BaseException:
            if step.held:
                self._abandon(step, joined=joined)
            raise

    def _abandon(self, step: Step, *, joined: bool) -> None:
        """Undo a failed `enter`: leave the group it joined (committing it if nobody else will), or drop its transaction."""
        group = step._group  # noqa: SLF001
        step._group = None  # noqa: SLF001
        step.held = False
        try:
            if joined and group is not None:
                group.steps -= 1
                if not self._waiting and self._group is group:
                    self._commit_locked(group)
            elif step.fresh:  # any group or transaction open now is this step's own (it held the turn throughout)
                self._group = None
                self._rollback()
        finally:
            self._release()

    def leave(self, step: Step, *, failed: bool) -> None:
        """End `step`: release or roll back its changes, then commit its group or leave that to a waiting thread."""
        if not step.held:
            return
        step.held = False
        group = step._group  # noqa: SLF001
        if group is None:  # a read on its own: nothing to commit, nothing to wait for
            try:
                if step.began:  # end the read transaction the step began, and only that one
                    step.began = False
                    self._end_read(failed=failed)
            finally:
                self._release()
            return
        if step.write and step.fresh and failed:  # the group's only step so far: drop the whole transaction
            self._group = None
            try:
                self._rollback()
            finally:
                self._release()
            return
        try:
            if step.write and not step.fresh:
                self._end_savepoint(failed=failed)
        except BaseException as error:
            self._end_group(group, error)
            if isinstance(error, sqlite3.Error):
                message = f"the step could not be ended ({error}); none of its group's changes were kept"
                raise StoreError(f"sqlite:///{self.path}", message) from error
            raise
        self._finish(group)
        if group.error is not None:
            message = f"the commit failed ({group.error}); none of its changes were kept"
            raise StoreError(f"sqlite:///{self.path}", message) from group.error

    def close(self) -> None:
        """Commit what a group left open, then close the database file (not from inside a step: that raises)."""
        if self._owner == threading.get_ident():
            message = "close() was called inside a step on this database; close it once the step has ended"
            raise StoreError(f"sqlite:///{self.path}", message)
        self._take_turn()
        try:
            if self._group is not None:
                self._commit_locked(self._group)
            self._db.close()
            self._index.close()
        finally:
            self._turn.release()

    def _release(self) -> None:
        self._owner = 0
        self._turn.release()

    def _take_turn(self) -> None:
        """Hold the connection: at once when it is free, else once the thread holding it lets go."""
        if not self._turn.acquire(blocking=False):
            self._wait_for_turn()

    def _wait_for_turn(self) -> None:
        with self._state:
            self._waiting += 1
        try:
            self._turn.acquire()
        finally:
            with self._state:
                self._waiting -= 1

    def _end_read(self, *, failed: bool) -> None:
        if failed:
            self._rollback()
            return
        try:
            self._db.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise

    def _end_savepoint(self, *, failed: bool) -> None:
        if failed:
            self._db.execute("ROLLBACK TO step")
        self._db.execute("RELEASE step")

    def _await(self, group: _Group) -> None:
        """Wait for the commit holding `group`; commit it here if the turn is free and nobody else has (a waiter left).

        An interrupt does not end the wait: the step's write may still be committed, so it is re-raised only after.
        """
        interrupt: BaseException | None = None
        while True:
            try:
                with self._state:
                    if not group.done:
                        self._state.wait(_AWAIT_SECONDS)
                    if group.done:
                        break
                if self._group is group and self._turn.acquire(blocking=False):
                    try:
                        if self._group is group:
                            self._commit_locked(group)
                    finally:
                        self._turn.release()
            except BaseException as error:
                interrupt = interrupt or error
        if interrupt is not None:
            raise interrupt

    def _commit(self, group: _Group) -> None:
        try:
            self._commit_locked(group)
        finally:
            self._release()

    def _commit_locked(self, group: _Group) -> None:
        try:
            self._db.execute("COMMIT")
        except BaseException as error:
            if not isinstance(error, sqlite3.Error) and not self._db.in_transaction:
                # An interrupt that arrived once COMMIT had returned: the group is committed, only this thread hears of it.
                self._group = None
                self._signal(group)
                raise
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
            self._rollback()
        finally:
            if self._on_abort is not None:
                self._on_abort()
            self._signal(group)
            if release:
                self._release()

    def _rollback(self) -> None:
        """Roll back the open transaction, if SQLite has not already; if that fails, drop the connection instead.

        Closing a connection discards its open transaction, so what was rolled back can never be committed later;
        the next step opens a new connection.
        """
        if self._lost is not None or not self._db.in_transaction:  # dropped already, or SQLite rolled back itself
            return
        try:
            self._db.execute("ROLLBACK")
        except Exception as error:
            self._lost = error
            if self._on_abort is not None:
                self._on_abort()
            with suppress(sqlite3.Error):
                self._db.close()

    def _reopen(self) -> None:
        """Open a new connection in place of the one dropped after a failed ROLLBACK."""
        try:
            db = self._connect()
        except (OSError, sqlite3.Error) as error:
            message = (
                f"the connection was dropped after a ROLLBACK failed ({self._lost}) and cannot be reopened ({error});"
                " check the disk and the file; the next step tries to reopen it again"
            )
            raise StoreError(f"sqlite:///{self.path}", message) from error
        self._db = self.connection = db
        self._lost = None
        self._index.close()  # the old file may be gone with the old connection (SQLite deletes it after the last one)
        self._index = WalIndex(self.path)

    def _signal(self, group: _Group) -> None:
        with self._state:
            group.done = True
            self._state.notify_all()
