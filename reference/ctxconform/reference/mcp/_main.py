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
A server started on a state directory where another already runs (over stdio or HTTP) is forked from a process that
has the MCP SDK imported (a fork server the first one started), not started afresh; ``CTXCONFORM_FORKSERVER=0`` turns
that off. Over stdio and HTTP the spec tools' calls are answered as the SDK would answer them, without it
(`_fastpath`, `_http_fastpath`); ``CTXCONFORM_MCP_FASTPATH=0`` sends every call through the SDK.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import socket
import sys
from pathlib import Path
from typing import Any, Final

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.types import ASGIApp

from ctxconform.reference._handler import Opening
from ctxconform.reference._logging import log_to_stderr
from ctxconform.reference._tokens import load_tokens
from ctxconform.reference.exceptions import StoreError
from ctxconform.reference.mcp._fastpath import FastPath
from ctxconform.reference.mcp._forkserver import serve_forks
from ctxconform.reference.mcp._http_fastpath import HttpFastPath
from ctxconform.reference.mcp._server import (
    MAX_BODY_BYTES,
    HandlerTools,
    ServerState,
    SharedContextConnection,
    build_over,
    session_of,
)
from ctxconform.reference.mcp._stdio import serve_stdio
from ctxconform.reference.read_context import ReadContext

__all__ = ["main"]

Json = dict[str, Any]


def main(argv: list[str] | None = None) -> int:
    """Parse options and serve MCP on stdin/stdout until the client closes it, or over HTTP with --http."""
    options = _parser().parse_args(argv)
    serve_forks(main, prepare=_prepare)
    log_to_stderr()
    shared = SharedContextConnection(
        options.participant or None, options.session, options.store, Path(os.environ.get("CTXCONFORM_STATE_DIR", "."))
    )
    read_context = ReadContext(Path(options.workspace_root), Path(options.tastes_dir))
    handled = HandlerTools(Opening(shared.state_dir, _start_options(), options.store))
    try:
        if options.http:
            return _serve_http(read_context, shared, handled, options)
        state, server = _stdio_server(read_context, shared, handled)
        fast = FastPath(state) if _fast_path() else None
        anyio.run(serve_stdio, session_of(server), fast, backend_options=_LOOP)
    finally:
        shared.close()
        handled.close()
    return 0


def _fast_path() -> bool:
    """Whether the spec tools' calls the SDK would answer in a known way are answered without it (see `_fastpath`)."""
    return os.environ.get("CTXCONFORM_MCP_FASTPATH") != "0"


# uvloop's event loop where it is installed (it is on Linux and macOS): a third less server time a call.
_LOOP: Final = {"use_uvloop": importlib.util.find_spec("uvloop") is not None}

# In a fork server: the stdio server it built ahead, for the first server it forks (each fork has its own copy).
_PREPARED: list[tuple[ServerState, MCPServer]] = []


def _prepare() -> None:
    """Build a stdio server ahead, in the fork server, with placeholders its forks replace (about 30 tools, 60-80 ms).

    The event loop's modules, which `anyio.run` imports on first use, are loaded here too.
    """
    importlib.import_module("anyio._backends._asyncio")
    if _LOOP["use_uvloop"]:
        importlib.import_module("uvloop")
    state = ServerState(ReadContext(Path(), Path()), SharedContextConnection(None), HandlerTools(Opening(Path(), {}, None)))
    _PREPARED.append((state, build_over(state, inline=True)))


def _stdio_server(
    read_context: ReadContext, shared: SharedContextConnection, handled: HandlerTools
) -> tuple[ServerState, MCPServer]:
    """The server to serve over stdio and its state: the one built ahead, given this configuration, or else a new one."""
    if _PREPARED:
        state, server = _PREPARED.pop()
        state.bind(read_context, shared, handled)
        return state, server
    state = ServerState(read_context, shared, handled)
    return state, build_over(state, inline=True)


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
    state = ServerState(read_context, shared, handled)
    server = build_over(state, tokens, url)
    app: ASGIApp = server.streamable_http_app(json_response=True, max_request_body_size=options.max_body_bytes, host=options.host)
    if _fast_path():
        app = HttpFastPath(app, server, state, tokens, max_body=options.max_body_bytes)
    config = uvicorn.Config(app, log_config=None, access_log=False, lifespan="on", timeout_graceful_shutdown=2)
    print(f"listening on {url}", flush=True)
    uvicorn.Server(config).run(sockets=[listener])
    return 0
