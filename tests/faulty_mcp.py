"""An MCP server whose read_context tool breaks in one chosen way: `hang`, `exit` or `raise`."""

from __future__ import annotations

import os
import sys
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer

MODE = sys.argv[1]
server = MCPServer("faulty", version="0", log_level="WARNING")


@server.tool(name="read_context")
async def read_context(image_id: str) -> dict[str, Any]:
    """Break as the mode says."""
    if MODE == "hang":
        await anyio.sleep_forever()
    if MODE == "exit":
        os._exit(9)
    raise RuntimeError(f"no context for {image_id}")


if __name__ == "__main__":
    server.run()
