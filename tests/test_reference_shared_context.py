"""The shared-context reference itself: durable SQLite store, atomic writes across threads and processes, audit log."""

from __future__ import annotations

import gc
import json
import logging
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ctxconform.conformance import connect, parse_adapter
from ctxconform.reference import Reference
from ctxconform.reference._sqlite import Database
from ctxconform.reference._wal_index import WalIndex
from ctxconform.reference.exceptions import SpecError, StoreError
from ctxconform.reference.shared_context import Entry, MemoryStore, SharedContext, SQLiteStore, open_store
from ctxconform.reference.shared_context._store import ReadConflict

WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from ctxconform.reference.shared_context import SharedContext, SQLiteStore
    service = SharedContext(SQLiteStore(Path(sys.argv[1])))
    if sys.argv[2] == "create":
        service.create_session("s")
    for i in range(int(sys.argv[3])):
        result = service.handle("s", sys.argv[2], {"action": "write", "key": f"k{i % 50}", "value": f"value {i}"})
        print(i, result["version"], flush=True)
    """
)


def test_acknowledged_writes_survive_kill_9(tmp_path: Path) -> None:
    """Every write acknowledged before SIGKILL is in the SQLite file afterwards.

    Checks shared-context/4.5/durable-storage and shared-context/8.1/durable-across-restarts for the reference.
    """
    database = tmp_path / "sc.sqlite3"
    child = subprocess.Popen([sys.executable, "-c", WRITER, str(database), "create", "100000"], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    acknowledged = [child.stdout.readline() for _ in range(300)]
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    service = SharedContext(SQLiteStore(database))
    for line in acknowledged:
        index, version = map(int, line.split())
        entry = service.handle("s", "auditor", {"action": "read", "key": f"k{index % 50}"})
        assert entry["version"] >= version
        if entry["version"] == version:
            assert entry["value"] == f"value {index}"


def test_concurrent_processes_lose_no_increment(tmp_path: Path) -> None:
    """Two processes writing the same keys through one SQLite file end with every increment counted (3/atomic-single-key)."""
    database = tmp_path / "sc.sqlite3"
    SharedContext(SQLiteStore(database)).create_session("s")
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(database), f"w{n}", "150"], stdout=subprocess.DEVNULL)
        for n in range(2)
    ]
    assert [w.wait(timeout=120) for w in writers] == [0, 0]
    listing = SharedContext(SQLiteStore(database)).handle("s", "auditor", {"action": "list_keys"})
    assert sum(meta["version"] for meta in listing["keys"]) == 300


@pytest.mark.parametrize("url", ["memory:", "sqlite"])
def test_concurrent_threads_lose_no_increment(url: str, tmp_path: Path) -> None:
    """Eight threads writing one key through one store instance get versions 1 to 400, each once, and end at 400."""
    service = SharedContext(open_store(f"sqlite:///{tmp_path}/t.db" if url == "sqlite" else url))
    service.create_session("s")
    versions: list[int] = []

    def write() -> None:
        calls = ({"action": "write", "key": "counter", "value": "x"} for _ in range(50))
        versions.extend(service.handle("s", "subagent:worker", call)["version"] for call in calls)

    threads = [threading.Thread(target=write) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(versions) == list(range(1, 401))
    assert service.handle("s", "o", {"action": "read", "key": "counter"})["version"] == 400


@pytest.mark.parametrize("other", ["process", "connection"])
def test_a_write_through_another_connection_is_seen_by_the_next_read(tmp_path: Path, other: str) -> None:
    """A store that has the key in memory reads the version another process (or connection) committed since."""
    database = tmp_path / "sc.sqlite3"
    service = SharedContext(SQLiteStore(database))
    service.create_session("s")
    service.handle("s", "o", {"action": "write", "key": "k0", "value": "mine"})
    assert service.handle("s", "o", {"action": "read", "key": "k0"})["version"] == 1
    if other == "process":
        subprocess.run([sys.executable, "-c", WRITER, str(database), "w", "1"], check=True, stdout=subprocess.DEVNULL)
    else:
        SharedContext(SQLiteStore(database)).handle("s", "w", {"action": "write", "key": "k0", "value": "value 0"})
    assert service.handle("s", "o", {"action": "read", "key": "k0"}) | {"written_at": ""} == {
        "key": "k0",
        "value": "value 0",
        "written_by": "w",
        "written_at": "",
        "version": 2,
    }
    assert [meta["version"] for meta in service.handle("s", "o", {"action": "list_keys"})["keys"]] == [2]


def test_a_read_with_no_commit_since_asks_sqlite_nothing(tmp_path: Path) -> None:
    """Once a read has checked the file, the next read finds the commit mark unchanged and runs no statement."""
    store = SQLiteStore(tmp_path / "sc.sqlite3")
    service = SharedContext(store)
    service.create_session("s")
    service.handle("s", "o", {"action": "write", "key": "k", "value": "mine"})
    service.handle("s", "o", {"action": "read", "key": "k"})
    statements: list[str] = []
    store._database.connection.set_trace_callback(statements.append)
    assert service.handle("s", "o", {"action": "read", "key": "k"})["value"] == "mine"
    assert statements == []


@pytest.mark.parametrize("marks", ["read", "unreadable"])
def test_every_commit_by_another_connection_is_seen_by_the_reads_after_it(
    tmp_path: Path, marks: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reads repeated between another connection's commits (checkpoints and WAL restarts among them) answer the latest.

    With the commit mark unreadable, every read asks SQLite instead, with the same answers.
    """
    if marks == "unreadable":
        monkeypatch.setattr(WalIndex, "mark", lambda self: None)  # noqa: ARG005
    database = tmp_path / "sc.sqlite3"
    service = SharedContext(SQLiteStore(database))
    service.create_session("s")
    other = SharedContext(SQLiteStore(database))
    for version in range(1, 31):
        other.handle("s", "w", {"action": "write", "key": "k", "value": f"value {version}"})
        if version % 7 == 0:
            sqlite3.connect(database).execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        for _ in range(3):
            assert service.handle("s", "o", {"action": "read", "key": "k"})["version"] == version
            assert service.handle("s", "o", {"action": "list_keys"})["keys"][0]["version"] == version


def test_the_commit_mark_is_none_unless_the_wal_index_reads_as_sqlite_writes_it(tmp_path: Path) -> None:
    """No file, a short one, two copies that differ or an unknown version: no mark, so the store asks SQLite."""
    database = tmp_path / "x.sqlite3"
    assert WalIndex(database).mark() is None
    header = (3007000).to_bytes(4, sys.byteorder) + bytes(8) + b"\x01" + bytes(35)
    for content, expected in [
        (header + header, header),
        (header, None),
        (header + header[:-1] + b"\x02", None),
        (bytes(4) + header[4:] + bytes(4) + header[4:], None),
        (header[:12] + b"\x00" + header[13:] + header[:12] + b"\x00" + header[13:], None),
    ]:
        Path(f"{database}-shm").write_bytes(content)
        index = WalIndex(database)
        assert index.mark() == expected
        index.close()
        assert index.mark() is None


def test_a_step_that_raises_leaves_the_store_and_its_reads_as_they_were(tmp_path: Path) -> None:
    """A write step that raises after writing is rolled back, in the file and in what later reads answer."""
    store = SQLiteStore(tmp_path / "sc.sqlite3")
    service = SharedContext(store, clock=lambda: "t")
    service.create_session("s")
    service.handle("s", "o", {"action": "write", "key": "k", "value": "kept"})
    with pytest.raises(RuntimeError, match="after the write"):
        write_then_fail(store)
    assert service.handle("s", "o", {"action": "read", "key": "k"})["value"] == "kept"
    assert SharedContext(SQLiteStore(tmp_path / "sc.sqlite3")).handle("s", "o", {"action": "read", "key": "k"})["version"] == 1


def test_a_step_that_raises_in_a_group_rolls_back_only_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Steps queued behind a running one share its commit; the one that raises loses only its own write.

    Each of the others returns only once its write is committed: a fresh connection reads it right away.
    """
    database = tmp_path / "sc.sqlite3"
    store = SQLiteStore(database)
    service = SharedContext(store, clock=lambda: "t")
    service.create_session("s")
    groups: list[int] = []
    commit = Database._commit_locked
    monkeypatch.setattr(Database, "_commit_locked", lambda self, group: (groups.append(group.steps), commit(self, group))[1])
    running, results = threading.Event(), dict[str, object]()

    def step(key: str, *, fail: bool = False) -> None:
        try:
            with store.transaction() as tx:
                tx.put("s", Entry(key, "o", "t", 1, 1, key), 1, 10)
                if key == "first":
                    running.set()
                    wait_for(lambda: store._database._waiting == 3)
                if fail:
                    refuse()
            with sqlite3.connect(database) as fresh:
                results[key] = fresh.execute("SELECT value FROM entries WHERE key = ?", (key,)).fetchone()
        except SpecError as error:
            results[key] = error.code

    first = threading.Thread(target=step, args=("first",))
    first.start()
    running.wait(10)
    others = [threading.Thread(target=step, args=(key,), kwargs={"fail": key == "bad"}) for key in ("a", "bad", "b")]
    for thread in others:
        thread.start()
    for thread in [first, *others]:
        thread.join(10)
    assert groups == [4]
    assert results == {"first": ("first",), "a": ("a",), "bad": "STORE_FULL", "b": ("b",)}
    listing = service.handle("s", "o", {"action": "list_keys"})
    assert [meta["key"] for meta in listing["keys"]] == ["a", "b", "first"]


def test_a_read_that_would_mix_two_states_raises_read_conflict(tmp_path: Path) -> None:
    """A reading step that answered from memory, then meets another connection's commit on the file, refuses to mix."""
    store = SQLiteStore(tmp_path / "sc.sqlite3")
    service = SharedContext(store)
    service.create_session("s")
    service.handle("s", "o", {"action": "write", "key": "k", "value": "one"})
    with pytest.raises(ReadConflict):
        read_across_a_commit(store, SharedContext(SQLiteStore(tmp_path / "sc.sqlite3")))
    history = service.handle("s", "o", {"action": "read_history", "key": "k"})
    assert [version["value"] for version in history["versions"]] == ["one", "two"]


def test_a_write_whose_commit_and_rollback_fail_is_never_committed_later(tmp_path: Path) -> None:
    """A write told its commit failed stays lost: no later read sees it or commits it, and the store keeps working."""
    database = tmp_path / "sc.sqlite3"
    store = SQLiteStore(database)
    service = SharedContext(store, clock=lambda: "t")
    service.create_session("s")
    service.handle("s", "o", {"action": "write", "key": "k", "value": "kept"})
    faulty = Faulty(store)
    faulty.fail = {"COMMIT", "ROLLBACK"}
    with pytest.raises((StoreError, sqlite3.Error)):
        service.handle("s", "o", {"action": "write", "key": "k", "value": "lost"})
    faulty.fail = set()
    assert service.handle("s", "o", {"action": "read", "key": "k"})["value"] == "kept"
    assert [version["value"] for version in service.handle("s", "o", {"action": "read_history", "key": "k"})["versions"]] == [
        "kept"
    ]
    with sqlite3.connect(database) as fresh:
        assert fresh.execute("SELECT value FROM entries WHERE key = 'k'").fetchall() == [("kept",)]
    assert service.handle("s", "o", {"action": "write", "key": "k", "value": "next"})["version"] == 2


def test_a_batch_commits_its_writes_once_when_it_ends_and_logs_them_then(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Writes in a batch are committed together at its end: none is on disk or in the audit log before it."""
    database, store, service = logged_session(tmp_path, caplog)
    commits: list[str] = []
    store._database.connection.set_trace_callback(lambda sql: commits.append(sql) if sql == "COMMIT" else None)
    with service.batch():
        for n in range(5):
            service.handle("s", "o", {"action": "write", "key": f"k{n}", "value": "v"})
        assert service.handle("s", "o", {"action": "read", "key": "k4"})["version"] == 1
        with sqlite3.connect(database) as fresh:
            assert fresh.execute("SELECT count(*) FROM entries").fetchone() == (0,)
        assert [record for record in caplog.records if "write" in record.getMessage()] == []
    assert commits == ["COMMIT"]
    with sqlite3.connect(database) as fresh:
        assert fresh.execute("SELECT count(*) FROM entries").fetchone() == (5,)
    assert len([record for record in caplog.records if '"event": "write"' in record.getMessage()]) == 5


def test_a_batch_whose_commit_fails_raises_keeps_nothing_and_logs_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A batch whose commit fails raises StoreError: none of its writes is kept, read or logged; the store goes on."""
    _, store, service = logged_session(tmp_path, caplog)
    faulty = Faulty(store)
    with pytest.raises(StoreError, match="none of the batch's changes were kept"):
        write_in_a_batch_then_fail(service, faulty, {"COMMIT"})
    faulty.fail = set()
    with pytest.raises(SpecError, match="no key"):
        service.handle("s", "o", {"action": "read", "key": "a"})
    assert [record for record in caplog.records if '"event"' in record.getMessage()] == []
    assert service.handle("s", "o", {"action": "write", "key": "a", "value": "kept"})["version"] == 1


def test_once_a_group_of_a_batch_fails_the_batchs_later_steps_fail_too(tmp_path: Path) -> None:
    """A step whose savepoint cannot end loses the batch's group; the batch's later steps fail and the block raises."""
    store = SQLiteStore(tmp_path / "sc.sqlite3")
    service = SharedContext(store, clock=lambda: "t")
    service.create_session("s")
    faulty = Faulty(store)
    failures: list[str] = []
    with pytest.raises(StoreError):
        write_in_a_batch_then_fail(service, faulty, {"RELEASE"}, failures)
    assert len(failures) == 2
    assert "fail with it" in failures[1]
    assert service.handle("s", "o", {"action": "list_keys"})["keys"] == []


def test_a_store_without_batches_runs_a_batch_as_plain_steps(caplog: pytest.LogCaptureFixture) -> None:
    """On a store that cannot batch, each operation in the block commits on its own; the audit lines come at the end."""
    service = SharedContext(MemoryStore(), clock=lambda: "t")
    service.create_session("s")
    caplog.set_level(logging.INFO, logger="ctxconform.reference")
    assert not service.batches
    with service.batch():
        service.handle("s", "o", {"action": "write", "key": "a", "value": "v"})
    assert service.handle("s", "o", {"action": "read", "key": "a"})["value"] == "v"
    assert len([record for record in caplog.records if '"event": "write"' in record.getMessage()]) == 1


def test_a_step_that_fails_joining_a_group_leaves_the_group_committed(tmp_path: Path) -> None:
    """A step whose savepoint cannot be opened fails alone; the step it queued behind still commits and returns."""
    database = tmp_path / "sc.sqlite3"
    store = SQLiteStore(database)
    service = SharedContext(store, clock=lambda: "t")
    service.create_session("s")
    faulty = Faulty(store)
    results: dict[str, object] = {}

    def first() -> None:
        with store.transaction() as tx:
            tx.put("s", Entry("first", "o", "t", 1, 1, "first"), 1, 10)
            wait_for(lambda: store._database._waiting == 1)
            faulty.fail = {"SAVEPOINT"}
        results["first"] = "done"

    def joiner() -> None:
        try:
            service.handle("s", "o", {"action": "write", "key": "second", "value": "v"})
        except (StoreError, sqlite3.Error) as error:
            results["second"] = type(error).__name__

    threads = [threading.Thread(target=first, daemon=True)]
    threads[0].start()
    wait_for(lambda: store._database._group is not None)
    threads.append(threading.Thread(target=joiner, daemon=True))
    threads[1].start()
    for thread in threads:
        thread.join(10)
    assert not any(thread.is_alive() for thread in threads)
    assert results == {"first": "done", "second": "OperationalError"}
    with sqlite3.connect(database, timeout=1) as fresh:
        assert fresh.execute("SELECT key FROM entries").fetchall() == [("first",)]


def test_a_step_handed_to_a_waiter_that_never_comes_still_commits(tmp_path: Path) -> None:
    """A step that leaves its commit to a counted waiter which then drops out commits by itself instead of hanging."""
    database = tmp_path / "sc.sqlite3"
    store = SQLiteStore(database)
    done = threading.Event()

    def write() -> None:
        with store.transaction() as tx:
            tx.create_session("s")
            store._database._waiting += 1  # a waiter counted, then gone (interrupted before it took the turn)
        done.set()

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    thread.join(10)
    store._database._waiting -= 1
    assert done.is_set()
    with sqlite3.connect(database, timeout=1) as fresh:
        assert fresh.execute("SELECT session_id FROM sessions").fetchall() == [("s",)]


def test_closing_inside_a_step_raises_instead_of_hanging(tmp_path: Path) -> None:
    """close() from the thread running a step says so, rather than wait forever for its own turn."""
    store = SQLiteStore(tmp_path / "sc.sqlite3")
    errors: list[BaseException] = []

    def close_inside() -> None:
        try:
            with store.transaction() as tx:
                tx.create_session("s")
                store.close()
        except StoreError as error:
            errors.append(error)

    thread = threading.Thread(target=close_inside, daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive()
    assert len(errors) == 1
    assert "inside a step" in str(errors[0])
    store.close()  # once the step has ended (rolled back: it raised), close works
    with sqlite3.connect(tmp_path / "sc.sqlite3", timeout=1) as fresh:
        assert fresh.execute("SELECT session_id FROM sessions").fetchall() == []


def test_an_interrupt_just_after_begin_leaves_no_write_transaction_open(tmp_path: Path) -> None:
    """A step interrupted once its write transaction began rolls it back: the file is not left locked, nothing is kept."""
    database = tmp_path / "sc.sqlite3"
    store = SQLiteStore(database)
    faulty = Faulty(store)
    faulty.interrupt_after = {"BEGIN"}
    with pytest.raises(KeyboardInterrupt), store.transaction() as tx:
        tx.create_session("s")
    faulty.interrupt_after = set()
    with sqlite3.connect(database, timeout=0, isolation_level=None) as other:
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
    SharedContext(store).create_session("s")
    with sqlite3.connect(database, timeout=1) as fresh:
        assert fresh.execute("SELECT session_id FROM sessions").fetchall() == [("s",)]


def test_an_interrupt_while_waiting_for_the_commit_comes_after_it(tmp_path: Path) -> None:
    """A step interrupted while waiting for its group's commit keeps waiting: when the interrupt surfaces, it is committed."""
    database = tmp_path / "sc.sqlite3"
    store = SQLiteStore(database)
    interrupted = threading.Event()

    class Interrupted(threading.Condition):
        def wait(self, timeout: float | None = None) -> bool:
            if not interrupted.is_set():
                interrupted.set()
                raise KeyboardInterrupt
            return super().wait(timeout)

    store._database._state = Interrupted()
    seen: list[object] = []

    def write() -> None:
        try:
            with store.transaction() as tx:
                tx.create_session("s")
                store._database._waiting += 1  # a waiter counted, so the step leaves its commit to the group
        except KeyboardInterrupt:
            store._database._waiting -= 1
            with sqlite3.connect(database, timeout=1) as fresh:
                seen.extend(fresh.execute("SELECT session_id FROM sessions").fetchall())

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    thread.join(10)
    assert interrupted.is_set()
    assert seen == [("s",)]


class Faulty:
    """The store's connection, standing in for it: statements named in `fail` raise, those in `interrupt_after` are cut off.

    A failing statement raises a disk I/O error; an interrupted one runs, then raises KeyboardInterrupt.
    """

    def __init__(self, store: SQLiteStore) -> None:
        self._db = store._database._db
        self.fail: set[str] = set()
        self.interrupt_after: set[str] = set()
        store._database._db = store._database.connection = self  # type: ignore[assignment]

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        """Run `sql`, unless its statement is to fail; then raise KeyboardInterrupt if it is to be interrupted."""
        statement = sql.split(maxsplit=1)[0].upper()
        if statement in self.fail:
            raise sqlite3.OperationalError("disk I/O error")
        cursor = self._db.execute(sql, *args)
        if statement in self.interrupt_after:
            raise KeyboardInterrupt
        return cursor

    @property
    def in_transaction(self) -> bool:
        """Whether the real connection is inside a transaction."""
        return self._db.in_transaction

    def close(self) -> None:
        """Close the real connection."""
        self._db.close()


def logged_session(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> tuple[Path, SQLiteStore, SharedContext]:
    """A SQLite store in tmp_path with session "s", its audit lines captured: the file, the store and its service."""
    database = tmp_path / "sc.sqlite3"
    store = SQLiteStore(database)
    service = SharedContext(store, clock=lambda: "t")
    service.create_session("s")
    caplog.set_level(logging.INFO, logger="ctxconform.reference")
    return database, store, service


def write_in_a_batch_then_fail(
    service: SharedContext, faulty: Faulty, statements: set[str], failures: list[str] | None = None
) -> None:
    """In one batch: write `a`, make `statements` fail, then write `b` and `c`, noting each StoreError in `failures`."""
    with service.batch():
        service.handle("s", "o", {"action": "write", "key": "a", "value": "first"})
        faulty.fail = statements
        for key in ("b", "c") if failures is not None else ():
            try:
                service.handle("s", "o", {"action": "write", "key": key, "value": "later"})
            except StoreError as error:
                failures.append(str(error))
        if failures is not None:
            faulty.fail = set()


def write_then_fail(store: SQLiteStore) -> None:
    """Write k in a step that then raises."""
    with store.transaction() as tx:
        tx.put("s", Entry("k", "o", "t", 2, 1, "lost"), 1, 10)
        raise RuntimeError("after the write")


def refuse() -> None:
    """Raise the spec error a step refuses with."""
    raise SpecError("STORE_FULL", "refused after writing")


def read_across_a_commit(store: SQLiteStore, other: SharedContext) -> None:
    """Answer a session from memory, let `other` commit a write, then read the file in the same reading step."""
    with store.reading() as tx:
        assert tx.session("s") is not None
        other.handle("s", "w", {"action": "write", "key": "k", "value": "two"})
        tx.history("s", "k")


def wait_for(condition: Callable[[], bool], seconds: float = 10) -> None:
    """Poll `condition` until it holds; fail the test after `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail("the condition did not hold in time")
        time.sleep(0.005)


def test_writes_and_deletes_are_logged_with_metadata_and_never_values(caplog: pytest.LogCaptureFixture) -> None:
    """Each write and delete logs session, key, written_by, timestamp, tokens and version, and never the value.

    Checks shared-context/8.5/log-writes-deletes and shared-context/8.5/never-log-values for the reference.
    """
    service = SharedContext(MemoryStore())
    service.create_session("audit")
    secrets = ["patient 4711 is Jane Roe", "password hunter2"]
    with caplog.at_level(logging.INFO, logger="ctxconform.reference.shared_context"):
        service.handle("audit", "subagent:intake", {"action": "write", "key": "note", "value": secrets[0]})
        service.handle("audit", "subagent:intake", {"action": "write", "key": "note", "value": secrets[1]})
        service.handle("audit", "orchestrator", {"action": "delete", "key": "note"})
    records = [json.loads(r.getMessage()) for r in caplog.records]
    assert [r["event"] for r in records] == ["write", "write", "delete"]
    for record in records:
        assert set(record) == {"event", "session_id", "key", "written_by", "timestamp", "value_size_tokens", "version"}
    assert [r["version"] for r in records] == [1, 2, 2]
    assert not any(secret in caplog.text for secret in secrets)


def test_sqlite_and_memory_stores_answer_alike() -> None:
    """The same calls against both stores give the same answers, timestamps aside."""
    calls = [
        {"action": "write", "key": "a", "value": "one"},
        {"action": "write", "key": "a", "value": "two"},
        {"action": "write", "key": "b", "value": "x" * 4000},
        {"action": "read_history", "key": "a"},
        {"action": "snapshot", "label": "p1"},
        {"action": "delete", "key": "a"},
        {"action": "read_snapshot", "label": "p1"},
        {"action": "list_keys"},
    ]
    answers = []
    for store in (MemoryStore(), open_store("sqlite::memory:")):
        service = SharedContext(store, clock=lambda: "2026-01-01T00:00:00Z")
        service.create_session("s")
        answers.append([service.handle("s", "o", call) for call in calls])
    assert answers[0] == answers[1]


@pytest.mark.parametrize("url", ["memory:", "sqlite"])
def test_history_keeps_only_the_last_n_versions(url: str, tmp_path: Path) -> None:
    """read_history retains the configured number of versions, oldest first, also once the depth shrinks."""
    url = f"sqlite:///{tmp_path}/h.db" if url == "sqlite" else url
    store = open_store(url)
    service = SharedContext(store, history_depth=3)
    service.create_session("s")
    for n in range(5):
        service.handle("s", "o", {"action": "write", "key": "k", "value": str(n)})
    versions = service.handle("s", "o", {"action": "read_history", "key": "k"})["versions"]
    assert [(v["version"], v["value"]) for v in versions] == [(3, "2"), (4, "3"), (5, "4")]
    shallower = SharedContext(store, history_depth=2)
    shallower.handle("s", "o", {"action": "write", "key": "k", "value": "5"})
    versions = shallower.handle("s", "o", {"action": "read_history", "key": "k"})["versions"]
    assert [(v["version"], v["value"]) for v in versions] == [(5, "4"), (6, "5")]


def test_a_refused_write_changes_nothing() -> None:
    """VALUE_TOO_LARGE and STORE_FULL leave the entry, its version and the total as they were."""
    service = SharedContext(MemoryStore())
    service.create_session("s")
    for n in range(10):
        service.handle("s", "o", {"action": "write", "key": f"k{n}", "value": "x" * 4000})
    before = service.handle("s", "o", {"action": "list_keys"})
    for request, code in (
        ({"key": "k0", "value": "x" * 4004}, "VALUE_TOO_LARGE"),
        ({"key": "k10", "value": "abcd"}, "STORE_FULL"),
    ):
        with pytest.raises(SpecError) as raised:
            service.handle("s", "o", {"action": "write", **request})
        assert raised.value.code == code
    assert service.handle("s", "o", {"action": "list_keys"}) == before


@pytest.mark.parametrize(("query", "level"), [("", 2), ("?synchronous=full", 2), ("?synchronous=NORMAL", 1)])
def test_a_sqlite_url_chooses_how_often_commits_are_synced(tmp_path: Path, query: str, level: int) -> None:
    """FULL (2) syncs every commit, the default; ?synchronous=normal (1) survives a killed process without a sync each."""
    store = open_store(f"sqlite:///{tmp_path}/s.db{query}")
    try:
        assert store.path == tmp_path / "s.db"  # type: ignore[attr-defined]
        assert store._database._db.execute("PRAGMA synchronous").fetchone() == (level,)  # type: ignore[attr-defined]
    finally:
        store.close()


@pytest.mark.parametrize("url", ["postgres://x", "sqlite:///proc/forbidden/x.db", "sqlite:///tmp/x.db?synchronous=off"])
def test_store_urls_that_cannot_be_opened_say_what_to_use(url: str) -> None:
    """An unknown or unusable store URL raises StoreError with guidance, not an sqlite traceback."""
    with pytest.raises(StoreError, match=r"sqlite|memory|path"):
        open_store(url)


@pytest.mark.parametrize(
    ("op", "args", "context"),
    [
        ("create_session", {"session_id": "s\ud800"}, {"participant": "system"}),
        ("shared_context", {"action": "write", "key": "k", "value": "v\udfff"}, {"session_id": "s", "participant": "o"}),
        ("shared_context", {"action": "write", "key": "k", "value": "v"}, {"session_id": "s", "participant": "o\ud800"}),
        ("shared_context", {"action": "snapshot", "label": "l\udc00"}, {"session_id": "s", "participant": "o"}),
        ("shared_context", {"action": "read", "key": "k"}, {"session_id": "s\ud800", "participant": "o"}),
    ],
    ids=["session-id", "value", "participant", "label", "read-session-id"],
)
def test_unpaired_surrogates_are_refused_before_any_store_sees_them(
    tmp_path: Path, op: str, args: dict[str, Any], context: dict[str, Any]
) -> None:
    """An unpaired surrogate anywhere in a call is INVALID_REQUEST (SQLite cannot even encode it), and nothing changes."""
    reference = Reference()
    reference.handle({"type": "start", "protocol": 1, "state_dir": str(tmp_path)})
    call = {"type": "call", "seq": 1, "spec": "shared-context"}
    reference.handle({**call, "op": "create_session", "args": {"session_id": "s"}, "context": {"participant": "system"}})
    reply = reference.handle({**call, "op": op, "args": args, "context": context})
    assert reply.get("error", {}).get("code") == "INVALID_REQUEST", reply
    listing = reference.handle(
        {**call, "op": "shared_context", "args": {"action": "list_keys"}, "context": {"session_id": "s", "participant": "o"}}
    )
    assert listing["result"]["keys"] == []


def test_the_reference_ranks_codes_as_the_readme_says() -> None:
    """The README's interpretation holds for the reference: the value is checked before the session is (VALUE_TOO_LARGE).

    The suite accepts either code (section 5 does not rank them); this pins what the README says the reference does.
    """
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    assert "an oversized write to an archived session is `VALUE_TOO_LARGE`" in " ".join(readme.split())
    service = SharedContext(MemoryStore())
    service.create_session("s")
    service.archive_session("s")
    for request, code in (
        ({"key": "k", "value": "x" * 4004}, "VALUE_TOO_LARGE"),
        ({"key": "a.b", "value": "v"}, "INVALID_KEY"),
        ({"key": "k", "value": "v"}, "SESSION_ARCHIVED"),
    ):
        with pytest.raises(SpecError) as raised:
            service.handle("s", "o", {"action": "write", **request})
        assert raised.value.code == code


def synchronous_settings(state_dir: Path) -> dict[str, int]:
    """`PRAGMA synchronous` of every open SQLite connection to a file in `state_dir`, by file name (1 NORMAL, 2 FULL)."""
    found = {}
    for candidate in gc.get_objects():
        if not isinstance(candidate, sqlite3.Connection):
            continue
        try:
            path = Path(candidate.execute("PRAGMA database_list").fetchone()[2])
            setting = candidate.execute("PRAGMA synchronous").fetchone()[0]
        except sqlite3.ProgrammingError:  # closed
            continue
        if path.parent == state_dir:
            found[path.name] = setting
    return found


@pytest.mark.parametrize(
    ("adapter", "setting"),
    [("reference", 1), (f"python:{Reference.__module__}:Reference", 2)],
    ids=["in-process-reference", "reference-object"],
)
def test_the_in_process_reference_commits_unsynced_and_the_reference_synced(tmp_path: Path, adapter: str, setting: int) -> None:
    """`--adapter reference` opens every SQLite store of its state folder at synchronous=NORMAL; a Reference, at FULL."""
    implementation = connect(parse_adapter(adapter), tmp_path, timeout=10)
    implementation.start()
    try:
        names = ("shared-context.sqlite3", "content-provider.sqlite3", "context-snapshot.sqlite3")
        assert synchronous_settings(tmp_path) == dict.fromkeys(names, setting)
    finally:
        implementation.stop()


@pytest.mark.parametrize("request_", [{"action": "\U0001f600" * 2**20}, {"action": [["x" * 2**20]]}])
def test_an_unknown_action_of_a_megabyte_is_named_briefly(request_: dict[str, Any]) -> None:
    """The refusal of a huge action quotes the start of it, not all of it: an error message stays readable."""
    service = SharedContext(MemoryStore())
    service.create_session("s")
    with pytest.raises(SpecError) as refused:
        service.handle("s", "agent", request_)
    assert refused.value.code == "INVALID_ACTION"
    assert len(refused.value.message) < 300
