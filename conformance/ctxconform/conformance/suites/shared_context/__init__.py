"""The shared-context conformance suite, and the spec it checks."""

from __future__ import annotations

from typing import Final

from ctxconform.conformance.testing import Spec

__all__ = ["SPEC"]

# Each participant has its own MCP connection; the session travels in the call's metadata.
SPEC: Final = Spec.of_package(
    __file__,
    "shared-context",
    mcp_tools=("shared_context", "create_session", "archive_session", "delete_session"),
    mcp_participants=True,
)
