"""Mutants of the section Blob Retention: which blobs stay reachable when git gc runs."""

from __future__ import annotations

import zlib

from ctxconform.reference.context_snapshot import GitRepository, ObjectId

from ._base import CATALOGUE, loose_object


@CATALOGUE.mutant("context-snapshot/blob-retention/file-blobs-reachable", "context-snapshot/items/blob-holds-full-content")
class ReadsLooseObjectsOnly(GitRepository):
    """The reference, except that read_blob reads loose objects only, so a blob git gc packed is not found."""

    def read_blob(self, oid: ObjectId) -> bytes | None:
        """The content of a blob Git keeps as a loose object, or None."""
        # Reads the loose object file itself, as an implementation without a pack reader would: gc packs it away.
        loose = loose_object(self, oid)
        if not loose.is_file():
            return None
        header, _, content = zlib.decompress(loose.read_bytes()).partition(b"\0")
        return content if header.startswith(b"blob ") else None
