"""The context-assembly conformance suite, and the spec it checks."""

from __future__ import annotations

from typing import Final

from ctxconform.conformance.testing import Spec

__all__ = ["SPEC"]

# Over MCP each operation is a tool of its name; its _meta declares the spec version and features.
SPEC: Final = Spec.of_package(__file__, "context-assembly", mcp_tools=("assemble",))
