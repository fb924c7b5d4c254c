"""context-snapshot behind the adapter protocol: operations routed to the service, repositories from the start options."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ctxconform.reference.context_snapshot._objects import Algorithm
from ctxconform.reference.context_snapshot._repository import GitRepository, Repositories
from ctxconform.reference.context_snapshot._service import ContextSnapshots
from ctxconform.reference.context_snapshot._store import SnapshotStore
from ctxconform.reference.exceptions import SpecError

__all__ = ["FEATURES", "SPEC_VERSION", "ContextSnapshotHandler"]

Json = dict[str, Any]
SPEC_VERSION: Final = "unversioned"
FEATURES: Final = ("sha256", "other_kind", "ref_anchoring", "orphan_commit", "keep_pack")
_OPS: Final = (
    "create_snapshot",
    "add_item",
    "set_item_content",
    "remove_item",
    "finalize",
    "get_snapshot",
    "hash_content",
    "read_blob",
    "retain",
)


@dataclass
class ContextSnapshotHandler:
    """context-snapshot: snapshots in SQLite under the state directory, blobs in the repositories the harness names."""

    service: ContextSnapshots
    version: str = SPEC_VERSION
    features: tuple[str, ...] = FEATURES

    @classmethod
    def from_options(
        cls,
        state_dir: Path,
        options: Json,
        opener: Callable[[Path, Algorithm], GitRepository] = GitRepository.open,
        service: Callable[[SnapshotStore, Repositories], ContextSnapshots] = ContextSnapshots,
        store: Callable[[Path], SnapshotStore] = SnapshotStore,
    ) -> ContextSnapshotHandler:
        """Use the repositories the harness names, or bare ones inside the state directory."""
        root = state_dir / "context-snapshot"
        paths: dict[Algorithm, Path] = {
            "sha1": Path(options.get("repository") or root / "sha1.git"),
            "sha256": Path(options.get("repository_sha256") or root / "sha256.git"),
        }
        return cls(service(store(state_dir / "context-snapshot.sqlite3"), Repositories(paths, opener)))

    def call(self, op: str, args: Json, context: Json) -> Json:  # noqa: ARG002 - the spec has no call context
        """Carry out one operation."""
        if op not in _OPS:
            raise SpecError("UNKNOWN_OP", f"context-snapshot has no operation {op!r}; the operations are {', '.join(_OPS)}")
        # Looked up on the service itself, so that a subclass carries out its own version of an operation.
        operation: Callable[[object], Json] = getattr(self.service, op)
        return operation(args)

    def close(self) -> None:
        """Close the store."""
        self.service.store.close()
