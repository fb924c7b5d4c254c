"""Mutants of the context-snapshot reference."""

from __future__ import annotations

import base64
import hashlib
import string
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from ctxconform.reference._implementation import Reference
from ctxconform.reference.context_snapshot import (
    ContextSnapshotHandler,
    ContextSnapshots,
    GitRepository,
    Header,
    Item,
    Kind,
    ObjectId,
    SnapshotStore,
)
from ctxconform.reference.context_snapshot._requests import NewItem, item_at_request, item_request
from ctxconform.reference.context_snapshot._store import SnapshotTransaction
from ctxconform.reference.context_snapshot._store import _item as stored_item
from ctxconform.reference.mutants._catalogue import Mutant, mutant

__all__ = ["MUTANTS"]

MUTANTS: list[Mutant] = []
Json = dict[str, Any]


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


@mutant(
    "context-snapshot/items/blob-git-hash",
    "context-snapshot/items/blob-sha256",
    "context-snapshot/blob-retention/ref-anchoring",
    catalogue=MUTANTS,
)
def hashes_without_header() -> Reference:
    """The reference, except that blob ids hash the content alone, without Git's `blob <size>` header."""
    return Reference(context_snapshot=_headerless)


def _with(**seams: Any) -> Reference:
    return Reference(context_snapshot=partial(ContextSnapshotHandler.from_options, **seams))


class _Store(SnapshotStore):
    """The reference's store, with transactions of another class."""

    def __init__(self, path: Path, transactions: type[SnapshotTransaction]) -> None:
        super().__init__(path)
        self.transactions = transactions

    @contextmanager
    def transaction(self) -> Iterator[SnapshotTransaction]:
        with self._database.transaction() as db:
            yield self.transactions(db)


def _store(transactions: type[SnapshotTransaction]) -> Callable[[Path], SnapshotStore]:
    return partial(_Store, transactions=transactions)


class _RemovesFromFinalized(ContextSnapshots):
    def remove_item(self, args: object) -> Json:
        # Looks the snapshot up without asking whether it is finalized.
        request = item_at_request(args)
        with self.store.transaction() as tx:
            header = tx.header(request.snapshot_id)
            found = None if header is None else tx.item_at(header.object_id, request.index)
            if found is not None:
                tx.remove(request.snapshot_id, found[0])
        if found is None:
            return super().remove_item(args)
        return {"index": request.index, "item": found[1].to_json()}


class _PreviewlessTransaction(SnapshotTransaction):
    def append(self, object_id: str, item: Item) -> int:
        return super().append(object_id, replace(item, preview=None))


class _TrimsPaths(ContextSnapshots):
    def append_item(self, request: NewItem) -> Json:
        return super().append_item(replace(request, item=replace(request.item, path=request.item.path.strip())))


class _AsciiBlank(ContextSnapshots):
    def add_item(self, args: object) -> Json:
        return self.append_item(item_request(args, white=string.whitespace))


class _ReadsBlobsAsText(ContextSnapshots):
    def read_blob(self, args: object) -> Json:
        result = super().read_blob(args)
        content = base64.b64decode(result["content"]["base64"]).decode("utf-8", "replace").encode("utf-8")
        return result | {"size": len(content), "content": {"base64": base64.b64encode(content).decode("ascii")}}


class _OtherKindWithoutBlob(ContextSnapshots):
    def append_item(self, request: NewItem) -> Json:
        return super().append_item(replace(request, content=None) if request.item.kind.other else request)


class _FileLineEndings(ContextSnapshots):
    def store_content(self, header: Header, item: Item, content: bytes) -> ObjectId:
        return super().store_content(header, item, content.replace(b"\r\n", b"\n") if item.kind.is_file else content)


class _UrlNotStored(ContextSnapshots):
    def store_content(self, header: Header, item: Item, content: bytes) -> ObjectId:
        if item.kind == Kind("url"):
            return self.repositories(header.algorithm).object_id(content)
        return super().store_content(header, item, content)


class _TrimsSnippets(ContextSnapshots):
    def store_content(self, header: Header, item: Item, content: bytes) -> ObjectId:
        return super().store_content(header, item, content.strip() if item.kind == Kind("snippet") else content)


class _CommandTranscripts(ContextSnapshots):
    def store_content(self, header: Header, item: Item, content: bytes) -> ObjectId:
        if item.kind == Kind("command"):
            content = f"$ {item.path}\n".encode() + content
        return super().store_content(header, item, content)


class _ImageAsBase64(ContextSnapshots):
    def store_content(self, header: Header, item: Item, content: bytes) -> ObjectId:
        return super().store_content(header, item, base64.b64encode(content) if item.kind == Kind("image") else content)


class _LooseOnlyRepository(GitRepository):
    def read_blob(self, oid: ObjectId) -> bytes | None:
        # Reads the loose object file itself, as an implementation without a pack reader would: gc packs it away.
        loose = self.path / self.run("rev-parse", "--git-path", f"objects/{oid.hex[:2]}/{oid.hex[2:]}").decode().strip()
        if not loose.is_file():
            return None
        header, _, content = zlib.decompress(loose.read_bytes()).partition(b"\0")
        return content if header.startswith(b"blob ") else None


class _RecordsEachReference(ContextSnapshots):
    def store_content(self, header: Header, item: Item, content: bytes) -> ObjectId:
        oid = super().store_content(header, item, content)
        record = f"{header.object_id} {oid.hex} {item.path}\n".encode()
        self.repositories(header.algorithm).write_blob(record)
        return oid


class _SequenceIndexTransaction(SnapshotTransaction):
    def item_at(self, object_id: str, index: int) -> tuple[int, Item] | None:
        row = self._db.execute(
            "SELECT seq, kind, path, preview, blob FROM items WHERE snapshot_id = ? AND seq = ?", (object_id, index)
        ).fetchone()
        return None if row is None else (row[0], stored_item(*row[1:]))


class _NamelessActorTransaction(SnapshotTransaction):
    def insert(self, header: Header) -> None:
        super().insert(replace(header, created_by=replace(header.created_by, display_name=None)))


class _CaseInsensitiveKinds(ContextSnapshots):
    def add_item(self, args: object) -> Json:
        if isinstance(args, dict) and isinstance(args.get("kind"), str):
            args = {**args, "kind": args["kind"].lower()}
        return super().add_item(args)


class _ExplicitUnlessHeuristic(ContextSnapshots):
    def create_snapshot(self, args: object) -> Json:
        if isinstance(args, dict) and "selection_strategy" in args:
            args = {**args, "selection_strategy": "heuristic" if args["selection_strategy"] == "heuristic" else "explicit"}
        return super().create_snapshot(args)


@mutant("context-snapshot/definition/no-change-after-creation", catalogue=MUTANTS)
def removes_items_of_finalized_snapshots() -> Reference:
    """The reference, except that remove_item does not check whether the snapshot is finalized."""
    return _with(service=_RemovesFromFinalized)


@mutant("context-snapshot/items/three-layers", "context-snapshot/items/preview-under-500", catalogue=MUTANTS)
def previews_not_stored() -> Reference:
    """The reference, except that an item's preview is not stored: add_item answers it, get_snapshot has none."""
    return _with(store=_store(_PreviewlessTransaction))


@mutant("context-snapshot/items/path-locator", catalogue=MUTANTS)
def trims_paths() -> Reference:
    """The reference, except that a path is stored with its leading and trailing white space trimmed."""
    return _with(service=_TrimsPaths)


@mutant("context-snapshot/items/blank-path-rejected", catalogue=MUTANTS)
def only_ascii_blank_paths_refused() -> Reference:
    """The reference, except that only ASCII white space makes a path blank (a path of U+3000 is accepted)."""
    return _with(service=_AsciiBlank)


@mutant("context-snapshot/items/blob-holds-full-content", catalogue=MUTANTS)
def reads_blobs_as_text() -> Reference:
    """The reference, except that read_blob decodes the blob as UTF-8 (replacing bad bytes) before answering it."""
    return _with(service=_ReadsBlobsAsText)


@mutant("context-snapshot/items/unified-content-reference", "context-snapshot/enums/other-kind", catalogue=MUTANTS)
def open_kind_without_blob() -> Reference:
    """The reference, except that an item of the open kind {"other": name} drops its content and gets no blob."""
    return _with(service=_OtherKindWithoutBlob)


@mutant(
    "context-snapshot/items/file-blob-in-git-tree",
    "context-snapshot/items/blob-git-hash",
    "context-snapshot/items/blob-sha256",
    "context-snapshot/items/blob-holds-full-content",
    "context-snapshot/items/unified-content-reference",
    catalogue=MUTANTS,
)
def normalizes_file_line_endings() -> Reference:
    """The reference, except that a File item's CRLF line endings become LF before it is stored."""
    return _with(service=_FileLineEndings)


@mutant(
    "context-snapshot/items/url-content-as-blob",
    "context-snapshot/items/blob-holds-full-content",
    "context-snapshot/items/blob-sha256",
    catalogue=MUTANTS,
)
def url_pages_not_stored() -> Reference:
    """The reference, except that a Url item's page is hashed but not stored, as if it could be fetched again."""
    return _with(service=_UrlNotStored)


@mutant(
    "context-snapshot/items/snippet-text-as-blob",
    "context-snapshot/items/blob-git-hash",
    "context-snapshot/items/blob-sha256",
    "context-snapshot/items/blob-holds-full-content",
    "context-snapshot/items/unified-content-reference",
    catalogue=MUTANTS,
)
def trims_snippet_text() -> Reference:
    """The reference, except that a Snippet item's text is stored without its leading and trailing white space."""
    return _with(service=_TrimsSnippets)


@mutant(
    "context-snapshot/items/command-output-as-blob",
    "context-snapshot/items/blob-git-hash",
    "context-snapshot/items/blob-sha256",
    "context-snapshot/items/blob-holds-full-content",
    "context-snapshot/items/unified-content-reference",
    catalogue=MUTANTS,
)
def stores_command_transcripts() -> Reference:
    """The reference, except that a Command item's blob holds a transcript: `$ command`, a newline, then the output."""
    return _with(service=_CommandTranscripts)


@mutant(
    "context-snapshot/items/image-binary-as-blob",
    "context-snapshot/items/blob-git-hash",
    "context-snapshot/items/blob-sha256",
    "context-snapshot/items/blob-holds-full-content",
    "context-snapshot/items/unified-content-reference",
    catalogue=MUTANTS,
)
def stores_image_base64() -> Reference:
    """The reference, except that an Image item's blob holds the base64 text of the image rather than its bytes."""
    return _with(service=_ImageAsBase64)


@mutant(
    "context-snapshot/blob-retention/file-blobs-reachable", "context-snapshot/items/blob-holds-full-content", catalogue=MUTANTS
)
def reads_loose_objects_only() -> Reference:
    """The reference, except that read_blob reads loose objects only, so a blob git gc packed is not found."""
    return _with(opener=_LooseOnlyRepository.open)


@mutant("context-snapshot/purpose/content-deduplication", "context-snapshot/items/file-blob-in-git-tree", catalogue=MUTANTS)
def stores_a_record_per_reference() -> Reference:
    """The reference, except that every item with content also stores a blob recording that reference."""
    return _with(service=_RecordsEachReference)


@mutant("context-snapshot/structs/context-item", catalogue=MUTANTS)
def indices_are_sequence_numbers() -> Reference:
    """The reference, except that an index names the item's sequence number, so removing one does not move later ones up."""
    return _with(store=_store(_SequenceIndexTransaction))


@mutant("context-snapshot/structs/context-snapshot", catalogue=MUTANTS)
def display_name_not_stored() -> Reference:
    """The reference, except that created_by's display_name is not stored: only create_snapshot's answer has it."""
    return _with(store=_store(_NamelessActorTransaction))


@mutant("context-snapshot/enums/context-item-kind", catalogue=MUTANTS)
def kinds_ignore_case() -> Reference:
    """The reference, except that a kind is matched ignoring case ("File" is taken as file)."""
    return _with(service=_CaseInsensitiveKinds)


@mutant("context-snapshot/enums/selection-strategy", catalogue=MUTANTS)
def strategy_defaults_to_explicit() -> Reference:
    """The reference, except that any selection_strategy other than heuristic is taken as explicit."""
    return _with(service=_ExplicitUnlessHeuristic)
