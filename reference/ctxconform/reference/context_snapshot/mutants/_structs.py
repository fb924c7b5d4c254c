"""Mutants of the section Structs: ContextItem and ContextSnapshot, as the origin crate defines them."""

from __future__ import annotations

from dataclasses import replace

from ctxconform.reference.context_snapshot import Header, SnapshotTransaction

from ._base import CATALOGUE


@CATALOGUE.mutant("context-snapshot/structs/context-item")
class IndicesAreSequenceNumbers(SnapshotTransaction):
    """The reference, except that an index names the item's sequence number, so removing one does not move later ones up."""

    def sequence_number(self, object_id: str, index: int) -> int | None:  # noqa: ARG002 - the index is the number
        """The index itself."""
        return index


@CATALOGUE.mutant("context-snapshot/structs/context-snapshot")
class DisplayNameNotStored(SnapshotTransaction):
    """The reference, except that created_by's display_name is not stored: only create_snapshot's answer has it."""

    def insert(self, header: Header) -> None:
        """Add a new, empty snapshot whose creator has no display name."""
        super().insert(replace(header, created_by=replace(header.created_by, display_name=None)))
