"""Serve the reference's tools over MCP (stdio): ``python -m ctxconform.reference.mcp``.

Tools: ``read_context(image_id)`` (read-context); ``shared_context(action, ...)`` and the system operations
``create_session``, ``archive_session`` and ``delete_session`` (shared-context). Each result is the envelope
``{"success": bool, "data": {...} | null, "error": {code, message, details, recoverable} | null}``.

Identity is the connection's, never the request's: ``--participant`` / ``CTXCONFORM_PARTICIPANT`` names the
participant every write of this server is ``written_by``, and only a ``system`` connection may create, archive or
delete sessions. The session of a ``shared_context`` call is set by the system too: the request's ``_meta``
``"ctxconform/session_id"``, else ``--session`` / ``CTXCONFORM_SESSION_ID``.
The store is ``--store`` / ``CTXCONFORM_STORE``, by default SQLite at
``$CTXCONFORM_STATE_DIR/shared-context.sqlite3`` (WAL: several servers, one per participant, may share it).
Folders come from ``--workspace-root`` / ``CTXCONFORM_WORKSPACE_ROOT`` and ``--tastes-dir`` / ``CTXCONFORM_TASTES_DIR``.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent

from ctxconform.reference._implementation import SharedContextHandler
from ctxconform.reference._logging import log_to_stderr
from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.read_context import ReadContext
from ctxconform.reference.shared_context import SPEC_VERSION, SharedContext, open_store

__all__ = ["SESSION_META", "SharedContextConnection", "build_server", "main"]

Json = dict[str, Any]

SESSION_META: Final = "ctxconform/session_id"
SYSTEM: Final = "system"
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

    def call(self, op: str, args: object, meta: Mapping[str, Any] | None) -> Json:
        """Carry out one shared-context operation as this connection's participant."""
        if op != "shared_context" and self.participant != SYSTEM:
            raise SpecError("FORBIDDEN", f"{op} is a system operation; this connection is {self.participant!r}")
        session = (meta or {}).get(SESSION_META, self.session_id)
        if op == "shared_context" and session is None:
            raise SpecError("SESSION_NOT_FOUND", f"no session: send _meta {SESSION_META!r} or start the server with --session")
        context = {"session_id": session, "participant": self.participant}
        return self.handler().call(op, args if isinstance(args, dict) else {}, context)

    def handler(self) -> SharedContextHandler:
        """The handler, opening the store on first use (a read-context-only server never creates it)."""
        if self._handler is None:
            url = self.store_url or f"sqlite:///{self.state_dir / 'shared-context.sqlite3'}"
            self._handler = SharedContextHandler(SharedContext(open_store(url)))
        return self._handler

    def close(self) -> None:
        """Close the store, if it was opened."""
        if self._handler is not None:
            self._handler.close()
            self._handler = None


def build_server(read_context: ReadContext, shared: SharedContextConnection | None = None) -> MCPServer:
    """Return an MCP server exposing the reference's tools (shared-context ones when `shared` is given)."""
    server = MCPServer("ctxconform-reference", version="0.1.0", instructions=_INSTRUCTIONS, log_level="WARNING")

    @server.tool(name="read_context")
    async def read_context_tool(image_id: str, ctx: Context) -> Json:
        """Load an image's context: tastes, brief, notes, recent log and recent gaps (ADR-059)."""
        extra = set(_arguments(ctx)) - {"image_id"}
        if extra:
            return _failure("INVALID_REQUEST", f"read_context takes only image_id, not {sorted(extra)}")  # type: ignore[return-value]
        return _envelope(lambda: read_context.read_context(image_id))  # type: ignore[return-value]

    if shared is not None:
        _add_shared_context_tools(server, shared)
    return server


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
        return _envelope(lambda: shared.call("shared_context", _arguments(ctx), ctx.request_context.meta))  # type: ignore[return-value]

    @server.tool(name="create_session")
    async def create_session_tool(ctx: Context, session_id: Any = None, config: Any = None) -> Json:
        """Create an empty session (system connections only)."""
        del session_id, config
        return _envelope(lambda: shared.call("create_session", _arguments(ctx), None))  # type: ignore[return-value]

    @server.tool(name="archive_session")
    async def archive_session_tool(ctx: Context, session_id: Any = None) -> Json:
        """Archive a session: read-only, retained for audit (system connections only)."""
        del session_id
        return _envelope(lambda: shared.call("archive_session", _arguments(ctx), None))  # type: ignore[return-value]

    @server.tool(name="delete_session")
    async def delete_session_tool(ctx: Context, session_id: Any = None) -> Json:
        """Delete a session and everything it holds (system connections only)."""
        del session_id
        return _envelope(lambda: shared.call("delete_session", _arguments(ctx), None))  # type: ignore[return-value]


def _arguments(ctx: Context) -> Json:
    """The call's arguments exactly as sent: the tool's parameters drop unknown fields the service must refuse."""
    arguments = (ctx.request_context.params or {}).get("arguments")
    return dict(arguments) if isinstance(arguments, Mapping) else {}


def _envelope(operation: Callable[[], Json]) -> Json | CallToolResult:
    try:
        return {"success": True, "data": operation(), "error": None}
    except SpecError as error:
        return _failure(error.code, error.message)


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
    """Parse options and serve MCP on stdin/stdout until the client closes it."""
    env = os.environ.get
    parser = argparse.ArgumentParser(prog="python -m ctxconform.reference.mcp", description=__doc__)
    parser.add_argument("--workspace-root", default=env("CTXCONFORM_WORKSPACE_ROOT", "workspaces"))
    parser.add_argument("--tastes-dir", default=env("CTXCONFORM_TASTES_DIR", "tastes"))
    parser.add_argument("--store", default=env("CTXCONFORM_STORE"), help="shared-context store URL")
    parser.add_argument("--participant", default=env("CTXCONFORM_PARTICIPANT"), help="who this connection writes as")
    parser.add_argument("--session", default=env("CTXCONFORM_SESSION_ID"), help="session when a call's _meta names none")
    options = parser.parse_args(argv)
    log_to_stderr()
    shared = SharedContextConnection(
        options.participant or None, options.session, options.store, Path(env("CTXCONFORM_STATE_DIR", "."))
    )
    try:
        build_server(ReadContext(Path(options.workspace_root), Path(options.tastes_dir)), shared).run()
    finally:
        shared.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
