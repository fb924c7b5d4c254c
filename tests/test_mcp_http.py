"""shared-context over MCP's streamable HTTP: the reference's server, its identity, load and faults, and the harness."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ctxconform.conformance.exceptions import ConfigurationError, ImplementationCrashed, ProtocolViolation
from ctxconform.conformance.judge._specs import start_options
from ctxconform.conformance.transports._adapters import connect, parse_adapter
from ctxconform.conformance.transports._implementation import Implementation
from ctxconform.conformance.transports._mcp import json_rpc_refusal
from ctxconform.conformance.transports._shared_context_http import mint_token
from ctxconform.reference.shared_context import MAX_STORE_TOKENS
from helpers import Cli, load_report, start_listening, stop_process, wait_for_lines
from mcp_load import McpSession, McpTarget, acknowledged_writes, filling_writes, session_as, timed_writes
from redis_server import RedisServer, redis_server, start_redis

__all__ = ["redis_server"]  # the fixture, imported so pytest finds it here

SC = "shared-context"
SECRET = "test-secret"  # noqa: S105 - a test secret, shared with the child on purpose
SERVE = f"{sys.executable} -m ctxconform.reference.mcp --http"
Json = dict[str, Any]


@dataclass(frozen=True)
class McpServer:
    """A running `python -m ctxconform.reference.mcp --http` child and the URL it serves MCP at."""

    process: subprocess.Popen[str]
    url: str

    def target(self, session_id: str) -> McpTarget:
        """Where tool calls for `session_id` go, with the secret the server checks tokens with."""
        return McpTarget(self.url, SECRET, session_id)

    def session(self, participant: str) -> McpSession:
        """An open MCP session as `participant`."""
        return session_as(self.target(""), participant)


def start_mcp_server(tmp_path: Path, store: str | None = None, stderr: Any = subprocess.DEVNULL) -> McpServer:
    """Start the reference MCP server over HTTP on a free port, its store in tmp_path unless named."""
    env = {"CTXCONFORM_TOKEN_SECRET": SECRET, "CTXCONFORM_STATE_DIR": str(tmp_path)}
    return McpServer(*start_listening([*SERVE.split(), *(["--store", store] if store else [])], env, stderr))


def stop_mcp_server(server: McpServer) -> None:
    """End the child, by force if it lingers."""
    stop_process(server.process)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpServer]:
    """One server shared by the module's API tests (each test uses its own sessions)."""
    running = start_mcp_server(tmp_path_factory.mktemp("mcp-http"))
    yield running
    stop_mcp_server(running)


def new_session(server: McpServer, session_id: str) -> McpTarget:
    """Create a session as system and return where its tool calls go."""
    system = server.session("system")
    assert system.call("create_session", {"session_id": session_id})["success"]
    system.close()
    return server.target(session_id)


# --- the server: identity ------------------------------------------------------------------------


def test_each_tokens_participant_is_written_by_on_one_shared_server(server: McpServer) -> None:
    """Two clients of one server write as the participants their tokens name; each reads the other's write."""
    target = new_session(server, "shared")
    analysis, review = session_as(target, "subagent:analysis"), session_as(target, "subagent:review")
    analysis.call("shared_context", {"action": "write", "key": "scope", "value": "pools"}, "shared")
    review.call("shared_context", {"action": "write", "key": "findings_summary", "value": "ok"}, "shared")
    read = review.call("shared_context", {"action": "read", "key": "scope"}, "shared")["data"]
    mine = analysis.call("shared_context", {"action": "read", "key": "findings_summary"}, "shared")["data"]
    assert (read["value"], read["written_by"]) == ("pools", "subagent:analysis")
    assert mine["written_by"] == "subagent:review"


def test_a_written_by_argument_cannot_spoof_identity(server: McpServer) -> None:
    """A write naming its own written_by is refused with INVALID_REQUEST and stores nothing."""
    target = new_session(server, "spoof")
    writer = session_as(target, "subagent:analysis")
    request = {"action": "write", "key": "scope", "value": "x", "written_by": "orchestrator"}
    refused = writer.call("shared_context", request, "spoof")
    listed = writer.call("shared_context", {"action": "list_keys"}, "spoof")
    assert (refused["success"], refused["error"]["code"]) == (False, "INVALID_REQUEST")
    assert listed["data"]["keys"] == []


@pytest.mark.parametrize(
    "token",
    [None, "not-a-token", mint_token("another-secret", "system"), f"{mint_token(SECRET, 'system')[:-1]}0"],
    ids=["missing", "malformed", "other-secret", "bad-signature"],
)
def test_a_missing_or_invalid_token_is_refused_with_401(server: McpServer, token: str | None) -> None:
    """Without a valid bearer token the server answers 401 before any MCP session opens."""
    status, _ = McpSession(server.url, token).open()
    assert status == 401


@pytest.mark.parametrize("tool", ["create_session", "archive_session", "delete_session"])
def test_lifecycle_tools_are_forbidden_to_a_participant_that_is_not_system(server: McpServer, tool: str) -> None:
    """create_session, archive_session and delete_session answer FORBIDDEN to an orchestrator's token."""
    target = new_session(server, f"guarded-{tool}")
    orchestrator = session_as(target, "orchestrator")
    refused = orchestrator.call(tool, {"session_id": target.session_id if tool != "create_session" else "new"})
    assert (refused["success"], refused["error"]["code"]) == (False, "FORBIDDEN")
    assert orchestrator.call("shared_context", {"action": "list_keys"}, target.session_id)["success"]


def test_writes_and_deletes_are_logged_with_metadata_and_never_their_values(tmp_path: Path) -> None:
    """The MCP server logs one JSON line per write and delete, with who, what and when, and no value appears in any log."""
    log = tmp_path / "server.log"
    with log.open("w", encoding="utf-8") as stderr:
        server = start_mcp_server(tmp_path, stderr=stderr)
        target = new_session(server, "audited")
        secrets = [f"secret-value-{n}-QZX" for n in range(3)]
        writer = session_as(target, "subagent:a")
        for n, secret in enumerate(secrets):
            assert writer.call("shared_context", {"action": "write", "key": f"k{n}", "value": secret}, "audited")["success"]
        assert session_as(target, "orchestrator").call("shared_context", {"action": "delete", "key": "k0"}, "audited")["success"]
        stop_mcp_server(server)
    text = log.read_text(encoding="utf-8")
    assert not any(secret in text for secret in secrets)
    records = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    assert [(r["event"], r["key"], r["written_by"], r["version"]) for r in records] == [
        ("write", "k0", "subagent:a", 1),
        ("write", "k1", "subagent:a", 1),
        ("write", "k2", "subagent:a", 1),
        ("delete", "k0", "orchestrator", 1),
    ]
    assert all({"session_id", "timestamp", "value_size_tokens"} <= r.keys() for r in records)


# --- the server: load and faults -----------------------------------------------------------------


@pytest.fixture(params=["sqlite", "redis"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store URL: SQLite in tmp_path, or a database of the module's redis-server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/service.db"
    running: RedisServer = request.getfixturevalue("redis_server")
    return f"{running.url.rsplit('/', 1)[0]}/4"


def test_eight_clients_writing_one_key_lose_no_increment(store_url: str, tmp_path: Path) -> None:
    """8 processes x 500 writes to one key through one MCP server end at version 4000; prints throughput and latency."""
    server = start_mcp_server(tmp_path, store_url)
    try:
        target = new_session(server, f"counter-{time.monotonic_ns()}")
        jobs = [(target, "counter", 500, f"subagent:w{n}") for n in range(8)]
        started = time.perf_counter()
        with multiprocessing.get_context("spawn").Pool(8) as pool:
            latencies = [s for run in pool.starmap_async(timed_writes, jobs).get(timeout=300) for s in run]
        elapsed = time.perf_counter() - started
        read = session_as(target, "orchestrator").call("shared_context", {"action": "read", "key": "counter"}, target.session_id)
    finally:
        stop_mcp_server(server)
    assert (read["data"]["version"], len(latencies)) == (4000, 4000)
    cuts = statistics.quantiles(latencies, n=100)
    store, p50, p99 = store_url.split(":", maxsplit=1)[0], cuts[49] * 1000, cuts[98] * 1000
    print(f"\nMCP over HTTP, {store}: {4000 / elapsed:.0f} writes/s, p50 {p50:.1f} ms, p99 {p99:.1f} ms")


def test_concurrent_writes_to_different_keys_never_exceed_the_store_limit(store_url: str, tmp_path: Path) -> None:
    """6 processes filling 24 keys with large values through one MCP server: STORE_FULL refusals, total in bounds."""
    server = start_mcp_server(tmp_path, store_url)
    try:
        target = new_session(server, f"full-{time.monotonic_ns()}")
        with multiprocessing.get_context("spawn").Pool(6) as pool:
            refused = sum(pool.starmap_async(filling_writes, [(target, seed, 60) for seed in range(6)]).get(timeout=300))
        listing = session_as(target, "orchestrator").call("shared_context", {"action": "list_keys"}, target.session_id)
    finally:
        stop_mcp_server(server)
    assert refused > 0
    assert sum(entry["value_size_tokens"] for entry in listing["data"]["keys"]) <= MAX_STORE_TOKENS


def test_every_acknowledged_write_survives_kill_9_of_the_server(store_url: str, tmp_path: Path) -> None:
    """An MCP server killed with SIGKILL mid-load and started again on the same store has every write it acknowledged."""
    server = start_mcp_server(tmp_path, store_url)
    target = new_session(server, f"durable-{time.monotonic_ns()}")
    log = tmp_path / "acks.txt"
    writer = multiprocessing.get_context("spawn").Process(target=acknowledged_writes, args=(target, log, 20.0))
    writer.start()
    wait_for_lines(log, 50)
    server.process.send_signal(signal.SIGKILL)
    server.process.wait(timeout=10)
    writer.join(timeout=30)
    again = start_mcp_server(tmp_path, store_url)
    try:
        acks = [line.split() for line in log.read_text(encoding="utf-8").splitlines()]
        reader = session_as(McpTarget(again.url, SECRET, target.session_id), "orchestrator")
        assert len(acks) >= 50
        for key, version in acks:
            read = reader.call("shared_context", {"action": "read", "key": key}, target.session_id)
            assert read["data"]["version"] == int(version), key
    finally:
        stop_mcp_server(again)


def test_a_dead_redis_is_a_tool_error_naming_the_store_not_a_hang(tmp_path: Path) -> None:
    """With its Redis killed, a tool call fails within seconds with an error result that names the store."""
    redis = start_redis(tmp_path / "redis")
    server = start_mcp_server(tmp_path, redis.url)
    try:
        target = new_session(server, "orphaned")
        reader = session_as(target, "orchestrator")
        redis.kill()
        started = time.monotonic()
        status, answer, _ = reader._post({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": _read_call("orphaned")})
        elapsed = time.monotonic() - started
    finally:
        stop_mcp_server(server)
    assert status == 200
    assert answer["result"]["isError"] is True
    assert "redis" in answer["result"]["content"][0]["text"].lower()
    assert elapsed < 5


def _read_call(session_id: str) -> Json:
    return {"name": "shared_context", "arguments": {"action": "read", "key": "k"}, "_meta": {"ctxconform/session_id": session_id}}


# --- the harness's transports --------------------------------------------------------------------


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Implementation]:
    """The reference over mcp+http+serve, started by the harness."""
    implementation = connect(parse_adapter(f"mcp+http+serve:{SERVE}"), tmp_path, timeout=10, options=start_options(tmp_path))
    implementation.start()
    yield implementation
    implementation.stop()


def test_mcp_http_serve_declares_the_spec_and_calls_as_the_contexts_participant(served: Implementation) -> None:
    """Over mcp+http+serve the reference declares shared-context and its features, and writes are the participant's."""
    assert served.info.specs[SC].version == "0.1.0-draft"
    assert served.features(SC) == {"read_batch", "read_history", "snapshot", "write_warning"}
    assert served.call(SC, "create_session", {"session_id": "s"}, {"participant": "system"}).ok
    writers = [f"subagent:review:{n}" for n in range(12)]  # more than the open connections kept
    results = [
        served.call(SC, "shared_context", {"action": "write", "key": "k", "value": w}, {"session_id": "s", "participant": w})
        for w in writers
    ]
    assert [(r.result["written_by"], r.result["version"]) for r in results] == [(w, n + 1) for n, w in enumerate(writers)]


def test_restart_over_mcp_http_serve_keeps_the_state(served: Implementation) -> None:
    """A restart starts the server again on the same state directory: what was written is still there."""
    served.call(SC, "create_session", {"session_id": "durable"}, {"participant": "system"})
    context = {"session_id": "durable", "participant": "orchestrator"}
    served.call(SC, "shared_context", {"action": "write", "key": "k", "value": "kept"}, context)
    served.restart()
    assert served.call(SC, "shared_context", {"action": "read", "key": "k"}, context).result["value"] == "kept"


def test_a_request_too_deep_for_the_sdk_still_reaches_the_server(served: Implementation) -> None:
    """A 500-deep value goes as raw JSON-RPC; the server's parse error comes back as INVALID_REQUEST, not HARNESS."""
    served.call(SC, "create_session", {"session_id": "deep"}, {"participant": "system"})
    deep: Any = "x"
    for _ in range(500):
        deep = [deep]
    context = {"session_id": "deep", "participant": "orchestrator"}
    reply = served.call(SC, "shared_context", {"action": "write", "key": "k", "value": deep}, context)
    assert reply.error is not None
    assert reply.error["code"] == "INVALID_REQUEST"
    assert served.call(SC, "shared_context", {"action": "list_keys"}, context).result["keys"] == []


def test_a_server_that_dies_gives_crash(served: Implementation) -> None:
    """When the server is killed, the next call fails with CRASH."""
    os.killpg(served._transport._child._process.pid, signal.SIGKILL)  # type: ignore[attr-defined]
    time.sleep(0.2)
    with pytest.raises(ImplementationCrashed):
        served.call(SC, "create_session", {"session_id": "s"}, {"participant": "system"})


def test_mcp_http_to_a_running_server_uses_the_harness_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """mcp+http://HOST:PORT/mcp mints tokens with the harness's CTXCONFORM_TOKEN_SECRET and reaches a running server."""
    running = start_mcp_server(tmp_path)
    monkeypatch.setenv("CTXCONFORM_TOKEN_SECRET", SECRET)
    implementation = connect(parse_adapter(f"mcp+{running.url}"), tmp_path / "state", timeout=10)
    try:
        implementation.start()
        assert implementation.call(SC, "create_session", {"session_id": "remote"}, {"participant": "system"}).ok
        reply = implementation.call(
            SC, "shared_context", {"action": "write", "key": "k", "value": "v"}, {"session_id": "remote", "participant": "p"}
        )
        assert reply.result["written_by"] == "p"
    finally:
        implementation.stop()
        stop_mcp_server(running)


@pytest.mark.parametrize(
    ("code", "expected"), [(-32700, "INVALID_REQUEST"), (-32600, "INVALID_REQUEST"), (-32602, "INVALID_REQUEST")]
)
def test_json_rpc_refusals_of_a_malformed_call_are_invalid_request(code: int, expected: str) -> None:
    """A parse error, invalid request or invalid params from the MCP layer is the spec's INVALID_REQUEST."""
    assert json_rpc_refusal(code, "no")["error"]["code"] == expected


def test_other_json_rpc_errors_are_protocol_violations() -> None:
    """A JSON-RPC error that does not refuse a malformed call (method not found, internal error) is PROTOCOL."""
    with pytest.raises(ProtocolViolation, match="-32603"):
        json_rpc_refusal(-32603, "internal")


@pytest.mark.parametrize(
    ("text", "url"),
    [("mcp+http://127.0.0.1:8000/mcp", "http://127.0.0.1:8000/mcp"), ("mcp+http://[::1]:9/", "http://[::1]:9/")],
)
def test_mcp_http_adapters_keep_the_url(text: str, url: str) -> None:
    """mcp+http://HOST:PORT/PATH names the server's MCP endpoint, path included."""
    assert parse_adapter(text).target == url


@pytest.mark.parametrize("text", ["mcp+http://127.0.0.1/mcp", "mcp+http://user@127.0.0.1:1/mcp", "mcp+http://:80/"])
def test_bad_mcp_http_adapter_strings_say_what_to_write(text: str) -> None:
    """An mcp+http adapter without a host or port, or with credentials, is a ConfigurationError saying what to write."""
    with pytest.raises(ConfigurationError, match=r"mcp\+http://HOST:PORT/PATH"):
        parse_adapter(text)


# --- the whole suite -----------------------------------------------------------------------------


# The default session's sample: the golden scripts (every operation, refusals included), the restarts of the
# restarts (the server started again on the same store) and the two instances; `nox -s slow` runs all.
SAMPLE = "test_snapshots or versions_continue_after_a_restart or deleted_session_stays_gone or two_instances"


def run_over_mcp_http(store: str, tmp_path: Path, request: pytest.FixtureRequest, *selection: str) -> Json:
    """Run shared-context's suite (or a selection of it) over mcp+http+serve on `store`; the report's implementation."""
    env = {}
    if store == "redis":
        running: RedisServer = request.getfixturevalue("redis_server")
        env["CTXCONFORM_STORE"] = f"{running.url.rsplit('/', 1)[0]}/5"
    arguments = ("--adapter", f"mcp+http+serve:{SERVE}", "--spec", SC, "--report-dir", "reports", "--seed", "1", "--quiet")
    done = Cli(tmp_path)("run", *arguments, *selection, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    (implementation,) = load_report(tmp_path / "reports")["implementations"]
    implementation: Json
    return implementation


def assert_passes_bar_uncarriable(implementation: Json) -> None:
    """Every test passes, or is SKIP as an input MCP cannot carry (a lone surrogate the SDK's server drops unanswered)."""
    assert implementation["status"] in {"conformant", "partial"}  # partial: a selection ran
    assert set(implementation["counts"]) <= {"PASS", "SKIP"}
    skipped = [t for t in implementation["tests"] if t["verdict"] == "SKIP"]
    assert all("cannot carry this input" in t["message"] for t in skipped), skipped


@pytest.mark.parametrize("store", ["sqlite", "redis"])
def test_a_sample_of_the_suite_passes_over_mcp_http(store: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """Over mcp+http+serve the reference passes the golden scripts, restarts and two instances, on SQLite and Redis."""
    implementation = run_over_mcp_http(store, tmp_path, request, "--keyword", SAMPLE)
    assert_passes_bar_uncarriable(implementation)
    assert implementation["counts"]["PASS"] >= 5


@pytest.mark.slow
@pytest.mark.parametrize("store", ["sqlite", "redis"])
def test_the_shared_context_suite_passes_over_mcp_http(store: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """Over mcp+http+serve the reference passes every shared-context test, on SQLite and on Redis."""
    implementation = run_over_mcp_http(store, tmp_path, request)
    assert_passes_bar_uncarriable(implementation)
    assert implementation["counts"]["PASS"] >= 50
