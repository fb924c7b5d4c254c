"""The operations of context-snapshot: drafts that collect items, finalization, blobs in Git, and retention."""

from __future__ import annotations

import base64
import uuid
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, ClassVar

from ctxconform.reference.context_snapshot._model import PREVIEW_LIMIT, Header, Item, Snapshot
from ctxconform.reference.context_snapshot._objects import ObjectId
from ctxconform.reference.context_snapshot._repository import Repositories
from ctxconform.reference.context_snapshot._requests import (
    WHITE_SPACE,
    ItemAt,
    NewItem,
    blob_request,
    content_request,
    create_request,
    hash_request,
    item_at_request,
    item_request,
    retain_request,
    snapshot_request,
)
from ctxconform.reference.context_snapshot._retention import RETENTION_STRATEGIES
from ctxconform.reference.context_snapshot._store import SnapshotStore, SnapshotTransaction
from ctxconform.reference.exceptions import SpecError

__all__ = ["ContextSnapshots", "utc_now"]

Json = dict[str, Any]
_SHOWN = 10  # indices named in one message


def utc_now() -> str:
    """The current time, ISO 8601 in UTC with a Z."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class ContextSnapshots:
    """The spec's operations over a durable store of snapshots and one Git repository per object format."""

    white_space: ClassVar[Collection[str]] = WHITE_SPACE
    """The characters a blank path is made of (Rust's char::is_whitespace, as the origin trims); the point a variant overrides."""
    preview_kept: ClassVar[int] = PREVIEW_LIMIT - 1
    """How many characters of a long preview are kept (it stays under 500); the point a variant overrides."""

    def __init__(self, store: SnapshotStore, repositories: Repositories, clock: Callable[[], str] = utc_now) -> None:
        self.store = store
        self.repositories = repositories
        self.clock = clock

    def create_snapshot(self, args: object) -> Json:
        """Create an empty draft with a new object_id."""
        request = create_request(args)
        header = Header(
            str(uuid.uuid4()), self.clock(), request.created_by, request.selection_strategy, request.summary, request.algorithm
        )
        with self.store.transaction() as tx:
            tx.insert(header)
        return Snapshot(header).result()

    def add_item(self, args: object) -> Json:
        """Append an item to a draft; its content, when given, becomes a blob in the repository first."""
        return self.append_item(item_request(args, white=self.white_space, kept=self.preview_kept))

    def append_item(self, request: NewItem) -> Json:
        """Append an item, read from add_item's arguments, to a draft."""
        with self.store.transaction() as tx:
            header = _draft(tx, request.snapshot_id)
            item = request.item
            if request.content is not None:
                item = replace(item, blob=self.store_content(header, item, request.content))
            index = tx.append(header.object_id, item)
        return {"index": index, "item": item.to_json()}

    def set_item_content(self, args: object) -> Json:
        """Set or replace the content, hence the blob, of one item of a draft."""
        request = content_request(args)
        with self.store.transaction() as tx:
            header = _draft(tx, request.snapshot_id)
            seq, item = _item_at(tx, header, request.index)
            item = replace(item, blob=self.store_content(header, item, request.content))
            tx.replace(header.object_id, seq, item)
        return {"index": request.index, "item": item.to_json()}

    def remove_item(self, args: object) -> Json:
        """Remove one item of a draft."""
        return self.remove_at(item_at_request(args))

    def remove_at(self, request: ItemAt) -> Json:
        """Remove the item, read from remove_item's arguments, of a draft; the point a variant overrides."""
        with self.store.transaction() as tx:
            header = _draft(tx, request.snapshot_id)
            seq, item = _item_at(tx, header, request.index)
            tx.remove(header.object_id, seq)
        return {"index": request.index, "item": item.to_json()}

    def finalize(self, args: object) -> Json:
        """Finalize a draft whose every item has a blob the repository still holds."""
        object_id = snapshot_request(args)
        with self.store.transaction() as tx:
            header = _draft(tx, object_id)
            items = tx.items(object_id)
            self._check_blobs(header, items)
            tx.finalize(object_id)
        return Snapshot(replace(header, finalized=True), items).result()

    def get_snapshot(self, args: object) -> Json:
        """Read a snapshot, draft or finalized."""
        object_id = snapshot_request(args)
        with self.store.transaction() as tx:
            return _snapshot(tx, object_id).result()

    def hash_content(self, args: object) -> Json:
        """The blob id of some content, stored nowhere."""
        content, algorithm = hash_request(args)
        oid = self.repositories(algorithm).object_id(content)
        return {"blob": oid.hex, "algorithm": algorithm, "size": len(content)}

    def read_blob(self, args: object) -> Json:
        """A blob's content, from the repository of its object format."""
        oid = blob_request(args)
        content = self.repositories(oid.algorithm).read_blob(oid)
        if content is None:
            raise SpecError("BLOB_NOT_FOUND", f"the {oid.algorithm} repository holds no blob {oid.hex}")
        return {"blob": oid.hex, "size": len(content), "content": {"base64": base64.b64encode(content).decode("ascii")}}

    def retain(self, args: object) -> Json:
        """Keep the blobs of a snapshot's non-File items reachable with one strategy."""
        request = retain_request(args)
        retainer = RETENTION_STRATEGIES.get(request.strategy)
        if retainer is None:
            raise SpecError("UNSUPPORTED_STRATEGY", f"this implementation does not carry out {request.strategy}")
        with self.store.transaction() as tx:
            snapshot = _snapshot(tx, request.snapshot_id)
        blobs = sorted({i.blob for i in snapshot.items if i.blob is not None and not i.kind.is_file}, key=lambda o: o.hex)
        repository = self.repositories(snapshot.header.algorithm)
        missing = repository.missing(blobs)
        if missing:
            raise SpecError(
                "BLOB_NOT_FOUND", f"blob(s) {_listed([o.hex for o in missing])} were pruned before they were retained"
            )
        refs = retainer(repository, blobs, snapshot.header.label) if blobs else []
        return {"strategy": request.strategy, "retained": [oid.hex for oid in blobs], "refs": refs}

    def store_content(self, header: Header, item: Item, content: bytes) -> ObjectId:  # noqa: ARG002 - any kind is stored alike
        """Store an item's content as a blob in the repository of the snapshot's object format; return its id."""
        return self.repositories(header.algorithm).write_blob(content)

    def _check_blobs(self, header: Header, items: Sequence[Item]) -> None:
        unset = [str(i) for i, item in enumerate(items) if item.blob is None]
        if unset:
            raise SpecError(
                "ITEM_WITHOUT_BLOB", f"item(s) {_listed(unset)} have no content; set it or remove them, then finalize"
            )
        missing = set(self.repositories(header.algorithm).missing(item.blob for item in items if item.blob is not None))
        gone = [str(i) for i, item in enumerate(items) if item.blob in missing]
        if gone:
            raise SpecError("BLOB_NOT_FOUND", f"the blob(s) of item(s) {_listed(gone)} were pruned; set their content again")


def _snapshot(tx: SnapshotTransaction, object_id: str) -> Snapshot:
    header = tx.header(object_id)
    if header is None:
        raise SpecError("SNAPSHOT_NOT_FOUND", f"no context snapshot {object_id}")
    return Snapshot(header, tx.items(object_id))


def _draft(tx: SnapshotTransaction, object_id: str) -> Header:
    header = tx.header(object_id)
    if header is None:
        raise SpecError("SNAPSHOT_NOT_FOUND", f"no context snapshot {object_id}")
    if header.finalized:
        raise SpecError("SNAPSHOT_FINALIZED", f"{header.label} is finalized and never changes; create a new snapshot instead")
    return header


def _item_at(tx: SnapshotTransaction, header: Header, index: int) -> tuple[int, Item]:
    found = tx.item_at(header.object_id, index)
    if found is None:
        raise SpecError("ITEM_NOT_FOUND", f"{header.label} has no item at index {index}")
    return found


def _listed(indices: list[str]) -> str:
    return ", ".join(indices[:_SHOWN]) + (" ..." if len(indices) > _SHOWN else "")
