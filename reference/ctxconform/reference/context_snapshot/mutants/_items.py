"""Mutants of the section Items: each item's path, blob and preview, and what each kind's blob holds."""

from __future__ import annotations

import base64
import hashlib
import string
import zlib
from dataclasses import replace

from ctxconform.reference.context_snapshot import (
    MAX_PATH,
    PREVIEW_LIMIT,
    ContextSnapshots,
    GitRepository,
    Header,
    Item,
    Kind,
    NewItem,
    ObjectId,
    SnapshotTransaction,
)
from ctxconform.reference.exceptions import SpecError

from ._base import CATALOGUE, Json, loose_object


@CATALOGUE.mutant(
    "context-snapshot/items/blob-git-hash",
    "context-snapshot/items/blob-sha256",
    "context-snapshot/blob-retention/ref-anchoring",
)
class HashesWithoutHeader(GitRepository):
    """The reference, except that blob ids hash the content alone, without Git's `blob <size>` header."""

    def object_id(self, content: bytes) -> ObjectId:
        """The hash of the content alone."""
        return ObjectId(self.algorithm, hashlib.new(self.algorithm, content, usedforsecurity=False).digest())

    def write_blob(self, content: bytes) -> ObjectId:
        """Store `content` as a loose object named by the hash of the content alone."""
        # Written as a loose object of its own, as an implementation that writes objects itself would: under the wrong name.
        oid = self.object_id(content)
        loose = loose_object(self, oid)
        loose.parent.mkdir(parents=True, exist_ok=True)
        loose.write_bytes(zlib.compress(b"blob %d\0" % len(content) + content))
        return oid


@CATALOGUE.mutant("context-snapshot/items/three-layers", "context-snapshot/items/preview-under-500")
class PreviewsNotStored(SnapshotTransaction):
    """The reference, except that an item's preview is not stored: add_item answers it, get_snapshot has none."""

    def append(self, object_id: str, item: Item) -> int:
        """Append an item without its preview and return its index."""
        return super().append(object_id, replace(item, preview=None))


@CATALOGUE.mutant("context-snapshot/items/path-locator")
class TrimsPaths(ContextSnapshots):
    """The reference, except that a path is stored with its leading and trailing white space trimmed."""

    def append_item(self, request: NewItem) -> Json:
        """Append an item whose path is trimmed."""
        return super().append_item(replace(request, item=replace(request.item, path=request.item.path.strip())))


@CATALOGUE.mutant("context-snapshot/items/blank-path-rejected")
class OnlyAsciiBlankPathsRefused(ContextSnapshots):
    """The reference, except that only ASCII white space makes a path blank (a path of U+3000 is accepted)."""

    white_space = string.whitespace


@CATALOGUE.mutant("context-snapshot/items/blob-holds-full-content")
class ReadsBlobsAsText(ContextSnapshots):
    """The reference, except that read_blob decodes the blob as UTF-8 (replacing bad bytes) before answering it."""

    def read_blob(self, args: object) -> Json:
        """A blob's content, decoded as UTF-8 and encoded again."""
        result = super().read_blob(args)
        content = base64.b64decode(result["content"]["base64"]).decode("utf-8", "replace").encode("utf-8")
        return result | {"size": len(content), "content": {"base64": base64.b64encode(content).decode("ascii")}}


@CATALOGUE.mutant("context-snapshot/items/unified-content-reference", "context-snapshot/enums/other-kind")
class OpenKindWithoutBlob(ContextSnapshots):
    """The reference, except that an item of the open kind {"other": name} drops its content and gets no blob."""

    def append_item(self, request: NewItem) -> Json:
        """Append an item, without the content of an item of the open kind."""
        return super().append_item(replace(request, content=None) if request.item.kind.other else request)


@CATALOGUE.mutant(
    "context-snapshot/items/file-blob-in-git-tree",
    "context-snapshot/items/blob-git-hash",
    "context-snapshot/items/blob-sha256",
    "context-snapshot/items/blob-holds-full-content",
    "context-snapshot/items/unified-content-reference",
)
class NormalizesFileLineEndings(ContextSnapshots):
    """The reference, except that a File item's CRLF line endings become LF before it is stored."""

    def store_content(self, header: Header, item: Item, content: bytes) -> ObjectId:
        """Store an item's content, a File's with LF line endings."""
        return super().store_content(header, item, content.replace(b"\r\n", b"\n") if item.kind.is_file else content)


@CATALOGUE.mutant(
    "context-snapshot/items/url-content-as-blob",
    "context-snapshot/items/blob-holds-full-content",
    "context-snapshot/items/blob-sha256",
)
class UrlPagesNotStored(ContextSnapshots):
    """The reference, except that a Url item's page is hashed but not stored, as if it could be fetched again."""

    def store_content(self, header: Header, item: Item, content: bytes) -> ObjectId:
        """Store an item's content, but only hash a Url's."""
        if item.kind == Kind("url"):
            return self.repositories(header.algorithm).object_id(content)
        return super().store_content(header, item, content)


@CATALOGUE.mutant(
    "context-snapshot/items/snippet-text-as-blob",
    "context-snapshot/items/blob-git-hash",
    "context-snapshot/items/blob-sha256",
    "context-snapshot/items/blob-holds-full-content",
    "context-snapshot/items/unified-content-reference",
)
class TrimsSnippetText(ContextSnapshots):
    """The reference, except that a Snippet item's text is stored without its leading and trailing white space."""

    def store_content(self, header: Header, item: Item, content: bytes) -> ObjectId:
        """Store an item's content, a Snippet's trimmed."""
        return super().store_content(header, item, content.strip() if item.kind == Kind("snippet") else content)


@CATALOGUE.mutant(
    "context-snapshot/items/command-output-as-blob",
    "context-snapshot/items/blob-git-hash",
    "context-snapshot/items/blob-sha256",
    "context-snapshot/items/blob-holds-full-content",
    "context-snapshot/items/unified-content-reference",
)
class StoresCommandTranscripts(ContextSnapshots):
    """The reference, except that a Command item's blob holds a transcript: `$ command`, a newline, then the output."""

    def store_content(self, header: Header, item: Item, content: bytes) -> ObjectId:
        """Store an item's content, a Command's after a `$ command` line."""
        if item.kind == Kind("command"):
            content = f"$ {item.path}\n".encode() + content
        return super().store_content(header, item, content)


@CATALOGUE.mutant(
    "context-snapshot/items/image-binary-as-blob",
    "context-snapshot/items/blob-git-hash",
    "context-snapshot/items/blob-sha256",
    "context-snapshot/items/blob-holds-full-content",
    "context-snapshot/items/unified-content-reference",
)
class StoresImageBase64(ContextSnapshots):
    """The reference, except that an Image item's blob holds the base64 text of the image rather than its bytes."""

    def store_content(self, header: Header, item: Item, content: bytes) -> ObjectId:
        """Store an item's content, an Image's as base64 text."""
        return super().store_content(header, item, base64.b64encode(content) if item.kind == Kind("image") else content)


@CATALOGUE.mutant("context-snapshot/items/path-locator", edge="identifiers")
class StagesContentUnderItsPath(ContextSnapshots):
    """The reference, except that content is staged in a file named by joining the item's path to a folder, then hashed."""

    def store_content(self, header: Header, item: Item, content: bytes) -> ObjectId:
        """Write the content to <state>/context-snapshot/staging/<path> and let `git hash-object -w` store that file."""
        # The path joined as a file name, as code that hashes files of a work tree does: dot segments climb out,
        # a path that is the parent folder of another clashes with it, and a NUL or a folder name breaks the write.
        staged = self.store.path.parent / "context-snapshot" / "staging" / item.path.lstrip("/")
        staged.parent.mkdir(parents=True, exist_ok=True)
        staged.write_bytes(content)
        repository = self.repositories(header.algorithm)
        written = repository.run("hash-object", "-w", "--no-filters", str(staged.absolute())).decode().strip()
        return ObjectId.parse(written)


@CATALOGUE.mutant("context-snapshot/items/path-locator", edge="boundaries")
class CountsPathsInBytes(ContextSnapshots):
    """The reference, except that a path's length is counted in UTF-8 bytes, so 4096 characters of é are refused."""

    def append_item(self, request: NewItem) -> Json:
        """Append an item whose path has at most 4096 UTF-8 bytes."""
        if len(request.item.path.encode("utf-8")) > MAX_PATH:
            raise SpecError("INVALID_REQUEST", f"path has more than {MAX_PATH} bytes")
        return super().append_item(request)


@CATALOGUE.mutant("context-snapshot/items/preview-under-500", name="cuts_previews_at_500", edge="boundaries")
class CutsPreviewsAt500(ContextSnapshots):
    """The reference, except that a long preview is cut to 500 characters, not under 500."""

    preview_kept = PREVIEW_LIMIT


@CATALOGUE.mutant("context-snapshot/items/three-layers", "context-snapshot/items/path-locator", edge="wrong-types")
class CoercesPathsToText(ContextSnapshots):
    """The reference, except that a path of another JSON type is taken as its text (str(None) is "None")."""

    def add_item(self, args: object) -> Json:
        """Append an item, its path made text with str()."""
        if isinstance(args, dict) and "path" in args and not isinstance(args["path"], str):
            args = {**args, "path": str(args["path"])}
        return super().add_item(args)


@CATALOGUE.mutant(
    "context-snapshot/items/three-layers",
    "context-snapshot/items/blob-set-when-finalized",
    "context-snapshot/items/blob-git-hash",
    "context-snapshot/items/blob-sha256",
    edge="degenerate",
)
class EmptyContentIsNoContent(ContextSnapshots):
    """The reference, except that empty content is taken as no content (`if content:`), so the item gets no blob.

    Whatever the snapshot's algorithm: an item of empty content in a sha256 snapshot has no blob either, where Git's
    SHA-256 id of the empty blob is due (items/blob-sha256, as items/blob-git-hash in a SHA-1 one).
    """

    def append_item(self, request: NewItem) -> Json:
        """Append an item, without its content when that is empty."""
        return super().append_item(request if request.content else replace(request, content=None))


@CATALOGUE.mutant(
    "context-snapshot/items/blob-git-hash",
    "context-snapshot/items/blob-sha256",
    "context-snapshot/items/snippet-text-as-blob",
    "context-snapshot/items/blob-holds-full-content",
    edge="degenerate",
)
class TextContentWithUniversalNewlines(ContextSnapshots):
    """The reference, except that content given as text is read with universal newlines: CRLF and CR become LF.

    Whatever the algorithm: text with CR in a sha256 snapshot, or given to hash_content with sha256, gets the id of
    other bytes than `git hash-object` hashes in a SHA-256 repository (items/blob-sha256, as blob-git-hash for SHA-1).
    """

    def add_item(self, args: object) -> Json:
        """Append an item, its text content with LF line endings."""
        return super().add_item(_universal_newlines(args))

    def hash_content(self, args: object) -> Json:
        """The blob id of some content, text with LF line endings."""
        return super().hash_content(_universal_newlines(args))


def _universal_newlines(args: object) -> object:
    content = args.get("content") if isinstance(args, dict) else None
    if isinstance(args, dict) and isinstance(content, dict) and isinstance(content.get("text"), str):
        text = content["text"].replace("\r\n", "\n").replace("\r", "\n")
        return {**args, "content": {**content, "text": text}}
    return args
