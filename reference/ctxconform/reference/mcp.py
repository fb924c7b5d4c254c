"""Serve the reference's tools over MCP: ``python -m ctxconform.reference.mcp [--http]``.

Every spec the reference implements is served. Tools: ``read_context(image_id)`` (read-context);
``shared_context(action, ...)`` and the system operations ``create_session``, ``archive_session`` and
``delete_session`` (shared-context); and one tool per operation of context-assembly (``assemble``), content-provider
(``create_provider``, ``append_item``, ``compose``, ...) and context-snapshot (``create_snapshot``, ``add_item``,
``finalize``, ...), named as the operation and taking its request as the arguments. Each result is the envelope
``{"success": bool, "data": {...} | null, "error": {code, message, details, recoverable} | null}``.

Identity is the connection's, never the request's. Over stdio ``--participant`` / ``CTXCONFORM_PARTICIPANT`` names
the participant every write of this server is ``written_by``. With ``--http`` the server speaks MCP's streamable
HTTP at ``/mcp`` to any number of clients (it prints ``listening on http://HOST:PORT/mcp``), and each request's
bearer token names its participant: signed with ``CTXCONFORM_TOKEN_SECRET`` or listed in ``--tokens FILE``
(the tokens of the HTTP server). Only a ``system`` participant may create, archive or delete sessions. The session
of a ``shared_context`` call is the request's ``_meta`` ``"ctxconform/session_id"``, else ``--session`` /
``CTXCONFORM_SESSION_ID``. The store is ``--store`` / ``CTXCONFORM_STORE``, by default SQLite at
``$CTXCONFORM_STATE_DIR/shared-context.sqlite3`` (WAL: several servers, one per participant, may share it).
Folders come from ``--workspace-root`` / ``CTXCONFORM_WORKSPACE_ROOT`` and ``--tastes-dir`` / ``CTXCONFORM_TASTES_DIR``.
The other specs' handlers are opened on their first call, as the stdio server opens them: on the state directory
``CTXCONFORM_STATE_DIR`` with every ``CTXCONFORM_*`` variable as a start option (``CTXCONFORM_REPOSITORY`` is
``repository``, as the harness sets them) and ``--store`` as the store URL.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Final, Protocol

import anyio.to_thread
import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent

from ctxconform.reference import content_provider, context_assembly, context_snapshot
from ctxconform.reference._handler import HandlerFactory, Opening, SpecHandler
from ctxconform.reference._logging import log_to_stderr
from ctxconform.reference._tokens import Tokens, load_tokens
from ctxconform.reference.exceptions import SpecError, StoreError
from ctxconform.reference.read_context import ReadContext
from ctxconform.reference.shared_context import SPEC_VERSION, SharedContext, SharedContextHandler, open_store

__all__ = ["MAX_BODY_BYTES", "SESSION_META", "HandlerTools", "SharedContextConnection", "build_server", "main"]

Json = dict[str, Any]

SESSION_META: Final = "ctxconform/session_id"
SYSTEM: Final = "system"
# The suite sends megabyte fields, and JSON can take 6 bytes for one character (a NUL is \u0000).
MAX_BODY_BYTES: Final = 16 * 1024 * 1024
# Declared in the shared_context tool's _meta: MCP has no place for a spec version or optional features.
_FEATURES: Final = SharedContextHandler.features
_INSTRUCTIONS: Final = """\
Shared context: a small key-value store every agent of a session reads and writes with the shared_context tool.
Keep values distilled (at most 800 tokens each); list_keys first, then read only what you need.

Shared context key conventions:
  current_phase, phase_status, blocking_issues           - workflow state
  problem_summary, scope, constraints                    - problem definition
  findings_summary, open_questions, decisions_made       - findings
  deliverables_status, quality_checks                    - output tracking
"""


@dataclass
class SharedContextConnection:
    """The shared-context side of one MCP connection: its participant, its default session and the store."""

    participant: str | None
    session_id: str | None = None
    store_url: str | None = None
    state_dir: Path = field(default_factory=Path)
    _handler: SharedContextHandler | None = None
    _opening: threading.Lock = field(default_factory=threading.Lock)

    def call(self, op: str, args: object, meta: Mapping[str, Any] | None, caller: str | None = None) -> Json:
        """Carry out one shared-context operation as `caller` (authenticated by a token), else the connection's participant."""
        participant = caller if caller is not None else self.participant
        if op != "shared_context" and participant != SYSTEM:
            raise SpecError("FORBIDDEN", f"{op} is a system operation; this connection is {participant!r}")
        session = (meta or {}).get(SESSION_META, self.session_id)
        if op == "shared_context" and session is None:
            raise SpecError("SESSION_NOT_FOUND", f"no session: send _meta {SESSION_META!r} or start the server with --session")
        context = {"session_id": session, "participant": participant}
        return self.handler().call(op, args if isinstance(args, dict) else {}, context)

    def handler(self) -> SharedContextHandler:
        """The handler, opening the store on first use (a read-context-only server never creates it)."""
        with self._opening:
            if self._handler is None:
                url = self.store_url or f"sqlite:///{self.state_dir / 'shared-context.sqlite3'}"
                self._handler = SharedContextHandler(SharedContext(open_store(url)))
            return self._handler

    def close(self) -> None:
        """Close the store, if it was opened."""
        if self._handler is not None:
            self._handler.close()
            self._handler = None


class _Described(Protocol):
    """What a handler class says of itself before any handler is opened: its operations, spec version and features."""

    operations: ClassVar[tuple[str, ...]]
    version: str
    features: tuple[str, ...]


@dataclass(frozen=True)
class _Served:
    """A spec whose tools are its operations, each call carried out by the handler `factory` opens."""

    factory: HandlerFactory
    handler: type[_Described]


# read-context and shared-context have tools of their own (a typed image_id; the connection's participant); these
# specs' tools are their adapter-protocol operations, carried out by the same handlers as over stdio.
_SERVED: Final = (
    _Served(context_assembly.HANDLER_FACTORY, context_assembly.ContextAssemblyHandler),
    _Served(content_provider.HANDLER_FACTORY, content_provider.ContentProviderHandler),
    _Served(context_snapshot.HANDLER_FACTORY, context_snapshot.ContextSnapshotHandler),
)


@dataclass
class HandlerTools:
    """The specs served through their handlers, one tool per operation: each handler opened on its spec's first call."""

    opening: Opening
    _handlers: dict[str, SpecHandler] = field(default_factory=dict)
    _locks: dict[str, threading.Lock] = field(default_factory=lambda: {s.factory.spec: threading.Lock() for s in _SERVED})

    def call(self, factory: HandlerFactory, op: str, args: Json) -> Json:
        """Carry out one operation with the spec's handler, one call of a spec at a time (as over stdio)."""
        with self._locks[factory.spec]:
            handler = self._handlers.get(factory.spec)
            if handler is None:
                handler = self._handlers[factory.spec] = factory(self.opening)
            return handler.call(op, args, {})

    def close(self) -> None:
        """Close every handler opened."""
        for handler in self._handlers.values():
            handler.close()
        self._handlers.clear()


class _ParticipantTokens:
    """Verifies bearer tokens for MCP over HTTP: a token is valid when it names a participant."""

    def __init__(self, tokens: Tokens) -> None:
        self.tokens = tokens

    async def verify_token(self, token: str) -> AccessToken | None:
        """Return the access the token grants (its client is the participant), or None to refuse it."""
        participant = self.tokens.participant(token)
        return None if participant is None else AccessToken(token=token, client_id=participant, scopes=[])


def build_server(
    read_context: ReadContext,
    shared: SharedContextConnection | None = None,
    tokens: Tokens | None = None,
    url: str = "",
    handled: HandlerTools | None = None,
) -> MCPServer:
    """Return an MCP server exposing the reference's tools (shared-context's when `shared` is given).

    `handled` adds one tool per operation of context-assembly, content-provider and context-snapshot. With `tokens`,
    every HTTP request must carry a bearer token naming its participant; `url` is the server's own.
    """
    server = MCPServer(
        "ctxconform-reference",
        version="0.1.0",
        instructions=_INSTRUCTIONS,
        log_level="WARNING",
        token_verifier=None if tokens is None else _ParticipantTokens(tokens),
        auth=None if tokens is None else _resource_server(url),
    )

    @server.tool(name="read_context")
    async def read_context_tool(image_id: str, ctx: Context) -> Json:
        """Load an image's context: tastes, brief, notes, recent log and recent gaps (ADR-059)."""
        extra = set(_arguments(ctx)) - {"image_id"}
        if extra:
            return _failure("INVALID_REQUEST", f"read_context takes only image_id, not {sorted(extra)}")  # type: ignore[return-value]
        return _envelope(lambda: read_context.read_context(image_id))  # type: ignore[return-value]

    if shared is not None:
        _add_shared_context_tools(server, shared)
    if handled is not None:
        _add_handler_tools(server, handled)
    return server


def _resource_server(url: str) -> AuthSettings:
    # The reference checks tokens it signed itself: it is its own issuer, and publishes no OAuth metadata.
    return AuthSettings(issuer_url=url or "http://127.0.0.1", resource_server_url=None)  # type: ignore[arg-type]


def _add_shared_context_tools(server: MCPServer, shared: SharedContextConnection) -> None:
    meta = {"ctxconform/spec": "shared-context", "ctxconform/version": SPEC_VERSION, "ctxconform/features": list(_FEATURES)}

    # Every field is Any: the service checks the raw arguments and answers each flaw with the spec's error code.
    @server.tool(name="shared_context", meta=meta)
    async def shared_context_tool(
        ctx: Context,
        *,
        action: Any = None,
        key: Any = None,
        value: Any = None,
        keys: Any = None,
        versions: Any = None,
        label: Any = None,
    ) -> Json:
        """Read or write the session's shared context: list_keys, read, write, delete, read_batch, read_history, snapshot."""
        del action, key, value, keys, versions, label
        return await _shared(shared, "shared_context", ctx, ctx.request_context.meta)  # type: ignore[return-value]

    @server.tool(name="create_session")
    async def create_session_tool(ctx: Context, session_id: Any = None, config: Any = None) -> Json:
        """Create an empty session (system connections only)."""
        del session_id, config
        return await _shared(shared, "create_session", ctx, None)  # type: ignore[return-value]

    @server.tool(name="archive_session")
    async def archive_session_tool(ctx: Context, session_id: Any = None) -> Json:
        """Archive a session: read-only, retained for audit (system connections only)."""
        del session_id
        return await _shared(shared, "archive_session", ctx, None)  # type: ignore[return-value]

    @server.tool(name="delete_session")
    async def delete_session_tool(ctx: Context, session_id: Any = None) -> Json:
        """Delete a session and everything it holds (system connections only)."""
        del session_id
        return await _shared(shared, "delete_session", ctx, None)  # type: ignore[return-value]


def _add_handler_tools(server: MCPServer, handled: HandlerTools) -> None:
    for served in _SERVED:
        spec, handler = served.factory.spec, served.handler
        meta = {"ctxconform/spec": spec, "ctxconform/version": handler.version, "ctxconform/features": list(handler.features)}
        for op in handler.operations:
            description = f"The {spec} operation {op}: the arguments are its request, the result its answer."
            server.add_tool(_handler_tool(handled, served.factory, op), name=op, description=description, meta=meta)


def _handler_tool(handled: HandlerTools, factory: HandlerFactory, op: str) -> Callable[[Context], Awaitable[Json]]:
    # No parameters: the handler checks the raw arguments and answers each flaw with the spec's error code.
    async def tool(ctx: Context) -> Json:
        return await _handled(handled, factory, op, ctx)  # type: ignore[return-value]

    return tool


async def _handled(handled: HandlerTools, factory: HandlerFactory, op: str, ctx: Context) -> Json | CallToolResult:
    """Run one call on a worker thread, as shared-context's are."""
    arguments = _arguments(ctx)
    return await anyio.to_thread.run_sync(_envelope, lambda: handled.call(factory, op, arguments))


async def _shared(
    shared: SharedContextConnection, op: str, ctx: Context, meta: Mapping[str, Any] | None
) -> Json | CallToolResult:
    """Run one shared-context call on a worker thread, so a slow store never stalls the other connections."""
    arguments, caller = _arguments(ctx), _caller()
    return await anyio.to_thread.run_sync(_envelope, lambda: shared.call(op, arguments, meta, caller))


def _caller() -> str | None:
    """The participant the request's bearer token names (MCP over HTTP), or None on stdio."""
    token = get_access_token()
    return None if token is None else token.client_id


def _arguments(ctx: Context) -> Json:
    """The call's arguments exactly as sent: the tool's parameters drop unknown fields the service must refuse."""
    arguments = (ctx.request_context.params or {}).get("arguments")
    return dict(arguments) if isinstance(arguments, Mapping) else {}


def _envelope(operation: Callable[[], Json]) -> Json | CallToolResult:
    try:
        return {"success": True, "data": operation(), "error": None}
    except SpecError as error:
        return _failure(error.code, error.message)
    except StoreError as error:
        # No spec code fits an unusable store: the call fails as a tool error that says so, never as a hang.
        return CallToolResult(content=[TextContent(type="text", text=f"the store failed: {error}")], is_error=True)


def _failure(code: str, message: str) -> CallToolResult:
    envelope = {
        "success": False,
        "data": None,
        "error": {"code": code, "message": message, "details": {}, "recoverable": code not in _FINAL},
    }
    return CallToolResult(content=[TextContent(type="text", text=message)], structured_content=envelope, is_error=True)


# Retrying these with the same request cannot succeed.
_FINAL: Final = frozenset({"invalid_image_id", "FORBIDDEN"})


def main(argv: list[str] | None = None) -> int:
    """Parse options and serve MCP on stdin/stdout until the client closes it, or over HTTP with --http."""
    options = _parser().parse_args(argv)
    log_to_stderr()
    shared = SharedContextConnection(
        options.participant or None, options.session, options.store, Path(os.environ.get("CTXCONFORM_STATE_DIR", "."))
    )
    read_context = ReadContext(Path(options.workspace_root), Path(options.tastes_dir))
    handled = HandlerTools(Opening(shared.state_dir, _start_options(), options.store))
    try:
        if options.http:
            return _serve_http(read_context, shared, handled, options)
        build_server(read_context, shared, handled=handled).run()
    finally:
        shared.close()
        handled.close()
    return 0


def _start_options() -> Json:
    """The start options the harness passed as CTXCONFORM_* variables, by their names: each handler takes its own."""
    return {
        name.removeprefix("CTXCONFORM_").lower(): value
        for name, value in os.environ.items()
        if name.startswith("CTXCONFORM_") and name != "CTXCONFORM_STATE_DIR"
    }


def _parser() -> argparse.ArgumentParser:
    env = os.environ.get
    parser = argparse.ArgumentParser(prog="python -m ctxconform.reference.mcp", description=__doc__)
    parser.add_argument("--workspace-root", default=env("CTXCONFORM_WORKSPACE_ROOT", "workspaces"))
    parser.add_argument("--tastes-dir", default=env("CTXCONFORM_TASTES_DIR", "tastes"))
    parser.add_argument(
        "--store", default=env("CTXCONFORM_STORE"), help="store URL (shared-context; memory: also for content-provider)"
    )
    parser.add_argument("--participant", default=env("CTXCONFORM_PARTICIPANT"), help="who this connection writes as")
    parser.add_argument("--session", default=env("CTXCONFORM_SESSION_ID"), help="session when a call's _meta names none")
    parser.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp instead of stdio")
    parser.add_argument("--host", default="127.0.0.1", help="with --http: address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="with --http: port to bind (default 0: a free one)")
    parser.add_argument("--tokens", help="with --http: JSON file {token: participant} of fixed tokens")
    parser.add_argument("--max-body-bytes", type=int, default=MAX_BODY_BYTES, help="with --http: largest request body")
    return parser


def _serve_http(
    read_context: ReadContext, shared: SharedContextConnection, handled: HandlerTools, options: argparse.Namespace
) -> int:
    """Bind, open the store, print the address, and serve until SIGTERM or SIGINT."""
    try:
        tokens = load_tokens(options.tokens)
        listener = socket.create_server((options.host, options.port))
        # Accepted connections inherit it: a response's headers and body go in two writes, and Nagle would hold
        # the body until the client's delayed ACK of the headers, 40 ms later.
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        shared.handler()
    except (OSError, ValueError, StoreError) as error:
        print(f"ctxconform reference mcp: {error}", file=sys.stderr)
        return 2
    host, port = listener.getsockname()[:2]
    url = f"http://{f'[{host}]' if ':' in host else host}:{port}/mcp"
    app = build_server(read_context, shared, tokens, url, handled).streamable_http_app(
        json_response=True, max_request_body_size=options.max_body_bytes, host=options.host
    )
    config = uvicorn.Config(app, log_config=None, access_log=False, lifespan="on", timeout_graceful_shutdown=2)
    print(f"listening on {url}", flush=True)
    uvicorn.Server(config).run(sockets=[listener])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
