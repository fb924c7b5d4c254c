"""Mutants of section "Dialogue Mode Assembly": the path as a messages array."""

from __future__ import annotations

import unicodedata
from typing import Any, ClassVar

from ctxconform.reference.context_assembly import DEFAULT_MINIMUM_RECENT, Assembler, Finder, Fitted, Piece, Step, content_text

from ._base import CATALOGUE, Json


@CATALOGUE.mutant("context-assembly/guarantees/dropped-message-count")
class DroppedCountLeftOut(Assembler):
    """The reference, except that droppedMessageCount is left out of the result, even when messages were dropped."""

    def result(self, fitted: Fitted, system: str, *, buffer_mode: bool) -> Json:
        """The reference's result, without its droppedMessageCount."""
        result = super().result(fitted, system, buffer_mode=buffer_mode)
        del result["droppedMessageCount"]
        return result


@CATALOGUE.mutant(
    "context-assembly/dialogue-mode/traverse-root-to-current",
    "context-assembly/truncation/middle-keeps-recent",
    "context-assembly/user-preferences/minimum-recent-nodes",
    "context-assembly/truncation/rolling-window-keeps-recent",
    "context-assembly/user-preferences/minimum-recent-nodes-scope",
    "context-assembly/multi-source-edges/context-before-primary",
)
class DialoguePathWalkedBackwards(Assembler):
    """The reference, except that dialogue messages run from the current position back to the root."""

    def messages(self, steps: list[Step]) -> list[Piece]:
        """The reference's messages of the path read backwards."""
        return super().messages(steps[::-1])


@CATALOGUE.mutant("context-assembly/dialogue-mode/filter-excluded")
class NodesAfterAnExcludedNodeDropped(Assembler):
    """The reference, except that dialogue assembly stops at the first excluded node, dropping the nodes after it."""

    def messages(self, steps: list[Step]) -> list[Piece]:
        """The reference's messages of the path up to its first excluded node."""
        first = next((index for index, step in enumerate(steps) if step.excluded), len(steps))
        return super().messages(steps[:first])


@CATALOGUE.mutant("context-assembly/dialogue-mode/system-context-included-by-default")
class DialogueObeysBufferSystemFlag(Assembler):
    """The reference, except that dialogue mode leaves the system context out when bufferModeSystemContext is false."""

    def includes_system(self, tree: Json, *, buffer_mode: bool) -> bool:
        """Whether bufferModeSystemContext asks for the system context, in either mode."""
        return bool(tree.get("bufferModeSystemContext", not buffer_mode))


@CATALOGUE.mutant("context-assembly/dialogue-mode/author-type-roles")
class RolesAlternateFromUser(Assembler):
    """The reference, except that message roles alternate from user by position instead of following authorType."""

    def messages(self, steps: list[Step]) -> list[Piece]:
        """The reference's messages, their roles alternating from user."""
        roles = ("user", "assistant")
        return [Piece(roles[index % 2], piece.text) for index, piece in enumerate(super().messages(steps))]


@CATALOGUE.mutant(
    "context-assembly/dialogue-mode/merge-consecutive-same-author",
    "context-assembly/multi-source-edges/context-before-primary",
)
class SameAuthorNodesNotMerged(Assembler):
    """The reference, except that consecutive same-author nodes stay separate messages."""

    _roles: ClassVar[dict[str, str]] = {"human": "user", "model": "assistant"}

    def messages(self, steps: list[Step]) -> list[Piece]:
        """One message per kept node, context sources before their primary."""
        pieces: list[Piece] = []
        for index, step in enumerate(steps):
            following = steps[index + 1] if index + 1 < len(steps) else None
            context = following.context if following is not None and not following.excluded else ()
            if not step.excluded:
                pieces += [
                    Piece(self._roles[node["authorType"]], content_text(node.get("content"))) for node in (*context, step.node)
                ]
        return pieces


@CATALOGUE.mutant(
    "context-assembly/dialogue-mode/truncate-only-if-needed",
    "context-assembly/truncation/stop-at-limit-error",
)
class MarkerRoomReservedBeforeTruncating(Assembler):
    """The reference, except that context that fits but leaves no room for a marker is truncated the middle way."""

    def fit(self, pieces: list[Piece], room: int, settings: Json) -> Fitted:
        """Truncate the middle whenever the pieces fit but the marker would not fit with them."""
        # The check reserves the marker's tokens even when nothing would be removed.
        costs = [self.estimate(piece.text) for piece in pieces]
        if sum(costs) <= room < sum(costs) + self.marker_tokens and len(pieces) > 1:
            return self.truncate_middle(pieces, costs, room, settings.get("minimumRecentNodes", DEFAULT_MINIMUM_RECENT))
        return super().fit(pieces, room, settings)


@CATALOGUE.mutant("context-assembly/dialogue-mode/messages-array")
class MessagesAsOneString(Assembler):
    """The reference, except that dialogue mode answers its messages as one string instead of an array."""

    def result(self, fitted: Fitted, system: str, *, buffer_mode: bool) -> Json:
        """The reference's result, its messages joined into one string in dialogue mode."""
        result = super().result(fitted, system, buffer_mode=buffer_mode)
        if not buffer_mode:
            result["messages"] = "\n\n".join(str(message.get("content")) for message in result["messages"])
        return result


class _FoldingFinder(Finder):
    """Items found through a map keyed by a folded form of their field (the first item of each folded key wins)."""

    def __init__(self, items: list[Json], field: str) -> None:
        super().__init__(items, field)
        self._folded: dict[str, int] = {}
        for index, item in enumerate(items):
            self._folded.setdefault(self.fold(item[field]), index)

    @staticmethod
    def fold(name: str) -> str:
        """The map's key for `name`."""
        return name

    def get(self, wanted: str) -> Json | None:
        """The first item whose field folds as `wanted` does."""
        position = self._folded.get(self.fold(wanted))
        return None if position is None else self._items[position]


class _CaseFoldingFinder(_FoldingFinder):
    @staticmethod
    def fold(name: str) -> str:
        return name.casefold()


class _NormalizingFinder(_FoldingFinder):
    @staticmethod
    def fold(name: str) -> str:
        return unicodedata.normalize("NFKC", name)


class _PrefixFinder(Finder):
    def get(self, wanted: str) -> Json | None:
        # startswith, as a lookup by id prefix (or a path-like id matched by its parent) does.
        return next((item for item in self._items if item[self._field].startswith(wanted)), None)


class _PlainObjectFinder(Finder):
    # In a plain JavaScript object these keys read the prototype's members, never a node stored under them.
    inherited: ClassVar[frozenset[str]] = frozenset({"__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"})

    def get(self, wanted: str) -> Json | None:
        return None if wanted in self.inherited else super().get(wanted)


@CATALOGUE.mutant("context-assembly/dialogue-mode/traverse-root-to-current", edge="identifiers")
class NodeIdsCaseInsensitive(Assembler):
    """The reference, except that nodes and edges are found through a map keyed by the case-folded id."""

    finder = _CaseFoldingFinder


@CATALOGUE.mutant("context-assembly/dialogue-mode/traverse-root-to-current", edge="identifiers")
class NodeIdsNormalized(Assembler):
    """The reference, except that nodes and edges are found through a map keyed by the NFKC-normalized id."""

    finder = _NormalizingFinder


@CATALOGUE.mutant("context-assembly/dialogue-mode/traverse-root-to-current", edge="identifiers")
class NodeIdsMatchedByPrefix(Assembler):
    """The reference, except that a node (or edge) is the first one whose id starts with the id looked up."""

    finder = _PrefixFinder


@CATALOGUE.mutant("context-assembly/dialogue-mode/traverse-root-to-current", edge="identifiers")
class PrototypeNamedIdsNotFound(Assembler):
    """The reference, except that ids named like Object.prototype members (__proto__, constructor ...) are never found."""

    finder = _PlainObjectFinder


@CATALOGUE.mutant(
    "context-assembly/dialogue-mode/filter-excluded",
    "context-assembly/dialogue-mode/merge-consecutive-same-author",
    edge="degenerate",
)
class BlankNodesSkipped(Assembler):
    """The reference, except that dialogue assembly skips nodes whose content is empty or only whitespace."""

    def messages(self, steps: list[Step]) -> list[Piece]:
        """The reference's messages, blank nodes left out as if excluded (so their neighbours merge)."""
        blank = [not content_text(step.node.get("content")).strip() for step in steps]
        return super().messages([step._replace(excluded=True) if skip else step for step, skip in zip(steps, blank, strict=True)])


@CATALOGUE.mutant("context-assembly/dialogue-mode/messages-array", edge="wrong-types")
class BooleansPassAsCounts(Assembler):
    """The reference, except that booleans pass as whole numbers (isinstance(True, int)): a tokenBuffer of true is 1."""

    def check(self, request: Any) -> None:
        """The reference's check of the request with every boolean count read as the number Python makes of it."""
        super().check(_bools_as_ints(request))


def _bools_as_ints(request: Any) -> Any:
    """The request with its boolean counts as ints (settings None is as good as absent to the check)."""
    if not isinstance(request, dict):
        return request
    changed = {**request, "settings": _counts_as_ints(request.get("settings"))}
    if isinstance(changed.get("modelContextLimit"), bool):
        changed["modelContextLimit"] = int(changed["modelContextLimit"])
    if isinstance(changed.get("tree"), dict):
        changed["tree"] = {**changed["tree"], "settings": _counts_as_ints(changed["tree"].get("settings"))}
    return changed


def _counts_as_ints(settings: object) -> object:
    if not isinstance(settings, dict):
        return settings
    counts = ("minimumRecentNodes", "tokenBuffer")
    return {key: int(value) if key in counts and isinstance(value, bool) else value for key, value in settings.items()}
