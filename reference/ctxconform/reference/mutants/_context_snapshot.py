"""Mutants of the context-snapshot reference."""

from __future__ import annotations

import hashlib
import zlib
from pathlib import Path
from typing import Any

from ctxconform.reference._implementation import Reference
from ctxconform.reference.context_snapshot import ContextSnapshotHandler, GitRepository, ObjectId
from ctxconform.reference.mutants._catalogue import Mutant, mutant

__all__ = ["MUTANTS"]

MUTANTS: list[Mutant] = []


class _HeaderlessRepository(GitRepository):
    def object_id(self, content: bytes) -> ObjectId:
        return ObjectId(self.algorithm, hashlib.new(self.algorithm, content, usedforsecurity=False).digest())

    def write_blob(self, content: bytes) -> ObjectId:
        # Written as a loose object of its own, as an implementation that writes objects itself would: under the wrong name.
        oid = self.object_id(content)
        loose = self.path / self.run("rev-parse", "--git-path", f"objects/{oid.hex[:2]}/{oid.hex[2:]}").decode().strip()
        loose.parent.mkdir(parents=True, exist_ok=True)
        loose.write_bytes(zlib.compress(b"blob %d\0" % len(content) + content))
        return oid


def _headerless(state_dir: Path, options: dict[str, Any]) -> ContextSnapshotHandler:
    return ContextSnapshotHandler.from_options(state_dir, options, _HeaderlessRepository.open)


@mutant("context-snapshot/items/blob-git-hash", "context-snapshot/items/blob-sha256", catalogue=MUTANTS)
def hashes_without_header() -> Reference:
    """The reference, except that blob ids hash the content alone, without Git's `blob <size>` header."""
    return Reference(name="mutant:hashes_without_header", context_snapshot=_headerless)
