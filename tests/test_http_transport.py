"""The reference's shared-context over HTTP (`ctxconform.reference.shared_context.http`) and the harness's http transports."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, HTTPServer, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from ctxconform.conformance.exceptions import (
    ConfigurationError,
    ImplementationCrashed,
    ImplementationTimeout,
    ImplementationUnavailable,
    ProtocolViolation,
)
from ctxconform.conformance.transports._adapters import connect, parse_adapter
from ctxconform.conformance.transports._implementation import Implementation
from ctxconform.conformance.transports._shared_context_http import MAX_BODY_BYTES, _Connection, mint_token
from helpers import Cli, load_report, start_listening, stop_process

SECRET = "test-secret"  # noqa: S105 - a test secret, shared with the child on purpose
SERVER = "ctxconform.reference.shared_context.http"
SERVE = f"{sys.executable} -m {SERVER} --store sqlite:///{{state_dir}}/shared-context.sqlite3 --port 0"


@dataclass(frozen=True)
class Server:
    """A running `python -m ctxconform.reference.shared_context.http` child."""

    process: subprocess.Popen[str]
    host: str
    port: int

    def request(
        self, method: str, path: str, body: object = None, participant: str | None = "system", *, raw: bytes | None = None
    ) -> tuple[int, Any]:
        """Send one request as `participant` (signed with SECRET) and return the status and decoded body."""
        headers = {} if participant is None else {"Authorization": f"Bearer {mint_token(SECRET, participant)}"}
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        connection = http.client.HTTPConnection(self.host, self.port, timeout=10)
        try:
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            return response.status, json.loads(response.read())
        finally:
            connection.close()


def start_server(tmp_path: Path, *extra: str, stderr: Any = subprocess.DEVNULL) -> Server:
    """Start the reference HTTP server on a free port, its store in tmp_path, and wait for its listening line."""
    command = [
        sys.executable,
        "-m",
        "ctxconform.reference.shared_context.http",
        "--store",
        f"sqlite:///{tmp_path}/x.db",
        "--port",
        "0",
    ]
    process, url = start_listening([*command, *extra], {"CTXCONFORM_TOKEN_SECRET": SECRET}, stderr)
    host, _, port = url.removeprefix("http://").rpartition(":")
    return Server(process, host, int(port))


def stop_server(server: Server) -> None:
    """End the child, by force if it lingers."""
    stop_process(server.process)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server shared by the module's API tests (each test uses its own sessions)."""
    running = start_server(tmp_path_factory.mktemp("http"))
    yield running
    stop_server(running)


def new_session(server: Server, session_id: str) -> str:
    """Create a session as system and return its percent-encoded tool path."""
    assert server.request("POST", "/create_session", {"session_id": session_id}) == (
        200,
        {"result": {"session_id": session_id, "state": "active"}},
    )
    return f"/sessions/{session_id}/shared_context"


# --- the server ---------------------------------------------------------------------------------


def test_get_root_describes_the_implementation_like_started(server: Server) -> None:
    """GET / names the implementation and the shared-context version and features, as `started` does."""
    status, info = server.request("GET", "/", participant=None)
    assert status == 200
    assert info["implementation"] == {"name": "ctxconform-reference", "version": "0.1.0", "language": "python"}
    assert info["specs"]["shared-context"]["version"] == "0.1.0-draft"
    assert "read_batch" in info["specs"]["shared-context"]["features"]


def test_a_written_value_reads_back_as_written_by_the_tokens_participant(server: Server) -> None:
    """A write then a read round-trips the value; written_by is the participant the token names."""
    path = new_session(server, "round-trip")
    status, written = server.request("POST", path, {"action": "write", "key": "scope", "value": "v1"}, "subagent:analysis")
    assert status == 200
    assert written["result"]["written_by"] == "subagent:analysis"
    status, read = server.request("POST", path, {"action": "read", "key": "scope"}, "orchestrator")
    assert (status, read["result"]["value"], read["result"]["written_by"]) == (200, "v1", "subagent:analysis")


def test_a_written_by_field_in_the_body_cannot_spoof_identity(server: Server) -> None:
    """A body carrying written_by is refused with 400 INVALID_REQUEST and nothing is stored."""
    path = new_session(server, "spoof")
    request = {"action": "write", "key": "scope", "value": "v", "written_by": "orchestrator"}
    status, answer = server.request("POST", path, request, "subagent:evil")
    assert (status, answer["error"]["code"]) == (400, "INVALID_REQUEST")
    assert server.request("POST", path, {"action": "list_keys"}, "orchestrator")[1]["result"]["keys"] == []


@pytest.mark.parametrize(
    "authorization",
    [None, f"Bearer {mint_token('another-secret', 'system')}", "Bearer nonsense", f"Basic {mint_token(SECRET, 'system')}"],
    ids=["missing", "other-secret", "garbage", "not-bearer"],
)
def test_a_missing_or_invalid_token_is_401_unauthenticated(server: Server, authorization: str | None) -> None:
    """No token, a token signed with another secret, garbage or another scheme: 401 UNAUTHENTICATED."""
    connection = http.client.HTTPConnection(server.host, server.port, timeout=10)
    headers = {} if authorization is None else {"Authorization": authorization}
    connection.request("POST", "/create_session", body=b'{"session_id": "unauthenticated"}', headers=headers)
    response = connection.getresponse()
    assert (response.status, json.loads(response.read())["error"]["code"]) == (401, "UNAUTHENTICATED")
    connection.close()


def test_a_non_system_token_cannot_call_lifecycle_operations(server: Server) -> None:
    """create_session with an orchestrator's token is 403 FORBIDDEN and creates nothing."""
    status, answer = server.request("POST", "/create_session", {"session_id": "forbidden"}, "orchestrator")
    assert (status, answer["error"]["code"]) == (403, "FORBIDDEN")
    assert server.request("POST", "/create_session", {"session_id": "forbidden"})[0] == 200


@pytest.mark.parametrize("raw", [b"{not json", b"[1, 2]", b"", b"\xff\xfe"], ids=["broken", "array", "empty", "not-utf8"])
def test_a_body_that_is_not_a_json_object_is_400_invalid_request(server: Server, raw: bytes) -> None:
    """Bad JSON, a JSON array, an empty body or bytes that are not text: 400 INVALID_REQUEST."""
    status, answer = server.request("POST", "/create_session", raw=raw)
    assert (status, answer["error"]["code"]) == (400, "INVALID_REQUEST")


@pytest.mark.parametrize("path", ["/frobnicate", "/sessions/s/frobnicate", "/sessions/s", "/sessions/a/b/shared_context"])
def test_an_unknown_path_is_404_unknown_op(server: Server, path: str) -> None:
    """A path that names no operation is 404 UNKNOWN_OP."""
    status, answer = server.request("POST", path, {})
    assert (status, answer["error"]["code"]) == (404, "UNKNOWN_OP")


def test_spec_errors_get_the_status_that_fits(server: Server) -> None:
    """SESSION_EXISTS is 409, KEY_NOT_FOUND and SESSION_NOT_FOUND 404, INVALID_KEY 400."""
    path = new_session(server, "statuses")
    assert server.request("POST", "/create_session", {"session_id": "statuses"})[0] == 409
    assert server.request("POST", path, {"action": "read", "key": "nope"}, "orchestrator")[0] == 404
    assert server.request("POST", "/sessions/nowhere/shared_context", {"action": "list_keys"}, "orchestrator")[0] == 404
    assert server.request("POST", path, {"action": "read", "key": "Not-Valid"}, "orchestrator")[0] == 400


def test_a_percent_encoded_unicode_session_id_works(server: Server) -> None:
    """A session id with accents, an emoji, a slash and a space is reached through its percent-encoding."""
    session_id = "sesión/🎉 x"
    new_session(server, session_id)
    path = "/sessions/" + "".join(f"%{b:02X}" for b in session_id.encode()) + "/shared_context"
    status, answer = server.request("POST", path, {"action": "write", "key": "k", "value": "v"}, "orchestrator")
    assert (status, answer["result"]["version"]) == (200, 1)
    assert server.request("POST", "/sessions/sesi%C3%B3n/shared_context", {"action": "list_keys"})[0] == 404


def test_a_session_id_that_is_not_utf8_is_400(server: Server) -> None:
    """A percent-encoded session id that does not decode as UTF-8 is 400 INVALID_REQUEST."""
    status, answer = server.request("POST", "/sessions/%FF/shared_context", {"action": "list_keys"})
    assert (status, answer["error"]["code"]) == (400, "INVALID_REQUEST")


def test_the_server_survives_a_client_that_disconnects_mid_request(server: Server) -> None:
    """A client that sends half a body and hangs up does not stop the server answering others."""
    with socket.create_connection((server.host, server.port), timeout=5) as raw:
        raw.sendall(b'POST /create_session HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"session_id":')
    assert server.request("GET", "/")[0] == 200
    assert server.process.poll() is None


def exchange(server: Server, data: bytes, answers: int = 1) -> list[bytes]:
    """Send raw bytes on one connection and read `answers` whole responses (head and body), or until it closes."""
    replies: list[bytes] = []
    with socket.create_connection((server.host, server.port), timeout=10) as raw:
        raw.sendall(data)
        received = b""
        while len(replies) < answers:
            head_end = received.find(b"\r\n\r\n")
            if head_end >= 0:
                length = int(
                    next(
                        (
                            line.split(b":")[1]
                            for line in received[:head_end].split(b"\r\n")
                            if line.lower().startswith(b"content-length:")
                        ),
                        b"0",
                    )
                )
                if len(received) >= head_end + 4 + length:
                    replies.append(received[: head_end + 4 + length])
                    received = received[head_end + 4 + length :]
                    continue
            chunk = raw.recv(65536)
            if not chunk:
                break
            received += chunk
    return replies


def test_pipelined_requests_on_one_connection_are_answered_in_order(server: Server) -> None:
    """Requests sent back to back, before any answer, are each answered, in the order sent."""
    path = new_session(server, "pipelined").encode()
    token = f"Bearer {mint_token(SECRET, 'orchestrator')}".encode()
    requests = b"".join(
        b"POST %s HTTP/1.1\r\nAuthorization: %s\r\nContent-Length: %d\r\n\r\n%s" % (path, token, len(body), body)
        for body in (json.dumps({"action": "write", "key": f"k{n}", "value": str(n)}).encode() for n in range(5))
    )
    replies = exchange(server, requests, answers=5)
    assert [json.loads(reply.partition(b"\r\n\r\n")[2])["result"]["key"] for reply in replies] == [f"k{n}" for n in range(5)]


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (b"GET / HTTP/2.0\r\n\r\n", b"505"),
        (b"DELETE / HTTP/1.1\r\n\r\n", b"405"),
        (b"GET / HTTP/1.1\r\nX: " + b"y" * 70_000 + b"\r\n\r\n", b"431"),
        (b"POST /create_session HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", b"501"),
        (b"nonsense\r\n\r\n", b"400"),
    ],
)
def test_a_request_the_server_does_not_serve_gets_a_json_error_and_the_server_goes_on(
    server: Server, request_bytes: bytes, status: bytes
) -> None:
    """An unknown version or method, a head too long, a chunked body or garbage: the status that says so, in JSON."""
    (reply,) = exchange(server, request_bytes)
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.split(b" ")[1] == status
    assert json.loads(body)["error"]["code"] == "INVALID_REQUEST"
    assert server.request("GET", "/")[0] == 200


def test_a_client_that_sends_requests_but_never_reads_the_answers_is_not_served_ahead(server: Server) -> None:
    """Requests pipelined by a client that reads no answer wait once its unread answers fill a buffer: memory stays bounded."""
    path = new_session(server, "unread").encode()
    token = f"Bearer {mint_token(SECRET, 'orchestrator')}".encode()
    for n in range(9):
        written = server.request("POST", path.decode(), {"action": "write", "key": f"k{n}", "value": "x" * 3900}, "orchestrator")
        assert written[0] == 200
    body = json.dumps({"action": "read_batch", "keys": [f"k{n}" for n in range(9)]}).encode()
    one = b"POST %s HTTP/1.1\r\nAuthorization: %s\r\nContent-Length: %d\r\n\r\n%s" % (path, token, len(body), body)
    before = resident_kib(server)
    with socket.create_connection((server.host, server.port), timeout=10) as raw:
        raw.sendall(one * 1500)  # 50 MB of answers
        time.sleep(2)
        grown = resident_kib(server) - before
        assert server.request("GET", "/")[0] == 200
    assert grown < 12_000, f"the server grew by {grown} KiB for a client that reads nothing"


def resident_kib(server: Server) -> int:
    """The server process's resident memory, in KiB."""
    status = Path(f"/proc/{server.process.pid}/status").read_text(encoding="utf-8")
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")))


def test_a_client_expecting_100_continue_is_told_to_send_its_body(server: Server) -> None:
    """With Expect: 100-continue the server says 100 Continue before the body arrives, then answers the request."""
    body = json.dumps({"session_id": "continued"}).encode()
    token = f"Bearer {mint_token(SECRET, 'system')}".encode()
    with socket.create_connection((server.host, server.port), timeout=10) as raw:
        raw.sendall(
            b"POST /create_session HTTP/1.1\r\nAuthorization: %s\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n"
            % (token, len(body))
        )
        assert raw.recv(65536) == b"HTTP/1.1 100 Continue\r\n\r\n"
        raw.sendall(body)
        assert raw.recv(65536).startswith(b"HTTP/1.1 200 OK\r\n")


def test_an_http_1_0_request_is_answered_and_the_connection_closed(server: Server) -> None:
    """An HTTP/1.0 client, which does not keep connections unless it asks, gets its answer and then the close."""
    replies = exchange(server, b"GET / HTTP/1.0\r\n\r\n", answers=2)
    assert len(replies) == 1
    assert b"Connection: close" in replies[0]


def test_fixed_tokens_from_a_file_name_participants(tmp_path: Path) -> None:
    """A --tokens file maps a fixed token to a participant, who becomes written_by."""
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"fixed-admin": "system", "fixed-agent": "subagent:fixed"}), encoding="utf-8")
    running = start_server(tmp_path, "--tokens", str(tokens))
    try:
        for token, body in (("fixed-admin", {"session_id": "s"}), ("fixed-agent", {"action": "write", "key": "k", "value": "v"})):
            connection = http.client.HTTPConnection(running.host, running.port, timeout=10)
            path = "/create_session" if "session_id" in body else "/sessions/s/shared_context"
            connection.request("POST", path, body=json.dumps(body).encode(), headers={"Authorization": f"Bearer {token}"})
            answer = json.loads(connection.getresponse().read())
            connection.close()
        assert answer["result"]["written_by"] == "subagent:fixed"
    finally:
        stop_server(running)


def test_a_body_over_the_limit_is_413_and_the_connection_stays_usable(tmp_path: Path) -> None:
    """A body over --max-body-bytes is 413, read off the wire so the same connection answers the next request."""
    running = start_server(tmp_path, "--max-body-bytes", "100")
    try:
        connection = http.client.HTTPConnection(running.host, running.port, timeout=10)
        connection.request("POST", "/create_session", body=b" " * 1000)
        response = connection.getresponse()
        assert (response.status, json.loads(response.read())["error"]["code"]) == (413, "INVALID_REQUEST")
        connection.request("GET", "/")
        assert connection.getresponse().status == 200
        connection.close()
    finally:
        stop_server(running)


def test_sigterm_stops_the_server_within_5_seconds(tmp_path: Path) -> None:
    """SIGTERM ends the server cleanly (exit 0) within 5 s."""
    running = start_server(tmp_path)
    started = time.monotonic()
    running.process.send_signal(signal.SIGTERM)
    assert running.process.wait(timeout=5) == 0
    assert time.monotonic() - started < 5


# --- the harness's transports -------------------------------------------------------------------


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Implementation]:
    """The reference over http+serve, started by the harness."""
    implementation = connect(parse_adapter(f"http+serve:{SERVE}"), tmp_path / "state", timeout=10)
    implementation.start()
    yield implementation
    implementation.stop()


def test_http_serve_starts_the_child_and_calls_as_the_contexts_participant(served: Implementation) -> None:
    """Over http+serve the harness's calls work and written_by is the context's participant."""
    assert served.info.specs["shared-context"].version == "0.1.0-draft"
    assert served.call("shared-context", "create_session", {"session_id": "s"}, {"participant": "system"}).ok
    reply = served.call(
        "shared-context",
        "shared_context",
        {"action": "write", "key": "k", "value": "v"},
        {"session_id": "s", "participant": "p:1"},
    )
    assert reply.result["written_by"] == "p:1"


def test_restart_over_http_serve_keeps_the_state(served: Implementation) -> None:
    """A restart starts the child again on the same state_dir: what was written is still there."""
    served.call("shared-context", "create_session", {"session_id": "durable"}, {"participant": "system"})
    context = {"session_id": "durable", "participant": "orchestrator"}
    served.call("shared-context", "shared_context", {"action": "write", "key": "k", "value": "kept"}, context)
    served.restart()
    assert served.call("shared-context", "shared_context", {"action": "read", "key": "k"}, context).result["value"] == "kept"


def test_a_call_for_another_spec_is_unknown_op(served: Implementation) -> None:
    """A call whose spec is not shared-context is answered UNKNOWN_OP without reaching the server."""
    reply = served.call("read-context", "read_context", {"image_id": "x"}, {})
    assert reply.error is not None
    assert reply.error["code"] == "UNKNOWN_OP"


def test_a_server_that_dies_gives_crash(served: Implementation) -> None:
    """When the child is killed, the next call fails with CRASH."""
    os.killpg(served._transport._child._process.pid, signal.SIGKILL)  # type: ignore[attr-defined]
    time.sleep(0.2)
    with pytest.raises(ImplementationCrashed):
        served.call("shared-context", "create_session", {"session_id": "s"}, {"participant": "system"})


@pytest.mark.parametrize(
    ("script", "verdict"),
    [("raise SystemExit(3)", "CRASH"), ("import time; time.sleep(30)", "TIMEOUT")],
    ids=["exits", "never-listens"],
)
def test_a_child_that_does_not_listen_cannot_start(tmp_path: Path, script: str, verdict: str) -> None:
    """A child that exits, or never prints its listening line, is unavailable with CRASH or TIMEOUT."""
    adapter = parse_adapter(f"http+serve:{sys.executable} -c '{script}'")
    implementation = connect(adapter, tmp_path, timeout=1, start_timeout=3)
    started = time.monotonic()
    with pytest.raises(ImplementationUnavailable, match=verdict):
        implementation.start()
    assert time.monotonic() - started < 10


def test_http_to_a_running_service_uses_the_harness_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """http://HOST:PORT mints tokens with the harness's CTXCONFORM_TOKEN_SECRET and reaches a running service."""
    running = start_server(tmp_path)
    monkeypatch.setenv("CTXCONFORM_TOKEN_SECRET", SECRET)
    implementation = connect(parse_adapter(f"http://{running.host}:{running.port}"), tmp_path / "state", timeout=10)
    try:
        implementation.start()
        assert implementation.call("shared-context", "create_session", {"session_id": "remote"}, {"participant": "system"}).ok
        monkeypatch.setenv("CTXCONFORM_TOKEN_SECRET", "wrong")
        implementation.restart()
        reply = implementation.call("shared-context", "create_session", {"session_id": "remote2"}, {"participant": "system"})
        assert reply.error is not None
        assert reply.error["code"] == "UNAUTHENTICATED"
    finally:
        implementation.stop()
        stop_server(running)


class _NotJson(BaseHTTPRequestHandler):
    """Answers every request with a body that is not JSON."""

    def do_GET(self) -> None:
        """Answer GET / with plain text."""
        self.send_response(200)
        self.send_header("Content-Length", "5")
        self.end_headers()
        self.wfile.write(b"hello")

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Stay quiet."""


def test_a_reply_that_is_not_json_is_a_protocol_violation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A service that answers plain text gets PROTOCOL."""
    fake = HTTPServer(("127.0.0.1", 0), _NotJson)
    threading.Thread(target=fake.serve_forever, daemon=True).start()
    monkeypatch.setenv("CTXCONFORM_TOKEN_SECRET", SECRET)
    transport = parse_adapter(f"http://127.0.0.1:{fake.server_address[1]}").make_transport()
    try:
        transport.open()
        with pytest.raises(ProtocolViolation):
            transport.exchange({"type": "start", "protocol": 1, "state_dir": str(tmp_path)}, 5)
    finally:
        fake.shutdown()
        fake.server_close()


class _Hostile(BaseHTTPRequestHandler):
    """Answers GET / with the body the server's `body` names: one too large to hold, or one that trickles."""

    def do_GET(self) -> None:
        """Send the status line and headers at once, then the body as the server was told; or trickle the headers."""
        body: str = self.server.body  # type: ignore[attr-defined]
        if body == "headers":
            self._trickle_headers()
            return
        self.send_response(200)
        huge = MAX_BODY_BYTES + 1024 * 1024
        self.send_header("Content-Length", str(huge if body == "huge" else 1000))
        self.end_headers()
        try:
            if body == "huge":
                block = b"x" * (1024 * 1024)
                for _ in range(huge // len(block)):
                    self.wfile.write(block)
            else:  # a byte every tenth of a second: each read is quick, the whole never ends in time
                for _ in range(1000):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(0.1)
        except OSError:
            pass  # the harness gave up on the answer and closed the connection: what the test expects

    def _trickle_headers(self) -> None:
        """A header line every tenth of a second, 90 of them (under http.client's 100), then an empty answer."""
        try:
            self.wfile.write(b"HTTP/1.1 200 OK\r\n")
            for n in range(90):
                self.wfile.write(f"X-Slow-{n}: 1\r\n".encode())
                self.wfile.flush()
                time.sleep(0.1)
            self.wfile.write(b"Content-Length: 0\r\n\r\n")
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Stay quiet."""


@pytest.mark.parametrize(
    ("body", "failure"), [("huge", ProtocolViolation), ("trickle", ImplementationTimeout), ("headers", ImplementationTimeout)]
)
def test_an_answer_too_large_or_too_slow_to_read_is_refused_in_time(body: str, failure: type[Exception]) -> None:
    """A body over MAX_BODY_BYTES is PROTOCOL without holding it all; a body or headers that trickle are TIMEOUT in time."""
    fake = ThreadingHTTPServer(("127.0.0.1", 0), _Hostile)
    fake.body = body  # type: ignore[attr-defined]
    fake.daemon_threads = True
    threading.Thread(target=fake.serve_forever, daemon=True).start()
    connection = _Connection("127.0.0.1", fake.server_address[1])
    try:
        started = time.monotonic()
        with pytest.raises(failure):
            connection.request("GET", "/", None, {}, 2.0)
        assert time.monotonic() - started < 5  # the deadline is 2 s; the trickles would take 9 s and 100 s
    finally:
        connection.close()
        fake.shutdown()
        fake.server_close()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("http://127.0.0.1:1/x", "write http://HOST:PORT"),
        ("http://127.0.0.1", "write http://HOST:PORT"),
        ("https://a:1", "not available yet"),
    ],
)
def test_bad_http_adapter_strings_say_what_to_write(text: str, message: str) -> None:
    """An http adapter with a path or without a port, or https, is a ConfigurationError saying what to write."""
    with pytest.raises(ConfigurationError, match=message):
        parse_adapter(text)


# --- the whole suite ------------------------------------------------------------------------------


def test_the_shared_context_suite_over_http_matches_in_process(tmp_path: Path) -> None:
    """Over http+serve the reference is conformant, with the same tests and verdicts as in-process."""

    def run(adapter: str) -> dict[str, str]:
        folder = tmp_path / adapter.partition(":")[0]
        args = ("run", "--adapter", adapter, "--spec", "shared-context", "--report-dir", str(folder), "--seed", "1", "--quiet")
        done = Cli(tmp_path)(*args)
        assert done.returncode == 0, done.stdout + done.stderr
        (implementation,) = load_report(folder)["implementations"]
        assert implementation["status"] == "conformant"
        return {t["id"]: t["verdict"] for t in implementation["tests"]}

    with ThreadPoolExecutor(2) as pool:  # the two runs are independent: side by side, the test takes the longer one
        in_process, over_http = pool.map(run, ["reference", f"http+serve:{SERVE}"])
    assert over_http == in_process


def test_writes_and_deletes_are_logged_with_metadata_and_never_their_values(tmp_path: Path) -> None:
    """The server logs one JSON line per write and delete, with who, what and when, and no value appears in any log."""
    log = tmp_path / "server.log"
    with log.open("w", encoding="utf-8") as stderr:
        server = start_server(tmp_path, stderr=stderr)
        path = new_session(server, "audited")
        secrets = [f"secret-value-{n}-ZQX" for n in range(3)]
        for n, secret in enumerate(secrets):
            assert server.request("POST", path, {"action": "write", "key": f"k{n}", "value": secret}, "subagent:a")[0] == 200
        assert server.request("POST", path, {"action": "delete", "key": "k0"}, "orchestrator")[0] == 200
        stop_server(server)
    text = log.read_text(encoding="utf-8")
    assert not any(secret in text for secret in secrets)
    records = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    assert [(r["event"], r["key"], r["written_by"], r["version"]) for r in records] == [
        ("write", "k0", "subagent:a", 1),
        ("write", "k1", "subagent:a", 1),
        ("write", "k2", "subagent:a", 1),
        ("delete", "k0", "orchestrator", 1),
    ]
    assert all(r["session_id"] == "audited" and r["value_size_tokens"] >= 1 and r["timestamp"].endswith("Z") for r in records)
