"""The content-provider conformance suite, and the spec it checks."""

from __future__ import annotations

from typing import Final

from ctxconform.conformance.testing import Spec

__all__ = ["SPEC"]

# Over MCP each operation is a tool of its name; its _meta declares the spec version and features.
SPEC: Final = Spec.of_package(
    __file__,
    "content-provider",
    mcp_tools=(
        "create_provider",
        "get_provider",
        "end_execution",
        "add_register",
        "append_item",
        "record_tool_call",
        "compose",
        "mark_delivered",
        "mark_failed",
        "begin_trace",
        "add_trace_step",
        "end_trace",
        "get_traces",
        "persist",
        "rehydrate",
    ),
)
