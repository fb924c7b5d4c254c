"""Mutants of section "User Preferences": the truncation strategy, minimumRecentNodes, tokenBuffer and their levels."""

from __future__ import annotations

from ctxconform.reference.context_assembly import (
    DEFAULT_MINIMUM_RECENT,
    DEFAULT_STRATEGY,
    DEFAULT_TOKEN_BUFFER,
    Assembler,
    Fitted,
    Piece,
)

from ._base import CATALOGUE, BeginningFirst, Json


@CATALOGUE.mutant(
    "context-assembly/user-preferences/truncation-strategy",
    "context-assembly/truncation/rolling-window-keeps-recent",
    "context-assembly/truncation/rolling-window-unit",
)
class RollingWindowSettingNotRecognised(Assembler):
    """The reference, except that the rollingWindow setting is not recognised and truncateMiddle applies instead."""

    def fit(self, pieces: list[Piece], room: int, settings: Json) -> Fitted:
        """The reference's fit, with rollingWindow taken for the default strategy."""
        # The name is compared as "rolling_window", so rollingWindow falls through to the default.
        if settings.get("truncationStrategy") == "rollingWindow":
            settings = {**settings, "truncationStrategy": DEFAULT_STRATEGY}
        return super().fit(pieces, room, settings)


@CATALOGUE.mutant("context-assembly/user-preferences/minimum-recent-nodes")
class MinimumRecentNodesIgnored(BeginningFirst):
    """The reference, except that truncateMiddle fills from the beginning and reserves 4 recent nodes, whatever the setting."""

    reserved = DEFAULT_MINIMUM_RECENT


@CATALOGUE.mutant("context-assembly/user-preferences/token-buffer", edge="boundaries")
class ZeroTokenBufferTakenAsUnset(Assembler):
    """The reference, except that a tokenBuffer of 0 is taken as unset, so 1024 tokens are reserved."""

    def budget(self, request: Json, settings: Json) -> int:
        """The reference's budget, with a tokenBuffer of 0 taken for the default."""
        return super().budget(request, {**settings, "tokenBuffer": settings.get("tokenBuffer") or DEFAULT_TOKEN_BUFFER})


@CATALOGUE.mutant("context-assembly/user-preferences/app-level-or-per-tree")
class TreeSettingsReplaceAppSettings(Assembler):
    """The reference, except that any tree-level settings replace the app-level ones as a whole."""

    def settings(self, request: Json) -> Json:
        """The tree's settings if it has any, else the request's."""
        chosen: Json = request["tree"].get("settings") or request.get("settings") or {}
        return chosen


@CATALOGUE.mutant("context-assembly/user-preferences/minimum-recent-nodes", edge="boundaries")
class ZeroMinimumRecentIsTheDefault(Assembler):
    """The reference, except that a minimumRecentNodes of 0 reads as unset (`or 4`), so 4 recent nodes are kept."""

    def fit(self, pieces: list[Piece], room: int, settings: Json) -> Fitted:
        """The reference's fit, with a falsy minimumRecentNodes replaced by the default."""
        recent = settings.get("minimumRecentNodes") or DEFAULT_MINIMUM_RECENT
        return super().fit(pieces, room, {**settings, "minimumRecentNodes": recent})
