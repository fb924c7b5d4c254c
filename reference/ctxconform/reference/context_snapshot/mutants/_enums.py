"""Mutants of the section Enums: ContextItemKind and SelectionStrategy, spelled as the origin crate spells them."""

from __future__ import annotations

from ctxconform.reference.context_snapshot import ContextSnapshots

from ._base import CATALOGUE, Json


@CATALOGUE.mutant("context-snapshot/enums/context-item-kind")
class KindsIgnoreCase(ContextSnapshots):
    """The reference, except that a kind is matched ignoring case ("File" is taken as file)."""

    def add_item(self, args: object) -> Json:
        """Append an item to a draft, its kind in lowercase."""
        if isinstance(args, dict) and isinstance(args.get("kind"), str):
            args = {**args, "kind": args["kind"].lower()}
        return super().add_item(args)


@CATALOGUE.mutant("context-snapshot/enums/selection-strategy")
class StrategyDefaultsToExplicit(ContextSnapshots):
    """The reference, except that any selection_strategy other than heuristic is taken as explicit."""

    def create_snapshot(self, args: object) -> Json:
        """Create an empty draft, explicit unless the strategy is heuristic."""
        if isinstance(args, dict) and "selection_strategy" in args:
            args = {**args, "selection_strategy": "heuristic" if args["selection_strategy"] == "heuristic" else "explicit"}
        return super().create_snapshot(args)
