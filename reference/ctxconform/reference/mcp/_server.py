"""The reference's MCP server: every spec's tools, the shared-context connection of a participant, and the envelope.

How it is started, and what each option and variable means, is `_main`'s to say (the command's help).
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Final, Protocol

import anyio
import anyio.to_thread
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent

from ctxconform.reference import content_provider, context_assembly, context_snapshot
from ctxconform.reference._handler import HandlerFactory, Opening, SpecHandler
from ctxconform.reference._tokens import Tokens
from ctxconform.reference.exceptions import SpecError, StoreError
from ctxconform.reference.read_context import ReadContext
from ctxconform.reference.shared_context import SPEC_VERSION, SharedContext, SharedContextHandler, open_store

__all__ = [
    "MAX_BODY_BYTES",
    "SESSION_META",
    "HandlerTools",
    "ParticipantTokens",
    "ServerState",
    "SharedContextConnection",
    "build_over",
    "build_server",
    "handler_tool_of",
    "run_envelope",
    "session_of",
]

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


class ParticipantTokens:
    """Verifies bearer tokens for MCP over HTTP: a token is valid when it names a participant."""

    def __init__(self, tokens: Tokens) -> None:
        self.tokens = tokens

    async def verify_token(self, token: str) -> AccessToken | None:
        """Return the access the token grants (its client is the participant), or None to refuse it."""
        participant = self.tokens.participant(token)
        return None if participant is None else AccessToken(token=token, client_id=participant, scopes=[])


@dataclass
class ServerState:
    """What a server's tools work on: read-context's folders, the shared-context connection, the other specs' handlers.

    The tools look them up on each call, so a server built before its configuration is known (by a fork server, ahead
    of any launcher) is given it in the fork with `bind`; shared-context's and the handlers' tools are there when
    `shared` and `handled` were given at build.
    """

    read_context: ReadContext
    shared: SharedContextConnection | None = None
    handled: HandlerTools | None = None

    def bind(self, read_context: ReadContext, shared: SharedContextConnection, handled: HandlerTools) -> None:
        """Give a server built ahead the configuration it serves (before it serves anything)."""
        self.read_context, self.shared, self.handled = read_context, shared, handled


def build_server(
    read_context: ReadContext,
    shared: SharedContextConnection | None = None,
    tokens: Tokens | None = None,
    url: str = "",
    handled: HandlerTools | None = None,
    *,
    inline: bool = False,
) -> MCPServer:
    """Return an MCP server exposing the reference's tools (shared-context's when `shared` is given).

    `handled` adds one tool per operation of context-assembly, content-provider and context-snapshot. With `tokens`,
    every HTTP request must carry a bearer token naming its participant; `url` is the server's own. `inline` runs each
    call on the event loop's thread rather than a worker's: for stdio, whose one client waits for each answer anyway.
    """
    return build_over(ServerState(read_context, shared, handled), tokens, url, inline=inline)


def build_over(state: ServerState, tokens: Tokens | None = None, url: str = "", *, inline: bool = False) -> MCPServer:
    """Return an MCP server whose tools work on `state` (see `build_server`)."""
    run = _run_inline if inline else _run_on_thread
    server = MCPServer(
        "ctxconform-reference",
        version="0.1.0",
        instructions=_INSTRUCTIONS,
        log_level="WARNING",
        token_verifier=None if tokens is None else ParticipantTokens(tokens),
        auth=None if tokens is None else _resource_server(url),
    )
    # The SDK opens an OpenTelemetry span per message, a no-op until an exporter is installed but a twentieth of a
    # call's server time; the reference installs none, and the SDK says to drop the middleware to opt out.
    server.middleware[:] = [layer for layer in server.middleware if type(layer).__name__ != "OpenTelemetryMiddleware"]

    @server.tool(name="read_context")
    async def read_context_tool(image_id: str, ctx: Context) -> Json:
        """Load an image's context: tastes, brief, notes, recent log and recent gaps (ADR-059)."""
        extra = set(_arguments(ctx)) - {"image_id"}
        if extra:
            return _failure("INVALID_REQUEST", f"read_context takes only image_id, not {sorted(extra)}")  # type: ignore[return-value]
        return run_envelope(lambda: state.read_context.read_context(image_id))  # type: ignore[return-value]

    if state.shared is not None:
        _add_shared_context_tools(server, state, run)
    if state.handled is not None:
        _add_handler_tools(server, state, run)
    return server


def _resource_server(url: str) -> AuthSettings:
    # The reference checks tokens it signed itself: it is its own issuer, and publishes no OAuth metadata.
    return AuthSettings(issuer_url=url or "http://127.0.0.1", resource_server_url=None)  # type: ignore[arg-type]


def _add_shared_context_tools(server: MCPServer, state: ServerState, run: _Run) -> None:
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
        return await _shared(state, "shared_context", ctx, ctx.request_context.meta, run)  # type: ignore[return-value]

    @server.tool(name="create_session")
    async def create_session_tool(ctx: Context, session_id: Any = None, config: Any = None) -> Json:
        """Create an empty session (system connections only)."""
        del session_id, config
        return await _shared(state, "create_session", ctx, None, run)  # type: ignore[return-value]

    @server.tool(name="archive_session")
    async def archive_session_tool(ctx: Context, session_id: Any = None) -> Json:
        """Archive a session: read-only, retained for audit (system connections only)."""
        del session_id
        return await _shared(state, "archive_session", ctx, None, run)  # type: ignore[return-value]

    @server.tool(name="delete_session")
    async def delete_session_tool(ctx: Context, session_id: Any = None) -> Json:
        """Delete a session and everything it holds (system connections only)."""
        del session_id
        return await _shared(state, "delete_session", ctx, None, run)  # type: ignore[return-value]


def _add_handler_tools(server: MCPServer, state: ServerState, run: _Run) -> None:
    for served in _SERVED:
        spec, handler = served.factory.spec, served.handler
        meta = {"ctxconform/spec": spec, "ctxconform/version": handler.version, "ctxconform/features": list(handler.features)}
        for op in handler.operations:
            description = f"The {spec} operation {op}: the arguments are its request, the result its answer."
            server.add_tool(_handler_tool(state, served.factory, op, run), name=op, description=description, meta=meta)


def _handler_tool(state: ServerState, factory: HandlerFactory, op: str, run: _Run) -> Callable[[Context], Awaitable[Json]]:
    # No parameters: the handler checks the raw arguments and answers each flaw with the spec's error code.
    async def tool(ctx: Context) -> Json:
        return await _handled(state, factory, op, ctx, run)  # type: ignore[return-value]

    return tool


async def _handled(state: ServerState, factory: HandlerFactory, op: str, ctx: Context, run: _Run) -> Json | CallToolResult:
    """Run one call of a spec served through its handler."""
    arguments, handled = _arguments(ctx), state.handled
    assert handled is not None, "the handlers' tools exist only on a server built with them"
    return await run(lambda: handled.call(factory, op, arguments))


async def _shared(state: ServerState, op: str, ctx: Context, meta: Mapping[str, Any] | None, run: _Run) -> Json | CallToolResult:
    """Run one shared-context call."""
    arguments, caller, shared = _arguments(ctx), _caller(), state.shared
    assert shared is not None, "shared-context's tools exist only on a server built with a connection"
    return await run(lambda: shared.call(op, arguments, meta, caller))


_Run = Callable[[Callable[[], Json]], Awaitable[Json | CallToolResult]]


async def _run_on_thread(operation: Callable[[], Json]) -> Json | CallToolResult:
    """Run a call on a worker thread, so a slow store never stalls the other connections (HTTP serves many)."""
    return await anyio.to_thread.run_sync(run_envelope, operation)


async def _run_inline(operation: Callable[[], Json]) -> Json | CallToolResult:
    """Run a call where it is: its connection's one client waits for the answer anyway (stdio)."""
    return run_envelope(operation)


def session_of(server: MCPServer) -> Callable[[Any, Any], Awaitable[None]]:
    """Serve the server's MCP session on a pair of message streams (the SDK's `run_stdio_async` on other streams)."""
    lowlevel = server._lowlevel_server  # noqa: SLF001 - the SDK has no public way to run a session on given streams

    async def run(read_stream: Any, write_stream: Any) -> None:
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())

    return run


def _caller() -> str | None:
    """The participant the request's bearer token names (MCP over HTTP), or None on stdio."""
    token = get_access_token()
    return None if token is None else token.client_id


def _arguments(ctx: Context) -> Json:
    """The call's arguments exactly as sent: the tool's parameters drop unknown fields the service must refuse."""
    arguments = (ctx.request_context.params or {}).get("arguments")
    return dict(arguments) if isinstance(arguments, Mapping) else {}


def handler_tool_of(name: str) -> HandlerFactory | None:
    """The handler factory whose spec has the operation (and so the tool) `name`, or None."""
    return _HANDLER_TOOLS.get(name)


def run_envelope(operation: Callable[[], Json]) -> Json | CallToolResult:
    """Carry out a call as every tool does: its result in the success envelope, a spec error as a failed tool call."""
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
_HANDLER_TOOLS: Final = {op: served.factory for served in _SERVED for op in served.handler.operations}
