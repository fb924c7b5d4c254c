"""The reference implementation of ContextSnapshot / ContextItem: immutable snapshots whose content is Git blobs."""

from __future__ import annotations

from ctxconform.reference.context_snapshot._handler import FEATURES, SPEC_VERSION, ContextSnapshotHandler
from ctxconform.reference.context_snapshot._model import KINDS, PREVIEW_LIMIT, Actor, Header, Item, Kind, Snapshot
from ctxconform.reference.context_snapshot._objects import ALGORITHMS, ObjectId, blob_id
from ctxconform.reference.context_snapshot._repository import GitRepository, Repositories
from ctxconform.reference.context_snapshot._requests import MAX_CONTENT_BYTES, MAX_PATH
from ctxconform.reference.context_snapshot._retention import ANCHOR_PREFIX, RETENTION_STRATEGIES, STRATEGIES, UPLOADS_REF
from ctxconform.reference.context_snapshot._service import ContextSnapshots
from ctxconform.reference.context_snapshot._store import SnapshotStore

__all__ = [
    "ALGORITHMS",
    "ANCHOR_PREFIX",
    "FEATURES",
    "KINDS",
    "MAX_CONTENT_BYTES",
    "MAX_PATH",
    "PREVIEW_LIMIT",
    "RETENTION_STRATEGIES",
    "SPEC_VERSION",
    "STRATEGIES",
    "UPLOADS_REF",
    "Actor",
    "ContextSnapshotHandler",
    "ContextSnapshots",
    "GitRepository",
    "Header",
    "Item",
    "Kind",
    "ObjectId",
    "Repositories",
    "Snapshot",
    "SnapshotStore",
    "blob_id",
]
