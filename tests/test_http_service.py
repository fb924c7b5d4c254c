"""The reference's HTTP service under load and faults: concurrent writers, kill -9 during writes, a dead Redis."""

from __future__ import annotations

import multiprocessing
import signal
import socket
import statistics
import time
from pathlib import Path

import pytest

from ctxconform.reference.shared_context import MAX_STORE_TOKENS
from helpers import wait_for_lines
from http_load import Target, acknowledged_writes, filling_writes, timed_writes
from redis_server import RedisServer, redis_server, start_redis
from test_http_transport import SECRET, Server, new_session, start_server, stop_server

__all__ = ["redis_server"]  # the fixture, imported so pytest finds it here

STORES = ("sqlite", "redis")


@pytest.fixture(params=STORES)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store URL: SQLite in tmp_path, or a database of the module's redis-server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/service.db"
    server: RedisServer = request.getfixturevalue("redis_server")
    return server.url


def test_eight_clients_writing_one_key_lose_no_increment(store_url: str, tmp_path: Path) -> None:
    """8 processes x 500 writes to one key through the server end at version 4000; prints throughput and latency."""
    server = start_server(tmp_path, "--store", store_url)
    try:
        path = new_session(server, f"counter-{time.monotonic_ns()}")
        jobs = [(Target(server.host, server.port, SECRET, path), "counter", 500, f"subagent:w{n}") for n in range(8)]
        started = time.perf_counter()
        with multiprocessing.get_context("spawn").Pool(8) as pool:
            latencies = [s for run in pool.starmap_async(timed_writes, jobs).get(timeout=300) for s in run]
        elapsed = time.perf_counter() - started
        status, read = server.request("POST", path, {"action": "read", "key": "counter"}, "orchestrator")
    finally:
        stop_server(server)
    assert (status, read["result"]["version"], len(latencies)) == (200, 4000, 4000)
    cuts = statistics.quantiles(latencies, n=100)
    store, p50, p99 = store_url.split(":", maxsplit=1)[0], cuts[49] * 1000, cuts[98] * 1000
    print(f"\nHTTP {store}: {4000 / elapsed:.0f} writes/s, p50 {p50:.1f} ms, p99 {p99:.1f} ms")


def test_concurrent_writes_to_different_keys_never_exceed_the_store_limit(store_url: str, tmp_path: Path) -> None:
    """6 processes filling 24 keys with large values through the server: STORE_FULL refusals, and the total stays in bounds."""
    server = start_server(tmp_path, "--store", store_url)
    try:
        path = new_session(server, f"full-{time.monotonic_ns()}")
        target = Target(server.host, server.port, SECRET, path)
        with multiprocessing.get_context("spawn").Pool(6) as pool:
            refused = sum(pool.starmap_async(filling_writes, [(target, seed, 60) for seed in range(6)]).get(timeout=300))
        status, listing = server.request("POST", path, {"action": "list_keys"}, "orchestrator")
    finally:
        stop_server(server)
    assert status == 200
    assert refused > 0
    assert sum(entry["value_size_tokens"] for entry in listing["result"]["keys"]) <= MAX_STORE_TOKENS


def test_every_acknowledged_write_survives_kill_9_of_the_server(store_url: str, tmp_path: Path) -> None:
    """A server killed with SIGKILL mid-load and started again on the same store still has every write it acknowledged."""
    server = start_server(tmp_path, "--store", store_url)
    path = new_session(server, f"durable-{time.monotonic_ns()}")
    log = tmp_path / "acks.txt"
    writer = multiprocessing.get_context("spawn").Process(
        target=acknowledged_writes, args=(Target(server.host, server.port, SECRET, path), log, 20.0)
    )
    writer.start()
    wait_for_lines(log, 50)
    server.process.send_signal(signal.SIGKILL)
    server.process.wait(timeout=10)
    writer.join(timeout=30)
    again = start_server(tmp_path, "--store", store_url)
    try:
        acks = [line.split() for line in log.read_text(encoding="utf-8").splitlines()]
        assert len(acks) >= 50
        for key, version in acks:
            status, read = again.request("POST", path, {"action": "read", "key": key}, "orchestrator")
            assert (status, read["result"]["version"]) == (200, int(version)), key
    finally:
        stop_server(again)


def test_a_dead_redis_is_a_503_error_reply_not_a_hang(tmp_path: Path) -> None:
    """With its Redis killed, the server answers 503 with an error naming the store, within a few seconds."""
    redis = start_redis(tmp_path / "redis")
    server = start_server(tmp_path, "--store", redis.url)
    try:
        path = new_session(server, "orphaned")
        redis.kill()
        started = time.monotonic()
        status, reply = server.request("POST", path, {"action": "read", "key": "k"}, "orchestrator")
        elapsed = time.monotonic() - started
    finally:
        stop_server(server)
    assert status == 503, reply
    assert "redis" in reply["errored"]["message"].lower()
    assert elapsed < 5


def held_open(server: Server, first: bytes = b"") -> socket.socket:
    """A client connection that sent `first` and then nothing more."""
    client = socket.create_connection((server.host, server.port), timeout=10)
    if first:
        client.sendall(first)
    return client


def dropped_within(client: socket.socket, seconds: float, trickle: bytes = b"") -> bool:
    """Whether the server closes `client` within `seconds`, while the client sends `trickle` every 0.1 s."""
    deadline = time.monotonic() + seconds
    client.settimeout(0.1)
    while time.monotonic() < deadline:
        try:
            if trickle:
                client.sendall(trickle)
            data = client.recv(65536)
        except TimeoutError:
            continue
        except OSError:
            return True
        if not data:
            return True
    return False


@pytest.mark.parametrize(
    ("first", "trickle"),
    [
        (b"", b""),  # an idle connection that never sends a request
        (b"POST /create_session HTTP/1.1\r\nHost: x\r\n", b"X-Slow: 1\r\n"),  # headers that never end
        (b"POST /create_session HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n", b"{"),  # a body that never ends
    ],
)
def test_a_slow_or_idle_connection_is_dropped_within_the_timeout(tmp_path: Path, first: bytes, trickle: bytes) -> None:
    """Slowloris: a connection trickling bytes is closed within the request timeout, and the server writes no traceback."""
    log = tmp_path / "stderr.log"
    with log.open("wb") as stderr:
        server = start_server(tmp_path, "--request-timeout", "1", "--idle-timeout", "1", stderr=stderr)
        try:
            client = held_open(server, first)
            with client:
                assert dropped_within(client, 4, trickle)
            assert server.request("GET", "/", None, None)[0] == 200
        finally:
            stop_server(server)
    assert "Traceback" not in log.read_text(encoding="utf-8", errors="replace")


def test_connections_beyond_the_limit_are_refused_and_the_server_still_answers(tmp_path: Path) -> None:
    """With the limit held by idle clients, another connection gets a 503 at once; freed slots serve again."""
    server = start_server(tmp_path, "--max-connections", "4", "--idle-timeout", "30")
    try:
        holders = [held_open(server) for _ in range(4)]
        time.sleep(0.3)
        with held_open(server, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n") as extra:
            extra.settimeout(5)
            assert extra.recv(65536).startswith(b"HTTP/1.1 503")
        for holder in holders:
            holder.close()
        time.sleep(0.3)
        assert server.request("GET", "/", None, None)[0] == 200
    finally:
        stop_server(server)
