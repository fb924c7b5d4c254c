"""Serve the reference's tools over MCP: ``python -m ctxconform.reference.mcp [--http]``.

The server is built in `_server` and started by `_main` (whose docstring is the command's help). Its names are loaded
on first use, so that ``python -m ctxconform.reference.mcp`` can hand its start to a running fork server
(`_forkserver`) before importing the MCP SDK, which takes over a second.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing is not imported: a launcher loads this package and pays for every import
if TYPE_CHECKING:
    from typing import Any

    from ctxconform.reference.mcp._main import main
    from ctxconform.reference.mcp._server import (
        MAX_BODY_BYTES,
        SESSION_META,
        HandlerTools,
        SharedContextConnection,
        build_server,
    )

__all__ = ["MAX_BODY_BYTES", "SESSION_META", "HandlerTools", "SharedContextConnection", "build_server", "main"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"ctxconform.reference.mcp.{'_main' if name == 'main' else '_server'}"), name)
