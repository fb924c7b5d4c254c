"""Serve the reference's tools over MCP (stdio): ``python -m ctxconform.reference.mcp``.

Tools: ``read_context(image_id)``. Each result is the envelope
``{"success": bool, "data": {...} | null, "error": {code, message, details, recoverable} | null}``.
Folders come from the options or the environment: ``--workspace-root`` / ``CTXCONFORM_WORKSPACE_ROOT`` and
``--tastes-dir`` / ``CTXCONFORM_TASTES_DIR``.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent

from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.read_context import ReadContext

__all__ = ["build_server", "main"]

Json = dict[str, Any]


def build_server(read_context: ReadContext) -> MCPServer:
    """Return an MCP server exposing the reference's tools."""
    server = MCPServer("ctxconform-reference", version="0.1.0", log_level="WARNING")

    @server.tool(name="read_context")
    async def read_context_tool(image_id: str, ctx: Context) -> Json:
        """Load an image's context: tastes, brief, notes, recent log and recent gaps (ADR-059)."""
        extra = set((ctx.request_context.params or {}).get("arguments") or {}) - {"image_id"}
        if extra:
            return _failure("INVALID_REQUEST", f"read_context takes only image_id, not {sorted(extra)}")  # type: ignore[return-value]
        try:
            return {"success": True, "data": read_context.read_context(image_id), "error": None}
        except SpecError as error:
            return _failure(error.code, error.message)  # type: ignore[return-value]

    return server


def _failure(code: str, message: str) -> CallToolResult:
    envelope = {
        "success": False,
        "data": None,
        "error": {"code": code, "message": message, "details": {}, "recoverable": code != "invalid_image_id"},
    }
    return CallToolResult(content=[TextContent(type="text", text=message)], structured_content=envelope, is_error=True)


def main(argv: list[str] | None = None) -> int:
    """Parse options and serve MCP on stdin/stdout until the client closes it."""
    parser = argparse.ArgumentParser(prog="python -m ctxconform.reference.mcp", description=__doc__)
    parser.add_argument("--workspace-root", default=os.environ.get("CTXCONFORM_WORKSPACE_ROOT", "workspaces"))
    parser.add_argument("--tastes-dir", default=os.environ.get("CTXCONFORM_TASTES_DIR", "tastes"))
    options = parser.parse_args(argv)
    build_server(ReadContext(Path(options.workspace_root), Path(options.tastes_dir))).run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
