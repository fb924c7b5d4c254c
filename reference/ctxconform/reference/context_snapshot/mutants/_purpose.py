"""Mutants of the section Purpose: reproducibility, auditing and content deduplication."""

from __future__ import annotations

from ctxconform.reference.context_snapshot import ContextSnapshots, Header, Item, ObjectId

from ._base import CATALOGUE


@CATALOGUE.mutant(
    "context-snapshot/purpose/content-deduplication",
    "context-snapshot/items/file-blob-in-git-tree",
    name="stores_a_record_per_reference",
)
class StoresARecordPerReference(ContextSnapshots):
    """The reference, except that every item with content also stores a blob recording that reference."""

    def store_content(self, header: Header, item: Item, content: bytes) -> ObjectId:
        """Store an item's content, and a blob naming the snapshot, the content's blob and the path."""
        oid = super().store_content(header, item, content)
        record = f"{header.object_id} {oid.hex} {item.path}\n".encode()
        self.repositories(header.algorithm).write_blob(record)
        return oid
