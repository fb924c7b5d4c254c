"""The reference implementation of ContextSnapshot / ContextItem: immutable snapshots whose content is Git blobs."""

from __future__ import annotations

from ctxconform.reference.context_snapshot._handler import (
    FEATURES,
    HANDLER_FACTORY,
    SPEC_ID,
    SPEC_VERSION,
    ContextSnapshotFactory,
    ContextSnapshotHandler,
)
from ctxconform.reference.context_snapshot._model import KINDS, PREVIEW_LIMIT, Actor, Header, Item, Kind, Snapshot
from ctxconform.reference.context_snapshot._objects import ALGORITHMS, ObjectId, blob_id
from ctxconform.reference.context_snapshot._repository import GitRepository, Repositories
from ctxconform.reference.context_snapshot._requests import MAX_CONTENT_BYTES, MAX_PATH, ItemAt, NewItem
from ctxconform.reference.context_snapshot._retention import ANCHOR_PREFIX, RETENTION_STRATEGIES, STRATEGIES, UPLOADS_REF
from ctxconform.reference.context_snapshot._service import ContextSnapshots
from ctxconform.reference.context_snapshot._store import SnapshotStore, SnapshotTransaction

__all__ = [
    "ALGORITHMS",
    "ANCHOR_PREFIX",
    "FEATURES",
    "HANDLER_FACTORY",
    "KINDS",
    "MAX_CONTENT_BYTES",
    "MAX_PATH",
    "PREVIEW_LIMIT",
    "RETENTION_STRATEGIES",
    "SPEC_ID",
    "SPEC_VERSION",
    "STRATEGIES",
    "UPLOADS_REF",
    "Actor",
    "ContextSnapshotFactory",
    "ContextSnapshotHandler",
    "ContextSnapshots",
    "GitRepository",
    "Header",
    "Item",
    "ItemAt",
    "Kind",
    "NewItem",
    "ObjectId",
    "Repositories",
    "Snapshot",
    "SnapshotStore",
    "SnapshotTransaction",
    "blob_id",
]
