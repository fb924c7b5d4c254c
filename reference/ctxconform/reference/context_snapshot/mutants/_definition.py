"""Mutants of the definition (the opening paragraph): a snapshot is a point-in-time record that does not change."""

from __future__ import annotations

from ctxconform.reference.context_snapshot import ContextSnapshots, ItemAt

from ._base import CATALOGUE, Json


@CATALOGUE.mutant("context-snapshot/definition/no-change-after-creation")
class RemovesItemsOfFinalizedSnapshots(ContextSnapshots):
    """The reference, except that remove_item does not check whether the snapshot is finalized."""

    def remove_at(self, request: ItemAt) -> Json:
        """Remove an item of a snapshot, draft or finalized; without one, fail as the reference does."""
        # Looks the snapshot up without asking whether it is finalized.
        with self.store.transaction() as tx:
            header = tx.header(request.snapshot_id)
            found = None if header is None else tx.item_at(header.object_id, request.index)
            if found is not None:
                tx.remove(request.snapshot_id, found[0])
        if found is None:
            return super().remove_at(request)
        return {"index": request.index, "item": found[1].to_json()}
