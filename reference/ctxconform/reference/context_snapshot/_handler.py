"""context-snapshot behind the adapter protocol: operations routed to the service, repositories from the start options."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Final

from ctxconform.reference._handler import Opening, SpecHandler
from ctxconform.reference.context_snapshot._objects import Algorithm
from ctxconform.reference.context_snapshot._repository import GitRepository, Repositories
from ctxconform.reference.context_snapshot._service import ContextSnapshots
from ctxconform.reference.context_snapshot._store import SnapshotStore
from ctxconform.reference.exceptions import SpecError

__all__ = ["FEATURES", "HANDLER_FACTORY", "SPEC_ID", "SPEC_VERSION", "ContextSnapshotFactory", "ContextSnapshotHandler"]

Json = dict[str, Any]
SPEC_ID: Final = "context-snapshot"
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

    operations: ClassVar[tuple[str, ...]] = _OPS
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
        store: Callable[[Path, str], SnapshotStore] = SnapshotStore,
        *,
        synchronous: str = "full",
    ) -> ContextSnapshotHandler:
        """Use the repositories the harness names, or bare ones in the state directory; SQLite commits as `synchronous` says."""
        root = state_dir / "context-snapshot"
        paths: dict[Algorithm, Path] = {
            "sha1": Path(options.get("repository") or root / "sha1.git"),
            "sha256": Path(options.get("repository_sha256") or root / "sha256.git"),
        }
        return cls(service(store(state_dir / "context-snapshot.sqlite3", synchronous), Repositories(paths, opener)))

    def call(self, op: str, args: Json, context: Json) -> Json:  # noqa: ARG002 - the spec has no call context
        """Carry out one operation."""
        if op not in self.operations:
            raise SpecError("UNKNOWN_OP", f"context-snapshot has no operation {op!r}; the operations are {', '.join(_OPS)}")
        # Looked up on the service itself, so that a subclass carries out its own version of an operation.
        operation: Callable[[object], Json] = getattr(self.service, op)
        return operation(args)

    def close(self) -> None:
        """Close the store."""
        self.service.store.close()


@dataclass(frozen=True)
class ContextSnapshotFactory:
    """Opens context-snapshot over the repositories the start options name; `open` is the override point a mutant replaces."""

    open: Callable[..., SpecHandler] = ContextSnapshotHandler.from_options
    spec: str = SPEC_ID

    def __call__(self, opening: Opening) -> SpecHandler:
        """A handler over the state folder and the spec's start options."""
        return self.open(opening.state_dir, opening.options, synchronous=opening.synchronous)


HANDLER_FACTORY: Final = ContextSnapshotFactory()
