"""The suite's own view of the implementation's repositories, through the git command line."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

from ctxconform.conformance.testing import Implementation, unique_hex

__all__ = ["OPTIONS", "Repository", "repositories"]

OPTIONS: Final = {"sha1": "repository", "sha256": "repository_sha256"}
_TIMEOUT: Final = 60.0
_IDENTITY: Final = {
    "GIT_AUTHOR_NAME": "ctxconform suite",
    "GIT_AUTHOR_EMAIL": "suite@ctxconform.invalid",
    "GIT_COMMITTER_NAME": "ctxconform suite",
    "GIT_COMMITTER_EMAIL": "suite@ctxconform.invalid",
}


@dataclass(frozen=True)
class Repository:
    """One repository the harness gave the implementation, and its object format."""

    path: Path
    object_format: str

    def git(self, *args: str, stdin: bytes = b"", check: bool = True, env: Mapping[str, str] | None = None) -> bytes:
        """Run git in the repository and return its output."""
        environment = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | {"LC_ALL": "C"} | dict(env or {})
        done = subprocess.run(  # noqa: S603 - fixed program, arguments passed as a list
            ["git", "-C", str(self.path), *args],  # noqa: S607 - git from PATH, as the harness documents
            input=stdin,
            capture_output=True,
            timeout=_TIMEOUT,
            check=check,
            env=environment,
        )
        return done.stdout

    def hash_object(self, content: bytes) -> str:
        """What `git hash-object` prints for this content here (nothing is written)."""
        return self.git("hash-object", "--no-filters", "--stdin", stdin=content).decode().strip()

    def blob(self, blob: str) -> bytes | None:
        """The content of a blob the repository holds, or None."""
        output = self.git("cat-file", "--batch", stdin=f"{blob}\n".encode())
        header, _, rest = output.partition(b"\n")
        fields = header.split()
        return rest[: int(fields[2])] if len(fields) == 3 and fields[1] == b"blob" else None

    def blob_count(self) -> int:
        """How many distinct blobs the repository holds, loose or packed."""
        output = self.git("cat-file", "--batch-all-objects", "--batch-check=%(objecttype)").decode()
        return output.split().count("blob")

    def object_count(self) -> int:
        """How many distinct objects of any type the repository holds, loose or packed."""
        return len(self.git("cat-file", "--batch-all-objects", "--batch-check=%(objectname)").split())

    def gc(self) -> None:
        """`git gc --prune=now`: every object that nothing keeps reachable is gone afterwards."""
        self.git("gc", "--prune=now", "--quiet")

    def ref(self, name: str) -> str | None:
        """The object a ref names, or None."""
        return self.git("for-each-ref", "--format=%(objectname)", name).decode().strip() or None

    def reachable(self, ref: str) -> set[str]:
        """Every object reachable from a ref."""
        return {line.split()[0] for line in self.git("rev-list", "--objects", ref).decode().splitlines() if line}

    def kept(self) -> set[str]:
        """Every object in a pack that has a .keep marker."""
        folder = self.path / self.git("rev-parse", "--git-path", "objects/pack").decode().strip()
        found: set[str] = set()
        for keep in folder.glob("pack-*.keep"):
            index = keep.with_suffix(".idx").read_bytes()
            listing = self.git("show-index", f"--object-format={self.object_format}", stdin=index).decode()
            found |= {line.split()[1] for line in listing.splitlines()}
        return found

    def commit_file(self, path: str, content: bytes) -> tuple[str, str]:
        """Commit one file at `path` on a ref of the suite's own; return (commit, the file's blob id in the tree)."""
        blob = self.git("hash-object", "-w", "--no-filters", "--stdin", stdin=content).decode().strip()
        *folders, name = path.split("/")
        entry = f"100644 blob {blob}\t{name}\n"
        for folder in reversed(folders):
            tree = self.git("mktree", stdin=entry.encode()).decode().strip()
            entry = f"040000 tree {tree}\t{folder}\n"
        root = self.git("mktree", stdin=entry.encode()).decode().strip()
        commit = self.git("commit-tree", root, "-m", f"ctxconform: {path}", env=_IDENTITY).decode().strip()
        self.git("update-ref", f"refs/ctxconform/{unique_hex()}", commit)
        in_tree = self.git("rev-parse", f"{commit}:{path}").decode().strip()
        return commit, in_tree


def repositories(implementation: Implementation) -> dict[str, Repository]:
    """The repositories named in the start options, by object format."""
    options = implementation.options.get("context-snapshot")
    if not options:
        raise RuntimeError("harness bug: the start options name no context-snapshot repositories")
    return {fmt: _repository(options[name], fmt) for fmt, name in OPTIONS.items()}


@cache
def _repository(path: str, object_format: str) -> Repository:
    return Repository(Path(path), object_format)
