"""What the context-snapshot mutants share: their catalogue, which opens the reference with a mutated class, and loose objects."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from ctxconform.reference.context_snapshot import (
    ContextSnapshotFactory,
    ContextSnapshotHandler,
    ContextSnapshots,
    GitRepository,
    ObjectId,
    SnapshotStore,
    SnapshotTransaction,
)
from ctxconform.reference.mutants import Catalogue

__all__ = ["CATALOGUE", "Json", "loose_object"]

Json = dict[str, Any]


def loose_object(repository: GitRepository, oid: ObjectId) -> Path:
    """The file Git keeps the object as while it is loose (not packed): objects/<2 hex digits>/<the rest>."""
    return repository.path / repository.run("rev-parse", "--git-path", f"objects/{oid.hex[:2]}/{oid.hex[2:]}").decode().strip()


def _adopt(variant: type) -> ContextSnapshotFactory:
    if issubclass(variant, ContextSnapshots):
        return ContextSnapshotFactory(open=partial(ContextSnapshotHandler.from_options, service=variant))
    if issubclass(variant, GitRepository):
        return ContextSnapshotFactory(open=partial(ContextSnapshotHandler.from_options, opener=variant.open))
    if issubclass(variant, SnapshotTransaction):

        class Store(SnapshotStore):
            """The reference's store, opening the mutated transactions."""

        Store.transactions = variant
        return ContextSnapshotFactory(open=partial(ContextSnapshotHandler.from_options, store=Store))
    raise TypeError(f"{variant.__name__} is not ContextSnapshots, GitRepository or SnapshotTransaction: a mutant changes one")


CATALOGUE = Catalogue("context-snapshot", adopt=_adopt)
