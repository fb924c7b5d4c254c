"""The context-snapshot conformance suite, and the spec it checks."""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path
from typing import Any, Final

from ctxconform.conformance.testing import Spec

__all__ = ["SPEC"]


def _repositories(state_dir: Path) -> dict[str, Any]:
    # Two empty bare repositories, one per object format: the implementation stores blobs there and the suite runs git
    # in them. Without git they stay plain folders, and the suite's tests say that git is missing.
    environment = {name: value for name, value in os.environ.items() if not name.startswith("GIT_")}
    repositories = {}
    for option, object_format in (("repository", "sha1"), ("repository_sha256", "sha256")):
        path = state_dir / "context-snapshot" / f"{object_format}.git"
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            subprocess.run(  # noqa: S603 - fixed program, arguments passed as a list
                ["git", "init", "--quiet", "--bare", f"--object-format={object_format}", str(path)],  # noqa: S607
                check=True,
                capture_output=True,
                timeout=30,
                env=environment,
            )
        repositories[option] = str(path)
    return repositories


# Over MCP each operation is a tool of its name; its _meta declares the spec version and features.
SPEC: Final = Spec.of_package(
    __file__,
    "context-snapshot",
    start_options=_repositories,
    needs=(("git", "git 2.29 or newer, for SHA-256 repositories (Debian: apt-get install git)"),),
    mcp_tools=(
        "create_snapshot",
        "add_item",
        "set_item_content",
        "remove_item",
        "finalize",
        "get_snapshot",
        "hash_content",
        "read_blob",
        "retain",
    ),
)
