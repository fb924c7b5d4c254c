"""The harness's own MCP client against hostile or unusual servers: over stdio (wire_mcp.py) and streamable HTTP (a fake here)."""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from ctxconform.conformance import Implementation, connect, parse_adapter
from ctxconform.conformance.exceptions import (
    ImplementationCrashed,
    ImplementationErrored,
    ImplementationTimeout,
    ProtocolViolation,
    Uncarriable,
)
from ctxconform.conformance.judge._specs import start_options
from ctxconform.conformance.transports import _http_deadline, _mcp_http
from ctxconform.conformance.transports._mcp import SDK_CANNOT_PARSE, StdioChannel
from ctxconform.conformance.transports._mcp_client import ChannelClosed, McpClient, RpcError
from ctxconform.conformance.transports._mcp_http import HttpChannel
from ctxconform.conformance.transports._stdio import StdioTransport

WIRE = Path(__file__).with_name("wire_mcp.py")
RC = "read-context"
VERSION = "2025-06-18"
SESSION = "session-42"
INITIALIZED = {"protocolVersion": VERSION, "capabilities": {"tools": {}}, "serverInfo": {"name": "fake", "version": "1"}}
PROGRESS = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 0.5}}
Json = dict[str, Any]


def within(seconds: float) -> float:
    """The deadline `seconds` from now."""
    return time.monotonic() + seconds


def result(data: Json) -> Json:
    """A tools/call result whose structured content is `data`."""
    return {"content": [], "structuredContent": data}


def answer(request_id: object, body: Json) -> Json:
    """A JSON-RPC answer holding `body` as its result."""
    return {"jsonrpc": "2.0", "id": request_id, "result": body}


# --- stdio: wire_mcp.py behind StdioChannel ------------------------------------------------------


class WireServers:
    """wire_mcp.py servers started by one test, each behind an McpClient; all closed at the end."""

    def __init__(self) -> None:
        self.clients: list[McpClient] = []

    def client(self, mode: str, *line: str, initialize: bool = True) -> McpClient:
        """A client of a new wire_mcp.py in `mode`, after the handshake unless told not to."""
        server = StdioTransport([sys.executable, str(WIRE), mode, *line], supervised=False)
        server.open()
        client = McpClient(StdioChannel(server))
        self.clients.append(client)
        if initialize:
            client.initialize(within(10))
        return client


@pytest.fixture
def wire() -> Iterator[WireServers]:
    """Start wire_mcp.py servers; every one is ended when the test is over."""
    servers = WireServers()
    yield servers
    for client in servers.clients:
        client.close(1.0)


def test_notifications_and_server_requests_before_the_answer_are_handled(wire: WireServers) -> None:
    """Notifications are skipped, a ping is answered and a sampling request refused, and the call still gets its answer."""
    called = wire.client("chatty").call_tool("read_context", {"image_id": "img"}, None, within(5))
    assert called.structured_content is not None
    ping, sampling = called.structured_content["answers"]
    assert called.structured_content["image_id"] == "img"
    assert ping == {"jsonrpc": "2.0", "id": "srv-ping", "result": {}}
    assert (sampling["id"], sampling["error"]["code"]) == ("srv-sample", -32601)


def test_a_late_answer_to_a_timed_out_call_is_skipped(wire: WireServers) -> None:
    """The first call times out at its deadline; its answer, arriving later, is not taken for the next call's."""
    client = wire.client("late")
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        client.call_tool("read_context", {"n": 1}, None, within(0.3))
    assert 0.25 < time.monotonic() - started < 1.3
    assert client.call_tool("read_context", {"n": 2}, None, within(5)).structured_content == {"n": 2}


@pytest.mark.parametrize(
    "line",
    [
        "this is not JSON",
        '{"jsonrpc": "2.0", "id": $ID, "res',
        '{"jsonrpc": "2.0", "id": $ID, "result": {"content": [], "structuredContent": {"x": "\udcff"}}}',
        "[" * 5000 + "]" * 5000,
    ],
    ids=["text", "truncated", "not-utf-8", "too-deep"],
)
def test_a_line_that_is_not_json_is_a_protocol_violation(wire: WireServers, line: str) -> None:
    """A line the client cannot decode as JSON (text, cut short, not UTF-8, nested past the decoder) is PROTOCOL."""
    with pytest.raises(ProtocolViolation):
        wire.client("raw", line).call_tool("read_context", {}, None, within(5))


@pytest.mark.parametrize(
    "line",
    [
        '{"id": $ID, "result": {"content": []}}',
        '{"jsonrpc": "1.0", "id": $ID, "result": {"content": []}}',
        "42",
        '"an answer"',
        "null",
        "[1, 2]",
        '{"jsonrpc": "2.0", "id": $ID}',
        '{"jsonrpc": "2.0", "id": $ID, "error": "it broke"}',
        '{"jsonrpc": "2.0", "id": null, "error": {"code": "-32700", "message": "x"}}',
        '{"jsonrpc": "2.0", "id": $ID, "result": {"content": "not a list"}}',
    ],
    ids=[
        "no-jsonrpc",
        "jsonrpc-1.0",
        "number",
        "string",
        "null",
        "batch-of-numbers",
        "neither-result-nor-error",
        "error-not-an-object",
        "error-code-not-an-integer",
        "result-not-a-tool-result",
    ],
)
def test_json_that_is_not_a_json_rpc_answer_is_a_protocol_violation(wire: WireServers, line: str) -> None:
    """A JSON line that is not a JSON-RPC 2.0 message, or not a valid answer to tools/call, is PROTOCOL and nothing else."""
    with pytest.raises(ProtocolViolation):
        wire.client("raw", line).call_tool("read_context", {}, None, within(5))


@pytest.mark.parametrize(
    "line",
    [
        '[{"jsonrpc": "2.0", "id": $ID, "result": {"content": [], "structuredContent": {"ok": 1}}}]',
        (
            '[{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}},'
            ' {"jsonrpc": "2.0", "id": 999, "result": {"content": [], "structuredContent": {"ok": 0}}},'
            ' {"jsonrpc": "2.0", "id": "p", "method": "ping"},'
            ' {"jsonrpc": "2.0", "id": $ID, "result": {"content": [], "structuredContent": {"ok": 1}}}]'
        ),
        '{"jsonrpc": "2.0", "id": $ID, "result": {"content": [], "structuredContent": {"ok": 1}}}\r',
        '{"jsonrpc": "2.0", "id": $ID, "result": {"content": [], "structuredContent": {"ok": 1}, "extra": [1]}, "x": 1}',
    ],
    ids=["batch-of-one", "batch-with-notification-stale-answer-and-ping", "crlf", "unknown-fields"],
)
def test_unusual_but_valid_answers_are_taken(wire: WireServers, line: str) -> None:
    """An answer in a batch (with notifications, a stale answer and a ping around it), after CRLF, or with extra fields works."""
    assert wire.client("raw", line).call_tool("read_context", {}, None, within(5)).structured_content == {"ok": 1}


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ('{"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}', -32700),
        ('{"jsonrpc": "2.0", "id": $ID, "error": {"code": -32602, "message": "Invalid params"}}', -32602),
    ],
    ids=["null-id-parse-error", "own-id-invalid-params"],
)
def test_an_error_answer_is_an_rpc_error_with_its_code(wire: WireServers, line: str, code: int) -> None:
    """An error answer, with the call's id or with a null id (the server could not parse the request), is RpcError."""
    with pytest.raises(RpcError) as refused:
        wire.client("raw", line).call_tool("read_context", {}, None, within(5))
    assert refused.value.code == code


def test_a_protocol_version_the_client_does_not_speak_is_a_protocol_violation(wire: WireServers) -> None:
    """A server answering initialize with a version outside the client's handshake versions is PROTOCOL."""
    client = wire.client("old-version", initialize=False)
    with pytest.raises(ProtocolViolation, match="1999-01-01"):
        client.initialize(within(5))


def test_a_server_that_exits_mid_call_closes_the_channel(wire: WireServers) -> None:
    """A server exiting while a call waits is ChannelClosed; a call after it is ChannelClosed or ImplementationCrashed."""
    client = wire.client("exit")
    with pytest.raises(ChannelClosed, match="exited with code 3"):
        client.call_tool("read_context", {}, None, within(5))
    with pytest.raises((ChannelClosed, ImplementationCrashed)):
        client.call_tool("read_context", {}, None, within(5))


def test_a_server_that_stops_reading_times_out_a_large_call_at_its_deadline(wire: WireServers) -> None:
    """A call too large for the pipe, to a server that reads no more, is TimeoutError at the deadline, not a blocked harness."""
    client = wire.client("deaf", initialize=False)
    client.initialize(within(10))
    started = time.monotonic()
    with pytest.raises(TimeoutError, match="did not read its input"):
        client.call_tool("read_context", {"text": "x" * 4_000_000}, None, within(0.5))
    assert time.monotonic() - started < 2.0


def test_a_stdio_child_that_reads_nothing_times_out_a_large_message() -> None:
    """The stdio transport's write waits for the pipe only until the call's timeout: ImplementationTimeout, not a hang."""
    child = StdioTransport([sys.executable, "-c", "import time; time.sleep(60)"], supervised=False)
    child.open()
    try:
        started = time.monotonic()
        with pytest.raises(ImplementationTimeout, match="did not read its input"):
            child.exchange({"type": "call", "seq": 1, "args": "x" * 4_000_000}, 0.5)
        assert time.monotonic() - started < 2.0
    finally:
        child.close(1.0)


def test_tools_list_follows_cursors_across_pages(wire: WireServers) -> None:
    """tools/list follows nextCursor until a page has none, and returns every page's tools in order."""
    assert [tool.name for tool in wire.client("pages").list_tools(within(5))] == ["t0", "t1", "t2", "t3", "t4"]


def test_cursors_that_never_end_are_a_protocol_violation_not_a_hang(wire: WireServers) -> None:
    """A server whose every page has a new cursor is PROTOCOL after a bounded number of pages, well before the deadline."""
    started = time.monotonic()
    with pytest.raises(ProtocolViolation, match="did not end"):
        wire.client("endless").list_tools(within(20))
    assert time.monotonic() - started < 5


# --- HTTP: a fake streamable HTTP server in a thread ---------------------------------------------


@dataclass(frozen=True)
class Received:
    """One request the fake received: its verb, JSON-RPC message (None for DELETE), headers (lower-cased) and client port."""

    verb: str
    message: Json | None
    headers: dict[str, str]
    port: int


@dataclass
class FakeMcpHttp:
    """A streamable HTTP MCP server that answers initialize and notifications itself, and other requests with `on_call`."""

    on_call: Callable[[FakeHandler, Json], None]
    received: list[Received] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)  # set at the end of the test: slow answers give up
    closed: threading.Event = field(default_factory=threading.Event)  # set each time the fake closes a connection
    url: str = ""

    def posted(self) -> list[Received]:
        """The POSTs received so far."""
        return [request for request in self.received if request.verb == "POST"]


class FakeServer(ThreadingHTTPServer):
    """The HTTP server of one FakeMcpHttp: quiet when a client goes away, and telling when it closes a connection."""

    def __init__(self, fake: FakeMcpHttp) -> None:
        super().__init__(("127.0.0.1", 0), FakeHandler)
        self.fake = fake

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up is part of the tests; anything else is reported."""
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        """Close the connection, then say so."""
        super().shutdown_request(request)
        self.fake.closed.set()


class FakeHandler(BaseHTTPRequestHandler):
    """One connection to the fake: HTTP/1.1, kept alive unless an answer says otherwise."""

    protocol_version = "HTTP/1.1"
    server: FakeServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        """Say nothing."""

    def do_POST(self) -> None:
        """Answer initialize (with a session id) and notifications (202) here, any other request with on_call."""
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        self._record("POST", message)
        if message.get("method") == "initialize":
            self.reply(200, json.dumps(answer(message["id"], INITIALIZED)).encode(), headers={"Mcp-Session-Id": SESSION})
        elif "method" not in message or "id" not in message:
            self.reply(202, b"")
        else:
            self.server.fake.on_call(self, message)

    def do_DELETE(self) -> None:
        """End the session."""
        self._record("DELETE", None)
        self.reply(200, b"")

    def reply(self, status: int, body: bytes, content_type: str = "application/json", headers: Json | None = None) -> None:
        """An answer with a Content-Length; nothing happens when the client has gone."""
        with contextlib.suppress(OSError):
            self.send_response(status)
            for name, value in {"Content-Type": content_type, "Content-Length": str(len(body)), **(headers or {})}.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

    def stream(self, chunks: Iterable[bytes], content_type: str = "text/event-stream") -> None:
        """An answer in chunked transfer encoding, one chunk per item as it comes, then its end."""
        with contextlib.suppress(OSError):
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for chunk in chunks:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.write(b"0\r\n\r\n")

    def every(self, chunk: bytes, seconds: float = 0.05) -> Iterator[bytes]:
        """`chunk` every `seconds`, until the test is over."""
        while not self.server.fake.stop.wait(seconds):
            yield chunk

    def _record(self, verb: str, message: Json | None) -> None:
        headers = {name.lower(): value for name, value in self.headers.items()}
        self.server.fake.received.append(Received(verb, message, headers, self.client_address[1]))


FakeFactory = Callable[[Callable[[FakeHandler, Json], None]], FakeMcpHttp]
ClientFactory = Callable[[FakeMcpHttp], McpClient]


@pytest.fixture
def http_fake() -> Iterator[FakeFactory]:
    """Start fake servers answering calls with the function given; each is stopped when the test is over."""
    servers: list[FakeServer] = []

    def start(on_call: Callable[[FakeHandler, Json], None]) -> FakeMcpHttp:
        fake = FakeMcpHttp(on_call)
        server = FakeServer(fake)
        fake.url = f"http://127.0.0.1:{server.server_port}/mcp"
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        servers.append(server)
        return fake

    yield start
    for server in servers:
        server.fake.stop.set()
        server.shutdown()
        server.server_close()


@pytest.fixture
def clients() -> Iterator[ClientFactory]:
    """Clients of a fake, after their handshake; each is closed when the test is over."""
    opened: list[McpClient] = []

    def open_client(fake: FakeMcpHttp) -> McpClient:
        client = McpClient(HttpChannel(fake.url, {"Authorization": "Bearer token-1"}))
        opened.append(client)
        client.initialize(within(5))
        return client

    yield open_client
    for client in opened:
        client.close(1.0)


def answer_as_json(handler: FakeHandler, request: Json) -> None:
    """Answer a call with its arguments, as a JSON body."""
    handler.reply(200, json.dumps(answer(request["id"], result(request["params"]["arguments"]))).encode())


def event(message: Json, kind: str = "") -> bytes:
    """One server-sent event carrying `message`."""
    return (f"event: {kind}\n" if kind else "").encode() + b"data: " + json.dumps(message).encode() + b"\n\n"


def test_an_event_stream_answer_after_other_events_works_within_the_session(
    http_fake: FakeFactory, clients: ClientFactory
) -> None:
    """Comments, a notification, another event type and retry/id fields are skipped; the session's headers go along."""

    def on_call(handler: FakeHandler, request: Json) -> None:
        if request["params"]["arguments"].get("json"):
            answer_as_json(handler, request)
            return
        wrong = answer(request["id"], result({"from": "an event that is not a message"}))
        data = json.dumps(answer(request["id"], result({"from": "the answer"})))
        half = data.index('"result"')
        body = (
            b": keeping the stream alive\n"
            + event(PROGRESS, "message")
            + b"retry: 1000\n"
            + event(wrong, "endpoint")
            + f"id: 7\r\ndata: {data[:half]}\r\ndata:  {data[half:]}\r\n\r\n".encode()
        )
        handler.reply(200, body, "text/event-stream; charset=utf-8")

    fake = http_fake(on_call)
    client = clients(fake)
    streamed = client.call_tool("read_context", {}, None, within(5))
    plain = client.call_tool("read_context", {"json": True}, None, within(5))
    client.close(1.0)
    assert (streamed.structured_content, plain.structured_content) == ({"from": "the answer"}, {"json": True})
    initialize, *later = fake.received
    assert initialize.message is not None
    assert initialize.message["method"] == "initialize"
    assert "mcp-session-id" not in initialize.headers
    assert "mcp-protocol-version" not in initialize.headers
    assert [(request.verb, request.headers["mcp-session-id"], request.headers["mcp-protocol-version"]) for request in later] == [
        ("POST", SESSION, VERSION),  # notifications/initialized
        ("POST", SESSION, VERSION),  # tools/call, answered as an event stream
        ("POST", SESSION, VERSION),  # tools/call, answered as JSON
        ("DELETE", SESSION, VERSION),
    ]
    assert {request.headers["authorization"] for request in fake.received} == {"Bearer token-1"}


def test_closing_after_a_chunked_event_stream_answer_sends_delete(http_fake: FakeFactory, clients: ClientFactory) -> None:
    """The session ends with a DELETE also when the last answer came as a chunked event stream (MCP SDK servers send those)."""
    fake = http_fake(lambda handler, request: handler.stream([event(answer(request["id"], result({"ok": 1})))]))
    client = clients(fake)
    assert client.call_tool("read_context", {}, None, within(5)).structured_content == {"ok": 1}
    client.close(1.0)
    assert [request.verb for request in fake.received][-1] == "DELETE"


def test_a_ping_inside_an_event_stream_is_answered_and_the_call_gets_its_answer(
    http_fake: FakeFactory, clients: ClientFactory
) -> None:
    """A server may ask the client something before it answers; over HTTP the client answers a ping with its own POST."""

    def on_call(handler: FakeHandler, request: Json) -> None:
        def events() -> Iterator[bytes]:
            yield event({"jsonrpc": "2.0", "id": "srv-ping", "method": "ping"})
            deadline = within(2)
            while not any(r.message and r.message.get("id") == "srv-ping" for r in handler.server.fake.posted()):
                if handler.server.fake.stop.wait(0.01) or time.monotonic() > deadline:
                    return
            yield event(answer(request["id"], result({"pinged": True})))

        handler.stream(events())

    fake = http_fake(on_call)
    assert clients(fake).call_tool("read_context", {}, None, within(5)).structured_content == {"pinged": True}


def trickle(handler: FakeHandler) -> None:
    """A JSON answer promising 100000 bytes and sending one every 50 ms."""
    handler.reply(200, b"", headers={"Content-Length": "100000"})
    with contextlib.suppress(OSError):
        for byte in handler.every(b" "):
            handler.wfile.write(byte)


def trickle_headers(handler: FakeHandler) -> None:
    """A status line, then a header line every 50 ms: each read is quick, the headers never end."""
    with contextlib.suppress(OSError):
        handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
        for n, _ in enumerate(handler.every(b"")):
            handler.wfile.write(f"X-Slow-{n}: 1\r\n".encode())
            handler.wfile.flush()


@pytest.mark.parametrize(
    "slow",
    [
        lambda handler, _request: handler.stream(handler.every(b": still working\n\n")),
        lambda handler, _request: handler.stream(handler.every(event(PROGRESS))),
        lambda handler, _request: handler.server.fake.stop.wait(10),
        lambda handler, _request: trickle(handler),
        lambda handler, _request: trickle_headers(handler),
    ],
    ids=["comments", "notifications", "no-headers", "json-body-never-complete", "headers-never-complete"],
)
def test_an_answer_that_never_comes_times_out_at_the_deadline(
    http_fake: FakeFactory, clients: ClientFactory, slow: Callable[[FakeHandler, Json], None]
) -> None:
    """A server that keeps the answer coming slowly, or never starts it, ends in TimeoutError about at the deadline."""
    client = clients(http_fake(slow))
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        client.call_tool("read_context", {}, None, within(0.5))
    assert 0.45 < time.monotonic() - started < 1.5


def pieces(data: bytes, size: int) -> list[bytes]:
    """`data` cut into pieces of `size` bytes: the HTTP chunks of a stream, each read on its own."""
    return [data[start : start + size] for start in range(0, len(data), size)]


@pytest.mark.parametrize(
    "big",
    [
        lambda handler, request: handler.reply(200, json.dumps(answer(request["id"], result({"x": "y" * 5000}))).encode()),
        lambda handler, request: handler.stream(pieces(event(answer(request["id"], result({"x": "y" * 5000}))), 1000)),
        lambda handler, _request: handler.stream(handler.every(b"data: " + b"y" * 300, 0.001)),
    ],
    ids=["json-body", "one-event-in-pieces", "a-line-without-end"],
)
def test_an_answer_larger_than_the_limit_is_a_protocol_violation(
    http_fake: FakeFactory, clients: ClientFactory, monkeypatch: pytest.MonkeyPatch, big: Callable[[FakeHandler, Json], None]
) -> None:
    """A body, an event or an endless line past MAX_BODY_BYTES is PROTOCOL, before the deadline."""
    for module in (_http_deadline, _mcp_http):  # bodies are bounded in the one, events in the other
        monkeypatch.setattr(module, "MAX_BODY_BYTES", 2048)
    client = clients(http_fake(big))
    started = time.monotonic()
    with pytest.raises(ProtocolViolation):
        client.call_tool("read_context", {}, None, within(10))
    assert time.monotonic() - started < 2


def test_the_size_limit_is_per_event_not_per_stream(
    http_fake: FakeFactory, clients: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many small notifications that together pass MAX_BODY_BYTES, then the answer, are fine: the limit bounds one message."""
    for module in (_http_deadline, _mcp_http):  # bodies are bounded in the one, events in the other
        monkeypatch.setattr(module, "MAX_BODY_BYTES", 2048)
    note = event({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "n" * 100}})

    def on_call(handler: FakeHandler, request: Json) -> None:
        handler.stream([note] * 50 + [event(answer(request["id"], result({"ok": 1})))])

    assert clients(http_fake(on_call)).call_tool("read_context", {}, None, within(5)).structured_content == {"ok": 1}


@pytest.mark.parametrize(
    ("status", "body", "failure"),
    [
        (500, b"Internal Server Error", ImplementationErrored),
        (503, b"", ImplementationErrored),
        (400, b"Bad Request", ProtocolViolation),
        (404, b"<html>no session</html>", ProtocolViolation),
    ],
)
def test_an_http_error_without_a_json_body_is_errored_or_a_protocol_violation(
    http_fake: FakeFactory, clients: ClientFactory, status: int, body: bytes, failure: type[Exception]
) -> None:
    """A 5xx answer without JSON is ERRORED (the server failed); a 4xx without JSON is PROTOCOL."""
    client = clients(http_fake(lambda handler, _request: handler.reply(status, body, "text/plain")))
    with pytest.raises(failure):
        client.call_tool("read_context", {}, None, within(5))


@pytest.mark.parametrize(
    ("status", "error"),
    [(400, {"code": -32700, "message": "Parse error"}), (500, {"code": -32603, "message": "Internal error"})],
)
def test_an_http_error_with_a_json_rpc_error_body_is_an_rpc_error(
    http_fake: FakeFactory, clients: ClientFactory, status: int, error: Json
) -> None:
    """A 4xx or 5xx whose body is a JSON-RPC error (id null) is RpcError with the body's code, whatever the status."""
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode()
    client = clients(http_fake(lambda handler, _request: handler.reply(status, body)))
    with pytest.raises(RpcError) as refused:
        client.call_tool("read_context", {}, None, within(5))
    assert refused.value.code == error["code"]


def test_an_http_5xx_with_a_json_body_that_is_not_json_rpc_is_errored(http_fake: FakeFactory, clients: ClientFactory) -> None:
    """A 500 whose JSON body is a framework's error (not JSON-RPC) is the server's failure: ERRORED, like a text body."""
    client = clients(http_fake(lambda handler, _request: handler.reply(500, b'{"detail": "Internal Server Error"}')))
    with pytest.raises(ImplementationErrored):
        client.call_tool("read_context", {}, None, within(5))


def test_a_connection_the_server_closes_with_connection_close_is_reopened(http_fake: FakeFactory, clients: ClientFactory) -> None:
    """After an answer saying Connection: close, the next call goes on a new connection and gets its answer."""

    def on_call(handler: FakeHandler, request: Json) -> None:
        body = json.dumps(answer(request["id"], result(request["params"]["arguments"]))).encode()
        handler.reply(200, body, headers={"Connection": "close"} if request["params"]["arguments"]["n"] == 1 else {})

    fake = http_fake(on_call)
    client = clients(fake)
    first = client.call_tool("read_context", {"n": 1}, None, within(5))
    second = client.call_tool("read_context", {"n": 2}, None, within(5))
    assert (first.structured_content, second.structured_content) == ({"n": 1}, {"n": 2})
    calls = [request.port for request in fake.posted() if request.message and request.message.get("method") == "tools/call"]
    assert len(set(calls)) == 2


@pytest.mark.parametrize("noticed", [True, False], ids=["closed-idle-socket-noticed", "stale-socket-reused"])
def test_a_kept_alive_connection_the_server_closed_silently_is_reopened(
    http_fake: FakeFactory, clients: ClientFactory, monkeypatch: pytest.MonkeyPatch, noticed: bool
) -> None:
    """A connection the server closed silently after an answer is replaced: seen idle, or once a request fails on it."""

    def on_call(handler: FakeHandler, request: Json) -> None:
        answer_as_json(handler, request)
        handler.close_connection = request["params"]["arguments"]["n"] == 1

    fake = http_fake(on_call)
    client = clients(fake)
    assert client.call_tool("read_context", {"n": 1}, None, within(5)).structured_content == {"n": 1}
    assert fake.closed.wait(5)
    if not noticed:  # the check of the idle socket misses the close: the request fails on it, and is sent again
        monkeypatch.setattr(_mcp_http, "_readable", lambda _sock: False)
    assert client.call_tool("read_context", {"n": 2}, None, within(5)).structured_content == {"n": 2}


def test_a_server_that_drops_every_call_unanswered_closes_the_channel(http_fake: FakeFactory, clients: ClientFactory) -> None:
    """A server closing the connection on each call without an answer is ChannelClosed after one retry on a fresh connection."""

    def on_call(handler: FakeHandler, _request: Json) -> None:
        handler.close_connection = True

    fake = http_fake(on_call)
    client = clients(fake)
    with pytest.raises(ChannelClosed):
        client.call_tool("read_context", {}, None, within(5))
    calls = [request for request in fake.posted() if request.message and request.message.get("method") == "tools/call"]
    assert len(calls) == 2  # the first attempt went on the kept-alive connection: it is sent again once


def test_a_server_that_refuses_connections_closes_the_channel() -> None:
    """A URL where nothing listens is ChannelClosed at the handshake, not a hang or another exception."""
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    client = McpClient(HttpChannel(f"http://127.0.0.1:{port}/mcp", {}))
    with pytest.raises(ChannelClosed):
        client.initialize(within(5))
    client.close(1.0)


# --- through the transport layer: McpStdioTransport --------------------------------------------


def nested(depth: int) -> object:
    """A value `depth` lists deep."""
    value: object = "x"
    for _ in range(depth):
        value = [value]
    return value


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Implementation]:
    """The reference's MCP server over mcp+stdio, started once for the module's transport checks."""
    state = tmp_path_factory.mktemp("mcp-client")
    implementation = connect(
        parse_adapter(f"mcp+stdio:{sys.executable} -m ctxconform.reference.mcp"), state, timeout=10, options=start_options(state)
    )
    implementation.start()
    yield implementation
    implementation.stop()


def test_a_call_nested_50_deep_is_carried_and_answered(reference: Implementation) -> None:
    """Arguments nested 50 deep reach the reference's server, whose validation answers them: INVALID_REQUEST."""
    reply = reference.call(RC, "read_context", {"image_id": nested(50)})
    assert reply.code == "INVALID_REQUEST"
    assert reply.error is not None
    assert "image_id" in reply.error["message"]


def test_a_call_nested_300_deep_is_uncarriable_and_the_next_call_works(reference: Implementation) -> None:
    """Arguments nested 300 deep, more than the MCP SDK parses, are Uncarriable (SKIP); the connection goes on."""
    with pytest.raises(Uncarriable, match=SDK_CANNOT_PARSE):
        reference.call(RC, "read_context", {"image_id": nested(300)})
    assert reference.call(RC, "read_context", {"image_id": "no-such-image"}).code == "not_found"


def test_a_call_nested_220_deep_is_uncarriable_or_answered_never_a_timeout(reference: Implementation) -> None:
    """Arguments nested deeper than the SDK's server parses are SKIP, not a TIMEOUT of a server that drops them."""
    message = {"type": "call", "seq": 1, "spec": RC, "op": "read_context", "args": {"image_id": nested(220)}}
    with contextlib.suppress(Uncarriable):
        reference._transport.exchange(message, 0.5)  # the transport itself: a timeout does not break the implementation


def test_a_server_that_exited_between_calls_is_a_crash_with_its_stderr(tmp_path: Path) -> None:
    """A server that exits after an answer makes the next call a CRASH whose detail holds what it wrote on stderr."""
    implementation = connect(parse_adapter(f"mcp+stdio:{sys.executable} {WIRE} exit-after"), tmp_path, timeout=5)
    implementation.start()
    try:
        assert implementation.call(RC, "read_context", {"image_id": "a"}).result == {"image_id": "a"}
        implementation._transport._first.channel.server._process.wait(5)  # type: ignore[attr-defined]
        with pytest.raises(ImplementationCrashed) as crashed:
            implementation.call(RC, "read_context", {"image_id": "b"})
    finally:
        implementation.stop()
    assert "exiting after an answer" in crashed.value.detail
