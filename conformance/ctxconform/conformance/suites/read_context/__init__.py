"""The read-context conformance suite, and the spec it checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from ctxconform.conformance.testing import Spec

__all__ = ["SPEC"]


def _folders(state_dir: Path) -> dict[str, Any]:
    # The suite writes each test's workspace and tastes files here; the implementation reads them.
    return {
        "workspace_root": str(state_dir / "read-context" / "workspaces"),
        "tastes_dir": str(state_dir / "read-context" / "tastes"),
    }


SPEC: Final = Spec.of_package(__file__, "read-context", start_options=_folders, mcp_tools=("read_context",))
