"""The reference's HTTP fast path answers exactly as the MCP SDK's server does, and only the requests it can."""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import pytest
from starlette.types import Message, Receive, Scope, Send

from ctxconform.conformance.transports._shared_context_http import mint_token
from ctxconform.reference._handler import Opening
from ctxconform.reference._tokens import Tokens
from ctxconform.reference.mcp._http_fastpath import HttpFastPath
from ctxconform.reference.mcp._server import HandlerTools, ServerState, SharedContextConnection, build_over
from ctxconform.reference.read_context import ReadContext
from helpers import start_listening, stop_process
from test_mcp_fastpath import CALLS

Json = dict[str, Any]
SECRET = "fast-path-secret"  # noqa: S105 - a test secret, shared with the child on purpose
SESSION_ID = re.compile(r"[0-9a-f]{32}")
MOMENT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)")
ACCEPT = "application/json, text/event-stream"


class RawSession:
    """One MCP session over HTTP, spoken raw: every answer kept whole (status, the headers that matter, body)."""

    def __init__(self, url: str, participant: str | None = "system") -> None:
        parts = urlsplit(url)
        self.path = parts.path
        self.connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
        self.headers = {"Content-Type": "application/json", "Accept": ACCEPT}
        if participant is not None:
            self.headers["Authorization"] = f"Bearer {mint_token(SECRET, participant)}"

    def handshake(self, version: str, *, confirm: bool = True) -> None:
        """Initialize on `version` and confirm, as a client does (unless told not to confirm)."""
        hello = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
        status, _, headers = self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
        assert status == 200
        self.headers |= {"Mcp-Session-Id": headers["mcp-session-id"], "Mcp-Protocol-Version": version}
        assert not confirm or self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})[0] == 202

    def post(
        self, message: object, headers: dict[str, str] | None = None, body: bytes | None = None
    ) -> tuple[int, str, dict[str, str]]:
        """POST a message (or raw bytes) with these headers over the session's; the status, body and headers."""
        sent = {**self.headers, **(headers or {})}
        self.connection.request("POST", self.path, body=json.dumps(message).encode() if body is None else body, headers=sent)
        response = self.connection.getresponse()
        text = response.read().decode()
        return response.status, text, {key.lower(): value for key, value in response.getheaders()}

    def delete(self) -> int:
        """End the session."""
        self.connection.request("DELETE", self.path, headers=self.headers)
        response = self.connection.getresponse()
        response.read()
        return response.status


def call(n: int, tool: str, arguments: object, extra: Json) -> Json:
    """The tools/call request of one of CALLS (ids alternating number and string)."""
    params = {"name": tool, "arguments": arguments, **extra}
    return {"jsonrpc": "2.0", "id": n if n % 2 else f"r{n}", "method": "tools/call", "params": params}


def seen(answer: tuple[int, str, dict[str, str]], session: str) -> tuple[int, str | None, bool, str]:
    """What a client sees of an answer: status, type, whether it names the session, body with moments and ids blanked."""
    status, text, headers = answer
    body = SESSION_ID.sub("<session>", MOMENT.sub("<moment>", text))
    with contextlib.suppress(ValueError):  # a plain-text refusal is compared as it is
        body = json.dumps(json.loads(body), sort_keys=True)
    return status, headers.get("content-type"), headers.get("mcp-session-id") == session, body


def exchanges(url: str, version: str) -> list[tuple[int, str | None, bool, str]]:
    """Every call of CALLS, then requests the fast path must leave to the SDK, as one session of `system` sees them."""
    system = RawSession(url)
    system.handshake(version)
    session = system.headers["Mcp-Session-Id"]
    answers = [system.post(call(n, *case)) for n, case in enumerate(CALLS)]
    probe = call(99, "shared_context", {"action": "list_keys"}, {"_meta": {"ctxconform/session_id": "s"}})
    answers += [
        system.post(probe, {"Authorization": "Bearer not-a-token"}),
        system.post(probe, {"Authorization": f"Bearer {mint_token(SECRET, 'agent-a')}"}),  # not its opener
        system.post(probe, {"Mcp-Protocol-Version": "2025-03-26"}),
        system.post(probe, {"Mcp-Protocol-Version": "1999-01-01"}),
        system.post(probe, {"Host": "evil.example:80"}),
        system.post(probe, {"Content-Type": "text/plain"}),
        system.post(probe, {"Accept": "text/html"}),
        system.post(probe, {"Mcp-Session-Id": "0" * 32}),
        system.post(probe, body=json.dumps(probe).encode() + b" " * 2**21),  # well-formed, over the body limit
        system.post({**probe, "id": None}),
        system.post([probe]),
        system.post(probe),
    ]
    unconfirmed = RawSession(url)
    unconfirmed.handshake(version, confirm=False)
    early = seen(unconfirmed.post(probe), unconfirmed.headers["Mcp-Session-Id"])
    deleted = system.delete()
    answers.append(system.post(probe))
    return [*(seen(answer, session) for answer in answers), early, (deleted, None, False, "")]


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[dict[bool, str]]:
    """Two reference MCP servers over HTTP, one with the fast path and one without, by whether it has it."""
    started = {}
    for fast in (True, False):
        state = tmp_path / str(fast)
        state.mkdir()
        env = {"CTXCONFORM_TOKEN_SECRET": SECRET, "CTXCONFORM_STATE_DIR": str(state), "CTXCONFORM_FORKSERVER": "0"}
        env["CTXCONFORM_MCP_FASTPATH"] = "1" if fast else "0"
        command = [sys.executable, "-m", "ctxconform.reference.mcp", "--http", "--max-body-bytes", str(2**20)]
        started[fast] = start_listening(command, env)
    yield {fast: url for fast, (_, url) in started.items()}
    for process, _ in started.values():
        stop_process(process)


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_the_http_fast_path_answers_every_request_as_the_sdk_does(servers: dict[bool, str], version: str) -> None:
    """The same requests, usual and odd (foreign tokens, versions, hosts, types, sessions), get the same answers."""
    fast, sdk = exchanges(servers[True], version), exchanges(servers[False], version)
    assert fast == sdk
    assert sum('"isError": false' in body for *_, body in sdk) >= 6
    assert {status for status, *_ in sdk} >= {200, 400, 401, 404, 406, 413, 421}


class CountingApp:
    """The SDK's app, counting the POSTs that reach it."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.posts = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Count a POST, and pass every event on."""
        if scope["type"] == "http" and scope["method"] == "POST":
            self.posts += 1
        await self.app(scope, receive, send)


async def asgi_post(app: Any, message: Json, headers: dict[str, str]) -> tuple[int, dict[str, str], Json | None]:
    """POST a message to /mcp of an ASGI app; its status, headers and JSON body (None when empty)."""
    sent = {"host": "127.0.0.1:8000", "content-type": "application/json"} | {k.lower(): v for k, v in headers.items()}
    scope = {
        "type": "http", "method": "POST", "path": "/mcp", "raw_path": b"/mcp", "root_path": "", "query_string": b"",
        "scheme": "http", "http_version": "1.1", "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 5000),
        "headers": [(k.encode(), v.encode()) for k, v in sent.items()],
    }  # fmt: skip
    events: list[Message] = [{"type": "http.request", "body": json.dumps(message).encode(), "more_body": False}]
    answer: list[Message] = []

    async def receive() -> Message:
        if events:
            return events.pop()
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    async def send(event: Message) -> None:
        answer.append(event)

    await app(scope, receive, send)
    body = b"".join(event.get("body", b"") for event in answer[1:])
    return answer[0]["status"], {k.decode(): v.decode() for k, v in answer[0]["headers"]}, json.loads(body) if body else None


def test_the_http_fast_path_takes_the_spec_tools_calls_and_nothing_else(tmp_path: Path) -> None:
    """After the handshake a spec tool's call never reaches the SDK; read_context's, a foreign token's and the handshake do."""
    tokens = Tokens(SECRET.encode(), {})
    shared = SharedContextConnection(None, state_dir=tmp_path)
    state = ServerState(ReadContext(tmp_path, tmp_path), shared, HandlerTools(Opening(tmp_path, {}, None)))
    server = build_over(state, tokens, "http://127.0.0.1:8000/mcp")
    sdk = CountingApp(server.streamable_http_app(json_response=True, host="127.0.0.1"))
    app = HttpFastPath(sdk, server, state, tokens, max_body=2**20)
    system = {"Authorization": f"Bearer {mint_token(SECRET, 'system')}", "Accept": ACCEPT}
    foreign = {"Authorization": f"Bearer {mint_token(SECRET, 'agent-a')}"}
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}

    async def run() -> list[int]:
        async with server.session_manager.run():
            _, opened, _ = await asgi_post(app, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}, system)
            headers = system | {"Mcp-Session-Id": opened["mcp-session-id"], "Mcp-Protocol-Version": "2025-11-25"}
            await asgi_post(app, {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers)
            counts = [sdk.posts]
            for n in range(5):
                _, _, answer = await asgi_post(app, call(n, "create_session", {"session_id": f"s{n}"}, {}), headers)
                assert answer is not None
                assert answer["result"]["structuredContent"]["success"] is True
            counts.append(sdk.posts)
            await asgi_post(app, call(7, "read_context", {"image_id": "x"}, {}), headers)
            counts.append(sdk.posts)
            status, _, _ = await asgi_post(app, call(8, "create_session", {"session_id": "t"}, {}), headers | foreign)
            assert status == 404
            counts.append(sdk.posts)
            return counts

    try:
        assert anyio.run(run) == [2, 2, 3, 4]
    finally:
        shared.close()


def test_a_session_the_fast_path_serves_does_not_idle_out(tmp_path: Path) -> None:
    """Calls the fast path answers count as the session's requests: its idle countdown restarts with each one."""
    tokens = Tokens(SECRET.encode(), {})
    shared = SharedContextConnection(None, store_url="memory:", state_dir=tmp_path)
    state = ServerState(ReadContext(tmp_path, tmp_path), shared, HandlerTools(Opening(tmp_path, {}, None)))
    server = build_over(state, tokens, "http://127.0.0.1:8000/mcp")
    sdk = server.streamable_http_app(json_response=True, host="127.0.0.1", session_idle_timeout=0.6)
    app = HttpFastPath(sdk, server, state, tokens, max_body=2**20)
    system = {"Authorization": f"Bearer {mint_token(SECRET, 'system')}", "Accept": ACCEPT}
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}

    async def run() -> tuple[int, int]:
        async with server.session_manager.run():
            _, opened, _ = await asgi_post(app, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}, system)
            headers = system | {"Mcp-Session-Id": opened["mcp-session-id"], "Mcp-Protocol-Version": "2025-11-25"}
            await asgi_post(app, {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers)
            for n in range(10):  # 1.5 s of calls, two and a half idle timeouts, none of them idle
                await anyio.sleep(0.15)
                await asgi_post(app, call(n, "create_session", {"session_id": f"s{n}"}, {}), headers)
            alive, _, _ = await asgi_post(app, call(9, "read_context", {"image_id": "x"}, {}), headers)  # the SDK's
            await anyio.sleep(1.2)
            expired, _, _ = await asgi_post(app, call(10, "read_context", {"image_id": "x"}, {}), headers)
            return alive, expired

    try:
        assert anyio.run(run) == (200, 404)
    finally:
        shared.close()
