"""Retention strategies: ways to make blobs reachable in Git's graph so `git gc` keeps them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from ctxconform.reference.context_snapshot._objects import ObjectId
from ctxconform.reference.context_snapshot._repository import GitRepository

__all__ = ["ANCHOR_PREFIX", "RETENTION_STRATEGIES", "STRATEGIES", "UPLOADS_REF", "Retainer"]

ANCHOR_PREFIX: Final = "refs/ai/blobs/"
UPLOADS_REF: Final = "refs/ai/uploads"
# Every strategy of the document's table; the reference carries out all but the custom gc mark.
STRATEGIES: Final = ("ref_anchoring", "orphan_commit", "keep_pack", "custom_gc_mark")
_IDENTITY: Final = {
    "GIT_AUTHOR_NAME": "ctxconform reference",
    "GIT_AUTHOR_EMAIL": "ctxconform@localhost",
    "GIT_COMMITTER_NAME": "ctxconform reference",
    "GIT_COMMITTER_EMAIL": "ctxconform@localhost",
}

Retainer = Callable[[GitRepository, Sequence[ObjectId], str], list[str]]


def anchor_refs(repository: GitRepository, blobs: Sequence[ObjectId], label: str) -> list[str]:  # noqa: ARG001
    """Point one ref per blob at it, refs/ai/blobs/<hex>, in one atomic update."""
    refs = [f"{ANCHOR_PREFIX}{oid.hex}" for oid in blobs]
    commands = "".join(f"update {ref} {oid.hex}\n" for ref, oid in zip(refs, blobs, strict=True))
    repository.run("update-ref", "--stdin", stdin=commands.encode())
    return refs


def orphan_commit(repository: GitRepository, blobs: Sequence[ObjectId], label: str) -> list[str]:
    """Commit a tree naming every blob on refs/ai/uploads, a history of its own that no branch shares."""
    listing = "".join(f"100644 blob {oid.hex}\t{oid.hex}\n" for oid in blobs)
    tree = repository.run("mktree", stdin=listing.encode()).decode().strip()
    parent = repository.run("for-each-ref", "--format=%(objectname)", UPLOADS_REF).decode().strip()
    parents = ["-p", parent] if parent else []
    message = f"ai: retain the blobs of {label}"
    commit = repository.run("commit-tree", tree, *parents, "-m", message, env=_IDENTITY).decode().strip()
    # The old value makes the move a compare-and-swap: a concurrent upload is never lost.
    repository.run("update-ref", "-m", message, UPLOADS_REF, commit, parent or "0" * len(commit))
    return [UPLOADS_REF]


def keep_pack(repository: GitRepository, blobs: Sequence[ObjectId], label: str) -> list[str]:
    """Pack the blobs and mark the pack with .keep, so repacking and pruning leave it alone."""
    folder = repository.path / repository.run("rev-parse", "--git-path", "objects/pack").decode().strip()
    ids = "".join(f"{oid.hex}\n" for oid in blobs).encode()
    name = repository.run("pack-objects", "-q", str(folder / "pack"), stdin=ids).decode().strip()
    Path(folder / f"pack-{name}.keep").write_text(f"ctxconform: the blobs of {label}\n", encoding="utf-8")
    return []


RETENTION_STRATEGIES: Final[dict[str, Retainer]] = {
    "ref_anchoring": anchor_refs,
    "orphan_commit": orphan_commit,
    "keep_pack": keep_pack,
}
