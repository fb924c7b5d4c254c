"""Mutants of section "Truncation Strategies": truncateMiddle, rollingWindow and stopAtLimit."""

from __future__ import annotations

from functools import partial

from ctxconform.reference.context_assembly import MARKER, Assembler, Fitted, Piece
from ctxconform.reference.exceptions import SpecError

from ._base import CATALOGUE, BeginningFirst, Json, as_continuation, with_metadata, with_nodes


@CATALOGUE.mutant("context-assembly/truncation/applies-when-exceeds", "context-assembly/truncation/stop-at-limit-error")
class TruncatesAtExactlyTheBudget(Assembler):
    """The reference, except that context whose estimate equals the budget is truncated as if it exceeded it."""

    def fit(self, pieces: list[Piece], room: int, settings: Json) -> Fitted:
        """The reference's fit, with one token less room when the pieces need exactly the room there is."""
        # `<` for `<=`: an estimate equal to the budget is handled as one over it.
        total = sum(self.estimate(piece.text) for piece in pieces)
        return super().fit(pieces, room - 1 if total == room else room, settings)


@CATALOGUE.mutant("context-assembly/truncation/truncate-middle-default")
class RollingWindowByDefault(Assembler):
    """The reference, except that rollingWindow applies when no truncationStrategy is set."""

    def fit(self, pieces: list[Piece], room: int, settings: Json) -> Fitted:
        """The reference's fit, with rollingWindow as the default strategy."""
        return super().fit(pieces, room, {"truncationStrategy": "rollingWindow", **settings})


@CATALOGUE.mutant(
    "context-assembly/truncation/middle-keeps-recent",
    "context-assembly/user-preferences/minimum-recent-nodes",
    "context-assembly/truncation/recent-nodes-unit",
    "context-assembly/buffer-mode/truncation",
)
class MiddleFillsBeginningFirst(BeginningFirst):
    """The reference, except that truncateMiddle fills the budget from the beginning, reserving only the last message."""

    reserved = 1


@CATALOGUE.mutant("context-assembly/truncation/marker-present", "context-assembly/buffer-mode/truncation")
class NoTruncationMarker(Assembler):
    """The reference, except that truncateMiddle puts no marker where messages were removed."""

    def fit(self, pieces: list[Piece], room: int, settings: Json) -> Fitted:
        """The reference's fit without the marker."""
        fitted = super().fit(pieces, room, settings)
        return Fitted([piece for piece in fitted.pieces if piece.text != MARKER], fitted.dropped)


@CATALOGUE.mutant("context-assembly/truncation/rolling-window-keeps-recent", "context-assembly/buffer-mode/truncation")
class RollingWindowKeepsOneTooMany(Assembler):
    """The reference, except that rollingWindow keeps one message more than fits (it checks before adding)."""

    def fit(self, pieces: list[Piece], room: int, settings: Json) -> Fitted:
        """The reference's fit, except for rollingWindow, which adds a piece while what is used fits."""
        if settings.get("truncationStrategy") != "rollingWindow":
            return super().fit(pieces, room, settings)
        costs = [self.estimate(piece.text) for piece in pieces]
        if sum(costs) <= room:
            return Fitted(pieces, 0)
        start, used = len(pieces) - 1, costs[-1]
        while start > 0 and used <= room:  # checks what is used, not what adding the next would use
            start -= 1
            used += costs[start]
        return Fitted(pieces[start:], start)


@CATALOGUE.mutant("context-assembly/truncation/stop-at-limit-error", "context-assembly/buffer-mode/truncation")
class StopAtLimitReturnsEverything(Assembler):
    """The reference, except that stopAtLimit returns an oversized context whole instead of refusing it."""

    def fit(self, pieces: list[Piece], room: int, settings: Json) -> Fitted:
        """The reference's fit, except that stopAtLimit keeps every piece."""
        if settings.get("truncationStrategy") == "stopAtLimit":
            return Fitted(pieces, 0)
        return super().fit(pieces, room, settings)


@CATALOGUE.mutant("context-assembly/truncation/stop-at-limit-user-remedies")
class StopAtLimitCountsExcludedNodes(Assembler):
    """The reference, except that stopAtLimit measures the path before exclusion, so excluding nodes does not help."""

    def assemble(self, request: Json) -> Json:
        """Under stopAtLimit, refuse what the path would need with no node excluded; else assemble as the reference does."""
        if self.settings(request).get("truncationStrategy") == "stopAtLimit":
            try:
                super().assemble(self._unfiltered(request))
            except SpecError as error:
                if error.code == "contextExceedsLimit":
                    raise
        return super().assemble(request)

    @staticmethod
    def _unfiltered(request: Json) -> Json:
        cleared = partial(with_metadata, change=lambda m: {k: v for k, v in m.items() if k not in ("excluded", "pruned")})
        tree = with_nodes(request, cleared)["tree"]
        edges = [as_continuation(edge) for edge in tree["edges"]]
        return {**request, "tree": {**tree, "edges": edges}}


@CATALOGUE.mutant("context-assembly/truncation/rolling-window-unit", edge="boundaries")
class RollingWindowStopsShortOfTheBudget(Assembler):
    """The reference, except that rollingWindow adds an older message only while the total stays under the budget."""

    def fit(self, pieces: list[Piece], room: int, settings: Json) -> Fitted:
        """The reference's fit, except for rollingWindow, which stops at `<` instead of `<=`."""
        costs = [self.estimate(piece.text) for piece in pieces]
        if settings.get("truncationStrategy") != "rollingWindow" or sum(costs) <= room:
            return super().fit(pieces, room, settings)
        start, used = len(pieces) - 1, costs[-1]
        while start > 0 and used + costs[start - 1] < room:  # `<` for `<=`: a message that fits exactly is dropped
            start -= 1
            used += costs[start]
        return Fitted(pieces[start:], start)
