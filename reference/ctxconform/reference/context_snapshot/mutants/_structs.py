"""Mutants of the section Structs: ContextItem and ContextSnapshot, as the origin crate defines them."""

from __future__ import annotations

import unicodedata
from dataclasses import replace
from typing import Final

from ctxconform.reference.context_snapshot import ContextSnapshots, Header, Item, SnapshotTransaction
from ctxconform.reference.exceptions import SpecError

from ._base import CATALOGUE, Json

_MAX_SUMMARY: Final = 65536


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


@CATALOGUE.mutant("context-snapshot/structs/context-item", edge="identifiers")
class ItemsKeyedByFoldedPath(SnapshotTransaction):
    """The reference, except that a draft's items are keyed by their path case-folded and NFKC-normalized."""

    def append(self, object_id: str, item: Item) -> int:
        """Append an item, or replace the one whose folded path is the same (as a dict keyed so would)."""
        key = _folded(item.path)
        for index, kept in enumerate(self.items(object_id)):
            seq = self.sequence_number(object_id, index)
            if _folded(kept.path) == key and seq is not None:
                self.replace(object_id, seq, item)
                return index
        return super().append(object_id, item)


def _folded(path: str) -> str:
    return unicodedata.normalize("NFKC", path).casefold()


@CATALOGUE.mutant("context-snapshot/structs/context-snapshot", edge="boundaries")
class RefusesSummariesAtTheLimit(ContextSnapshots):
    """The reference, except that a summary of exactly 65,536 characters, the limit, is refused (`<` for `<=`)."""

    def create_snapshot(self, args: object) -> Json:
        """Create an empty draft whose summary is shorter than the limit."""
        summary = args.get("summary") if isinstance(args, dict) else None
        if isinstance(summary, str) and not len(summary) < _MAX_SUMMARY:
            raise SpecError("INVALID_REQUEST", f"summary must be shorter than {_MAX_SUMMARY} characters")
        return super().create_snapshot(args)


@CATALOGUE.mutant("context-snapshot/structs/context-snapshot", edge="degenerate")
class DropsAnEmptySummary(ContextSnapshots):
    """The reference, except that an empty summary is taken as none (`summary or None`)."""

    def create_snapshot(self, args: object) -> Json:
        """Create an empty draft, without its summary when that is empty."""
        if isinstance(args, dict) and args.get("summary") == "":
            args = {key: value for key, value in args.items() if key != "summary"}
        return super().create_snapshot(args)


@CATALOGUE.mutant("context-snapshot/structs/context-snapshot", edge="wrong-types")
class NullOptionsAsText(ContextSnapshots):
    """The reference, except that a null summary or display_name is stored as its text, str(None): "None"."""

    def create_snapshot(self, args: object) -> Json:
        """Create an empty draft, its given options made text with str()."""
        if isinstance(args, dict):
            actor = args.get("created_by")
            if isinstance(actor, dict) and "display_name" in actor:
                args = {**args, "created_by": {**actor, "display_name": str(actor["display_name"])}}
            if "summary" in args:
                args = {**args, "summary": str(args["summary"])}
        return super().create_snapshot(args)
