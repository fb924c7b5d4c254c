"""The shared-context reference over Redis: same answers as SQLite, atomic across processes, durable, bounded failures."""

from __future__ import annotations

import multiprocessing
import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
import redis

from ctxconform.reference.exceptions import SpecError, StoreError
from ctxconform.reference.shared_context import MAX_STORE_TOKENS, MemoryStore, SharedContext, SQLiteStore, open_store
from ctxconform.reference.shared_context._redis import RedisStore, Timing
from redis_server import RedisServer, redis_server, running_redis

__all__ = ["redis_server"]

CLOCK = "2026-01-01T00:00:00Z"
ODD = "naïve \u2028 line\x00nul \U0001f600 {x}:y"


def _calls(odd: str) -> list[tuple[str, Any]]:
    return [(method, _odd(request, odd)) for method, request in CALLS]


def _odd(request: Any, odd: str) -> Any:
    if isinstance(request, dict):
        return {name: odd if value == ODD else value for name, value in request.items()}
    return request


CALLS: list[tuple[str, Any]] = [
    ("handle", {"action": "list_keys"}),
    ("handle", {"action": "write", "key": "a", "value": "one"}),
    ("handle", {"action": "write", "key": "a", "value": ODD}),
    ("handle", {"action": "write", "key": "b", "value": "x" * 4000}),
    ("handle", {"action": "write", "key": "c", "value": "x" * 4004}),
    ("handle", {"action": "read", "key": "a"}),
    ("handle", {"action": "read", "key": "zz"}),
    ("handle", {"action": "read_batch", "keys": ["b", "zz", "a", "a"]}),
    ("handle", {"action": "read_history", "key": "a"}),
    ("handle", {"action": "read_history", "key": "a", "versions": [2]}),
    ("handle", {"action": "snapshot", "label": "p1 ünïcode {x}:y"}),
    ("handle", {"action": "snapshot", "label": "p1 ünïcode {x}:y"}),
    ("handle", {"action": "delete", "key": "a"}),
    ("handle", {"action": "delete", "key": "a"}),
    ("handle", {"action": "read_history", "key": "a"}),
    ("handle", {"action": "write", "key": "a", "value": "again"}),
    ("handle", {"action": "read_snapshot", "label": "p1 ünïcode {x}:y"}),
    ("handle", {"action": "read_snapshot", "label": "none"}),
    *[("handle", {"action": "write", "key": f"k{n}", "value": "y" * 4000}) for n in range(10)],
    ("handle", {"action": "list_keys"}),
    ("archive_session", None),
    ("handle", {"action": "write", "key": "a", "value": "late"}),
    ("handle", {"action": "read", "key": "a"}),
    ("create_session", None),
    ("delete_session", None),
    ("handle", {"action": "list_keys"}),
    ("create_session", None),
    ("handle", {"action": "list_keys"}),
]


def _answer(service: SharedContext, session_id: str, method: str, request: Any) -> Any:
    try:
        if method == "handle":
            return service.handle(session_id, f"subagent:{session_id}", request)
        return getattr(service, method)(session_id)
    except SpecError as error:
        return error.code


def _script(store: Any, session_id: str, odd: str) -> list[Any]:
    service = SharedContext(store, clock=lambda: CLOCK, history_depth=3)
    service.create_session(session_id)
    return [_answer(service, session_id, method, request) for method, request in _calls(odd)]


def _session_keys(server: RedisServer) -> list[bytes]:
    return list(redis.Redis.from_url(server.url).scan_iter(match="ctxconform:sc:*", count=1000))


def test_redis_store_answers_like_memory_and_sqlite(redis_server: RedisServer, tmp_path: Path) -> None:
    """A script of writes, reads, errors, history, snapshots, archive and delete gives the same answers on all three stores."""
    sid = "s {tag}:ü 😀 " + "x" * 200
    memory = _script(MemoryStore(), sid, ODD)
    assert _script(SQLiteStore(tmp_path / "sc.db"), sid, ODD) == memory
    assert _script(RedisStore(redis_server.url), sid, ODD) == memory
    assert "STORE_FULL" in memory
    assert "SESSION_ARCHIVED" in memory


def test_delete_session_leaves_no_redis_keys(redis_server: RedisServer) -> None:
    """delete_session removes the session's meta, entries, history and snapshots from Redis."""
    service = SharedContext(RedisStore(redis_server.url))
    service.create_session("gone")
    for key in ("a", "b"):
        service.handle("gone", "o", {"action": "write", "key": key, "value": "v"})
    service.handle("gone", "o", {"action": "snapshot", "label": "l"})
    assert any(b"{gone}" in key for key in _session_keys(redis_server))
    service.delete_session("gone")
    assert not any(b"{gone}" in key for key in _session_keys(redis_server))


def test_a_lock_that_expires_before_commit_applies_nothing(redis_server: RedisServer) -> None:
    """When the session lock expires mid-transaction, the fenced commit refuses and the write is not applied."""
    store = RedisStore(redis_server.url, Timing(lock_ttl_ms=50))
    service = SharedContext(store)
    service.create_session("fenced")
    other = SharedContext(RedisStore(redis_server.url))
    transaction = store.transaction()
    tx = transaction.__enter__()
    assert tx.session("fenced") is not None
    time.sleep(0.2)
    other.handle("fenced", "other", {"action": "write", "key": "k", "value": "x"})
    tx.remove("fenced", "k", 0)
    with pytest.raises(StoreError, match="expired"):
        transaction.__exit__(None, None, None)
    assert service.handle("fenced", "o", {"action": "read", "key": "k"})["written_by"] == "other"


def test_a_lock_left_by_a_dead_client_expires_and_writes_go_on(redis_server: RedisServer) -> None:
    """A lock whose holder died blocks the session only until its TTL, then writes succeed."""
    service = SharedContext(RedisStore(redis_server.url))
    service.create_session("orphan")
    redis.Redis.from_url(redis_server.url).set("ctxconform:sc:{orphan}:lock", b"dead", px=300)
    started = time.monotonic()
    assert service.handle("orphan", "o", {"action": "write", "key": "k", "value": "v"})["version"] == 1
    assert 0.2 < time.monotonic() - started < 3


def _write_counter(url: str, writer: str, count: int) -> int:
    service = SharedContext(RedisStore(url))
    for _ in range(count):
        service.handle("counter", writer, {"action": "write", "key": "counter", "value": writer})
    return count


def test_eight_processes_writing_one_key_lose_no_increment(redis_server: RedisServer) -> None:
    """8 spawned processes x 500 writes to one key through separate stores end at version 4000 with a consistent history."""
    service = SharedContext(RedisStore(redis_server.url))
    service.create_session("counter")
    with multiprocessing.get_context("spawn").Pool(8) as pool:
        done = pool.starmap_async(_write_counter, [(redis_server.url, f"w{n}", 500) for n in range(8)]).get(timeout=60)
    assert sum(done) == 4000
    entry = service.handle("counter", "o", {"action": "read", "key": "counter"})
    history = service.handle("counter", "o", {"action": "read_history", "key": "counter"})["versions"]
    assert entry["version"] == 4000
    assert [v["version"] for v in history] == list(range(3991, 4001))
    assert history[-1] == entry


def _fill(url: str, seed: int, count: int) -> int:
    service, rng, refused = SharedContext(RedisStore(url)), random.Random(seed), 0  # noqa: S311 - reproducible test data
    for _ in range(count):
        key, request = f"k{rng.randrange(24)}", {"action": "write", "value": "z" * rng.randrange(1600, 4000)}
        try:
            service.handle("full", f"w{seed}", {**request, "key": key})
        except SpecError as error:
            refused += 1
            if error.code != "STORE_FULL":
                raise
    return refused


def test_concurrent_writes_near_the_limit_never_exceed_it(redis_server: RedisServer) -> None:
    """Processes racing to fill different keys never push the total past the limit, and the total matches the entries."""
    store = RedisStore(redis_server.url)
    SharedContext(store).create_session("full")
    with multiprocessing.get_context("spawn").Pool(6) as pool:
        refused = pool.starmap_async(_fill, [(redis_server.url, seed, 150) for seed in range(6)]).get(timeout=60)
    assert sum(refused) > 0
    with store.transaction() as tx:
        session, metadata = tx.session("full"), tx.metadata("full")
    assert session is not None
    assert session.total_tokens == sum(meta.tokens for meta in metadata) <= MAX_STORE_TOKENS


WRITER = textwrap.dedent(
    """
    import sys
    from ctxconform.reference.shared_context import SharedContext, open_store
    service = SharedContext(open_store(sys.argv[1]))
    service.create_session("s")
    with open(sys.argv[2], "a", encoding="utf-8") as acknowledged:
        for i in range(100000):
            result = service.handle("s", "w", {"action": "write", "key": f"k{i % 50}", "value": f"value {i}"})
            acknowledged.write(f"{i} {result['version']}\\n")
            acknowledged.flush()
    """
)


def test_acknowledged_writes_survive_kill_9_of_redis(tmp_path: Path) -> None:
    """Every write acknowledged before redis-server is killed with SIGKILL is there, with its version, after a restart."""
    log = tmp_path / "acknowledged.txt"
    with running_redis(tmp_path / "redis") as server:
        writer = subprocess.Popen([sys.executable, "-c", WRITER, server.url, str(log)], stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 20
        while (not log.exists() or log.read_text().count("\n") < 300) and time.monotonic() < deadline:
            time.sleep(0.02)
        server.kill()
        _, stderr = writer.communicate(timeout=10)
        assert "StoreError" in stderr
        server.start()
        service = SharedContext(RedisStore(server.url))
        lines = log.read_text().splitlines()
        assert len(lines) >= 300
        for line in lines:
            index, version = map(int, line.split())
            entry = service.handle("s", "auditor", {"action": "read", "key": f"k{index % 50}"})
            assert entry["version"] > version or entry == {**entry, "version": version, "value": f"value {index}"}


def test_a_stopped_redis_gives_store_error_quickly(tmp_path: Path) -> None:
    """Once redis-server is gone, an operation fails with StoreError naming the URL within two seconds."""
    with running_redis(tmp_path) as server:
        service = SharedContext(RedisStore(server.url))
        service.create_session("s")
        server.stop()
        started = time.monotonic()
        with pytest.raises(StoreError, match=r"127\.0\.0\.1.*redis-server is running") as raised:
            service.handle("s", "o", {"action": "write", "key": "k", "value": "v"})
        assert time.monotonic() - started < 2
        assert raised.value.url == server.url


def test_a_frozen_redis_gives_store_error_within_the_socket_timeout(tmp_path: Path) -> None:
    """A redis-server that stops answering (SIGSTOP) gives StoreError after about two seconds, not a hang."""
    with running_redis(tmp_path) as server:
        service = SharedContext(RedisStore(server.url))
        service.create_session("s")
        server.pause()
        started = time.monotonic()
        with pytest.raises(StoreError, match=r"Timeout|timed out"):
            service.handle("s", "o", {"action": "read", "key": "k"})
        assert 1.5 < time.monotonic() - started < 5


def test_open_store_opens_redis_urls(redis_server: RedisServer) -> None:
    """redis:// URLs open a RedisStore that works; sqlite and memory URLs still open their stores."""
    store = open_store(redis_server.url)
    assert isinstance(store, RedisStore)
    with store.transaction() as tx:
        assert tx.session("never") is None
    store.close()
    assert isinstance(open_store("memory:"), MemoryStore)
    assert isinstance(open_store("sqlite::memory:"), SQLiteStore)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis://127.0.0.1:1/0", "redis://127.0.0.1:1/0"),
        ("rediss://127.0.0.1:1/0", "rediss://127.0.0.1:1/0"),
        ("unix:///nonexistent/redis.sock", "unix:///nonexistent/redis.sock"),
        ("redis://user:hunter2@127.0.0.1:1/0", "redis://user:***@127.0.0.1:1/0"),
        ("redis://127.0.0.1:1/notadb", "redis://127.0.0.1:1/notadb"),
        ("mongodb://x", "mongodb://x"),
    ],
)
def test_store_urls_that_cannot_be_opened_name_the_url_and_what_to_use(url: str, shown: str) -> None:
    """An unreachable Redis or an unknown scheme raises StoreError naming the URL (password hidden) and the accepted forms."""
    started = time.monotonic()
    with pytest.raises(StoreError, match=r"redis.*sqlite|sqlite.*redis") as raised:
        open_store(url)
    assert raised.value.url == shown
    assert "hunter2" not in str(raised.value)
    assert time.monotonic() - started < 3
