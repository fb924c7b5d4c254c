"""The reference's streamable HTTP calls answered as the MCP SDK's server answers them, without its per-request machinery.

Over HTTP each call goes through Starlette's middleware and router, the SDK's authentication, its session manager and
transport, memory streams to the session's task, the dispatcher and the tool manager: about four fifths of a call's
server time. `HttpFastPath` sits in front of the SDK's app and answers a POST itself only when the SDK's answer is
known exactly: a `ToolCall` (see `_fastpath`) on a session it saw initialized on a protocol version in `VERSIONS`,
whose requests name that version, carry the bearer token that opened the session (one the SDK would accept for it),
pass the SDK's Host, Origin, Content-Type and Accept checks and fit its body limit, while the SDK still holds the
session open. Everything else, and every request of a session before its handshake ends, goes to the SDK, its body
handed on as it was read. A kit test sends the same requests both ways and compares the answers.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

import anyio
import pydantic_core
from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http import check_accept_headers
from mcp.server.transport_security import TransportSecurityMiddleware
from mcp_types import JSONRPCNotification, JSONRPCRequest, jsonrpc_message_adapter
from pydantic import ValidationError
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ctxconform.reference._tokens import Tokens
from ctxconform.reference.mcp._fastpath import VERSIONS, ToolCall
from ctxconform.reference.mcp._server import ParticipantTokens, ServerState

__all__ = ["HttpFastPath"]

Json = dict[str, Any]
_SESSION: Final = b"mcp-session-id"
_VERSION: Final = b"mcp-protocol-version"
_AUTHORIZATION: Final = b"authorization"
# Calls run on worker threads, as the SDK's tools do, so a slow store stalls no other connection; as many at once
# as anyio's default limit, which the SDK's tools run under.
_WORKERS: Final = 40
_INITIALIZE_ANSWER: Final = 1 << 16  # bytes of an initialize answer read to learn its version: it is a few hundred


@dataclass
class _Session:
    """What the fast path saw of one MCP session: its version, the Authorization that opened it, its handshake's end."""

    version: str | None
    authorization: bytes | None
    active: bool = False


class HttpFastPath:
    """ASGI middleware in front of the SDK's streamable HTTP app: answers the spec tools' calls it can, as the SDK would."""

    def __init__(self, app: ASGIApp, server: MCPServer, state: ServerState, tokens: Tokens | None, *, max_body: int) -> None:
        self.app = app
        self.state = state
        self.max_body = max_body
        self._manager = server.session_manager
        self._security = TransportSecurityMiddleware(self._manager.security_settings)
        self._verifier = None if tokens is None else ParticipantTokens(tokens)
        self._sessions: dict[str, _Session] = {}
        self._workers = ThreadPoolExecutor(_WORKERS, "ctxconform-mcp")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection event: a POST to /mcp may be answered here, anything else goes to the SDK."""
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != "/mcp":
            await self.app(scope, receive, send)
            return
        read, body = await _read_body(receive, self.max_body)
        replay = _replaying(read, receive)
        message = _message(body)
        headers = _first_headers(scope)
        sid = headers.get(_SESSION)
        if sid is None:
            opening = isinstance(message, JSONRPCRequest) and message.method == "initialize"
            await self.app(scope, replay, self._learning(send, headers.get(_AUTHORIZATION)) if opening else send)
            return
        session = self._sessions.get(sid.decode("latin-1"))
        if session is not None and not session.active and _is_initialized(message):
            await self.app(scope, replay, _on_accepted(send, session))
            return
        answer = None if session is None else await self._answer(scope, headers, session, sid.decode("latin-1"), message)
        if answer is None:
            await self.app(scope, replay, send)
            return
        await _send_json(send, answer, sid)

    async def _answer(
        self, scope: Scope, headers: dict[bytes, bytes], session: _Session, sid: str, message: object
    ) -> bytes | None:
        """The answer's body when this path can answer the request exactly as the SDK would, else None."""
        if not isinstance(message, JSONRPCRequest) or not _follows(session, headers, message):
            return None
        transport = self._open_transport(sid)
        if transport is None:
            return None
        allowed, caller = await self._caller(session.authorization)
        call = ToolCall.of(self.state, message.params or {}, caller) if allowed else None
        if call is None or session.version is None or not await self._passes_checks(scope):
            return None
        with _in_flight(transport):
            outcome = await asyncio.get_running_loop().run_in_executor(self._workers, call.run)
        result = call.result(outcome, session.version)
        return pydantic_core.to_json({"jsonrpc": "2.0", "id": message.id, "result": result})

    def _open_transport(self, sid: str) -> Any:
        """The SDK's transport of session `sid` while the SDK holds it open and not idle-expired; None otherwise."""
        transport = getattr(self._manager, "_server_instances", {}).get(sid)
        if transport is None:
            self._sessions.pop(sid, None)  # ended (DELETE, idle, shutdown): the SDK answers for it from now on
            return None
        idle = getattr(transport, "idle_scope", None)
        if transport.is_terminated or (idle is not None and idle.cancel_called):
            return None
        return transport

    async def _caller(self, authorization: bytes | None) -> tuple[bool, str | None]:
        """Whether the SDK would accept this Authorization, and the participant its token names.

        It is the one that opened the session (`_follows`), so the SDK holds the session as its token's too.
        """
        if self._verifier is None:  # a server without tokens: no authentication, and no participant from it
            return authorization is None, None
        text = (authorization or b"").decode("latin-1")
        if not text.lower().startswith("bearer "):
            return False, None
        access = await self._verifier.verify_token(text[7:])
        if access is None or not access.client_id or (access.expires_at and access.expires_at < int(time.time())):
            return False, None
        return True, access.client_id

    async def _passes_checks(self, scope: Scope) -> bool:
        """Whether the SDK's transport checks pass: Host, Origin and Content-Type, then Accept (JSON answers)."""
        request = Request(scope)
        if await self._security.validate_request(request, is_post=True) is not None:
            return False
        content_type = request.headers.get("content-type", "").split(";")[0].split(",")
        return any(part.strip() == "application/json" for part in content_type) and check_accept_headers(request)[0]

    def _learning(self, send: Send, authorization: bytes | None) -> Send:
        """`send` for an initialize request: the answer's session id and protocol version are noted as it passes."""
        seen: dict[str, Any] = {"sid": None, "body": bytearray()}

        async def learning(event: Message) -> None:
            if event["type"] == "http.response.start" and event["status"] == 200:  # noqa: PLR2004 - HTTP's OK
                seen["sid"] = _first_headers(event).get(_SESSION)
            elif event["type"] == "http.response.body" and seen["sid"] is not None:
                body: bytearray = seen["body"]
                body.extend(event.get("body", b"")[: _INITIALIZE_ANSWER - len(body)])
                if not event.get("more_body", False):
                    self._opened(seen["sid"].decode("latin-1"), bytes(body), authorization)
            await send(event)

        return learning

    def _opened(self, sid: str, answer: bytes, authorization: bytes | None) -> None:
        """Note a session the SDK opened, with the version its initialize answer agreed (None: not one it can read)."""
        try:
            result = pydantic_core.from_json(answer).get("result")
        except (ValueError, AttributeError):
            result = None
        version = result.get("protocolVersion") if isinstance(result, dict) else None
        live = getattr(self._manager, "_server_instances", {})
        if len(self._sessions) >= 2 * len(live) + 16:  # now and then, forget the sessions the SDK has let go
            self._sessions = {key: value for key, value in self._sessions.items() if key in live}
        self._sessions[sid] = _Session(version if isinstance(version, str) else None, authorization)


async def _read_body(receive: Receive, limit: int) -> tuple[list[Message], bytes | None]:
    """The request's events read so far, and its whole body (None when it is larger than `limit` or did not arrive)."""
    read: list[Message] = []
    size = 0
    while True:
        event = await receive()
        read.append(event)
        if event["type"] != "http.request":
            return read, None
        size += len(event.get("body", b""))
        if size > limit:
            return read, None
        if not event.get("more_body", False):
            return read, b"".join(e.get("body", b"") for e in read)


def _replaying(read: list[Message], receive: Receive) -> Receive:
    """A `receive` giving the events already read, then the connection's own."""
    pending = list(read)

    async def replay() -> Message:
        return pending.pop(0) if pending else await receive()

    return replay


def _message(body: bytes | None) -> object:
    """The JSON-RPC message of a body, read as the SDK's transport reads it; None when it is not one."""
    if body is None:
        return None
    try:
        return jsonrpc_message_adapter.validate_python(pydantic_core.from_json(body), by_name=False)
    except (ValueError, ValidationError):
        return None


def _follows(session: _Session, headers: dict[bytes, bytes], message: JSONRPCRequest) -> bool:
    """Whether a request is a tools/call on a session past its handshake, naming its version, with its opening token."""
    if not session.active or session.version not in VERSIONS or message.method != "tools/call":
        return False
    return headers.get(_VERSION) == (session.version or "").encode() and headers.get(_AUTHORIZATION) == session.authorization


def _is_initialized(message: object) -> bool:
    return isinstance(message, JSONRPCNotification) and message.method == "notifications/initialized"


def _on_accepted(send: Send, session: _Session) -> Send:
    """`send` for the session's initialized notification: once the SDK accepts it (202), the fast path answers calls."""

    async def accepting(event: Message) -> None:
        if event["type"] == "http.response.start" and event["status"] == 202:  # noqa: PLR2004 - HTTP's Accepted
            session.active = True
        await send(event)

    return accepting


def _first_headers(event: Scope | Message) -> dict[bytes, bytes]:
    """Each header's first value by its lower-case name, as the SDK's checks read them."""
    headers: dict[bytes, bytes] = {}
    for name, value in event.get("headers", ()):
        headers.setdefault(bytes(name).lower(), bytes(value))
    return headers


async def _send_json(send: Send, body: bytes, sid: bytes) -> None:
    """Answer 200 with a JSON body and the session's id, as the SDK's transport answers in JSON mode."""
    headers = [(b"content-length", str(len(body)).encode()), (b"content-type", b"application/json"), (_SESSION, sid)]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


@contextmanager
def _in_flight(transport: Any) -> Iterator[None]:
    """Hold the SDK's idle countdown of the session while the fast path serves one of its requests, as its transport does."""
    idle, timeout = getattr(transport, "idle_scope", None), getattr(transport, "_idle_timeout", None)
    if idle is None or timeout is None or not hasattr(transport, "_requests_in_flight"):
        yield
        return
    transport._requests_in_flight += 1  # noqa: SLF001 - the SDK's own count, shared with the requests it serves
    idle.deadline = math.inf
    try:
        yield
    finally:
        transport._requests_in_flight -= 1  # noqa: SLF001
        if not transport._requests_in_flight:  # noqa: SLF001
            idle.deadline = anyio.current_time() + timeout
