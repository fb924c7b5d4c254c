"""Mutants of section "Guarantees": what holds whatever the truncation strategy."""

from __future__ import annotations

from ctxconform.reference.context_assembly import MARKER, Assembler, Fitted, Piece
from ctxconform.reference.exceptions import SpecError

from ._base import CATALOGUE, Json


@CATALOGUE.mutant("context-assembly/guarantees/system-context-never-truncated")
class TruncatesSystemContext(Assembler):
    """The reference, except that a truncated result also loses half of its system context."""

    def result(self, fitted: Fitted, system: str, *, buffer_mode: bool) -> Json:
        """The reference's result, with half of the system context when messages were dropped."""
        result = super().result(fitted, system, buffer_mode=buffer_mode)
        if result.get("truncated") and result.get("systemContext"):
            result["systemContext"] = result["systemContext"][: max(1, len(result["systemContext"]) // 2)]
        return result


@CATALOGUE.mutant("context-assembly/guarantees/system-context-too-long")
class SystemContextLengthNotChecked(Assembler):
    """The reference, except that a system context over the limit is not refused."""

    def check_system(self, system: str, budget: int) -> None:
        """Refuse nothing."""


@CATALOGUE.mutant(
    "context-assembly/guarantees/at-least-one-message",
    "context-assembly/truncation/rolling-window-keeps-recent",
    "context-assembly/user-preferences/minimum-recent-nodes-scope",
)
class RollingWindowMayKeepNothing(Assembler):
    """The reference, except that rollingWindow keeps no message when the most recent one alone does not fit."""

    def fit(self, pieces: list[Piece], room: int, settings: Json) -> Fitted:
        """The reference's fit, except for rollingWindow, which keeps only what fits, maybe nothing."""
        if settings.get("truncationStrategy") != "rollingWindow":
            return super().fit(pieces, room, settings)
        costs = [self.estimate(piece.text) for piece in pieces]
        start, used = len(pieces), 0
        while start > 0 and used + costs[start - 1] <= room:
            start -= 1
            used += costs[start]
        return Fitted(pieces[start:], start)


@CATALOGUE.mutant(
    "context-assembly/guarantees/truncated-flag", "context-assembly/buffer-mode/truncation", name="truncated_only_with_a_marker"
)
class TruncatedOnlyWithAMarker(Assembler):
    """The reference, except that truncated is true only when a marker was inserted, so rollingWindow reports false."""

    def result(self, fitted: Fitted, system: str, *, buffer_mode: bool) -> Json:
        """The reference's result, truncated only when the marker is among the pieces."""
        result = super().result(fitted, system, buffer_mode=buffer_mode)
        result["truncated"] = any(piece.text == MARKER for piece in fitted.pieces)
        return result


@CATALOGUE.mutant("context-assembly/guarantees/system-context-too-long", edge="boundaries")
class SystemContextRefusedAtTheLimit(Assembler):
    """The reference, except that a system context whose estimate equals the budget is refused as too long."""

    def check_system(self, system: str, budget: int) -> None:
        """Refuse a system context that reaches the budget (`>=` for `>`)."""
        if self.estimate(system) >= budget:
            raise SpecError("systemContextTooLong", f"system context alone needs {self.estimate(system)} tokens of {budget}")
