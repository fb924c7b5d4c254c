"""Reference implementations of the agent-context specifications, behind the adapter protocol."""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing is not imported: a launcher loads this package and pays for every import
if TYPE_CHECKING:
    from typing import Any

    from ctxconform.reference._handler import HandlerFactory, Opening, SpecHandler
    from ctxconform.reference._implementation import PROTOCOL_VERSION, Reference, in_process_reference

__all__ = ["PROTOCOL_VERSION", "HandlerFactory", "Opening", "Reference", "SpecHandler", "in_process_reference"]

# Loaded on first use: a server's launcher (`python -m ctxconform.reference.mcp` handing over to a fork server)
# imports this package and nothing of it.
_WHERE = {
    "HandlerFactory": "_handler",
    "Opening": "_handler",
    "SpecHandler": "_handler",
    "PROTOCOL_VERSION": "_implementation",
    "Reference": "_implementation",
    "in_process_reference": "_implementation",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
