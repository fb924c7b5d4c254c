"""Running the git command line: never through a shell, always with a timeout, failures as StoreError."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from ctxconform.reference.exceptions import StoreError

__all__ = ["run_git"]

_TIMEOUT: Final = 30.0
# Variables that would point git at another repository than the one named by -C.
_REDIRECTS: Final = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
)


def run_git(repository: Path, *args: str, stdin: bytes = b"", env: Mapping[str, str] | None = None) -> bytes:
    """Run `git -C repository ARGS` and return its output; raise StoreError saying what failed."""
    environment = {k: v for k, v in os.environ.items() if k not in _REDIRECTS} | {"LC_ALL": "C"} | dict(env or {})
    try:
        done = subprocess.run(  # noqa: S603 - fixed program, arguments passed as a list
            ["git", "-C", str(repository), *args],  # noqa: S607 - git is found on PATH like any git client
            input=stdin,
            capture_output=True,
            timeout=_TIMEOUT,
            check=True,
            env=environment,
        )
    except FileNotFoundError as error:
        raise StoreError(str(repository), "git is not installed or not on PATH; install git 2.29 or newer") from error
    except subprocess.TimeoutExpired as error:
        raise StoreError(str(repository), f"git {args[0]} took longer than {_TIMEOUT:g} s") from error
    except subprocess.CalledProcessError as error:
        detail = error.stderr.decode("utf-8", "replace").strip()[-500:]
        raise StoreError(str(repository), f"git {args[0]} failed ({detail}); check the repository") from error
    return done.stdout
