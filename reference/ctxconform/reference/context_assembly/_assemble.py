"""Assembly: a path through a Loom tree into a completion request, in dialogue or buffer mode."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar, Final

from ctxconform.reference.context_assembly._finder import Finder
from ctxconform.reference.context_assembly._tokens import (
    DEFAULT_MINIMUM_RECENT,
    DEFAULT_MODEL_LIMIT,
    DEFAULT_STRATEGY,
    DEFAULT_TOKEN_BUFFER,
    MARKER,
    estimate,
)
from ctxconform.reference.context_assembly._tree import Step, content_text, walk
from ctxconform.reference.context_assembly._truncate import Fitted, Piece, rolling_window, truncate_middle
from ctxconform.reference.context_assembly._validate import check_request
from ctxconform.reference.exceptions import SpecError

__all__ = ["Assembler", "assemble"]

Json = dict[str, Any]
_ROLES = {"human": "user", "model": "assistant"}


def assemble(request: Any) -> Json:
    """Assemble the request's path; raise SpecError for a malformed request or tree, or a context that cannot fit."""
    return _ASSEMBLER.run(request)


class Assembler:
    """The steps of assembly, one method each, so that a variant can change a single step (the kit's mutants do)."""

    marker_tokens: ClassVar[int] = estimate(MARKER)
    """The tokens truncateMiddle reserves for its marker: the point a variant reads or overrides."""

    # The function itself, not a method wrapping it: it is called once per message of a path of any length.
    estimate = staticmethod(estimate)

    finder: ClassVar[type[Finder]] = Finder
    """How nodes are found by id and edges by target: the point a variant overrides (ids are compared exactly)."""

    def run(self, request: Any) -> Json:
        """Assemble the request's path; raise SpecError for a malformed request or tree, or a context that cannot fit."""
        with _collector_paused():
            self.check(request)
            return self.assemble(request)

    def check(self, request: Any) -> None:
        """Refuse a request that does not match the request schema: the point a variant overrides."""
        check_request(request)

    def assemble(self, request: Json) -> Json:
        """Assemble a well-formed request."""
        tree = request["tree"]
        settings = self.settings(request)
        steps = walk(tree, request["path"], self.finder)
        buffer_mode = tree.get("mode", "dialogue") == "buffer"
        system = self.system(request, steps) if self.includes_system(tree, buffer_mode=buffer_mode) else ""
        budget = self.budget(request, settings)
        self.check_system(system, budget)
        pieces = self.segments(steps, request.get("workingBuffer", "")) if buffer_mode else self.messages(steps)
        if not pieces:
            raise SpecError("emptyContext", "every node on the path is excluded, so no message is left; include a node or move")
        fitted = self.fit(pieces, budget - self.estimate(system), settings)
        return self.result(fitted, system, buffer_mode=buffer_mode)

    def settings(self, request: Json) -> Json:
        """The preferences: app-level (the request's settings) unless the tree overrides them, one setting at a time."""
        return {**(request.get("settings") or {}), **(request["tree"].get("settings") or {})}

    def includes_system(self, tree: Json, *, buffer_mode: bool) -> bool:
        """Whether the system context is assembled: always in dialogue mode, on request in buffer mode."""
        return not buffer_mode or bool(tree.get("bufferModeSystemContext"))

    def system(self, request: Json, steps: list[Step]) -> str:
        """The combined system context: agent-level, tree-level, then the path's instruction sources."""
        agent = ((request.get("agent") or {}).get("configuration") or {}).get("systemPrompt") or ""
        parts = [agent, request["tree"].get("systemContext") or ""]
        parts += [content_text(node.get("content")) for step in steps if not step.excluded for node in step.instructions]
        return "\n\n".join(part.strip() for part in parts if part.strip())

    def budget(self, request: Json, settings: Json) -> int:
        """The tokens the context may use: the model's limit minus the response buffer."""
        limit: int = request.get("modelContextLimit", DEFAULT_MODEL_LIMIT)
        reserved: int = settings.get("tokenBuffer", DEFAULT_TOKEN_BUFFER)
        return limit - reserved

    def check_system(self, system: str, budget: int) -> None:
        """Refuse a system context that alone exceeds the budget."""
        if self.estimate(system) > budget:
            raise SpecError(
                "systemContextTooLong", f"system context alone needs {self.estimate(system)} tokens, {budget} are available"
            )

    def messages(self, steps: list[Step]) -> list[Piece]:
        """Dialogue mode: one message per run of same-role nodes, context sources before their primary."""
        return _messages(steps)

    def segments(self, steps: list[Step], working_buffer: str) -> list[Piece]:
        """Buffer mode: each kept node's content, then the working buffer."""
        pieces = [Piece("text", content_text(step.node.get("content"))) for step in steps if not step.excluded]
        return [*pieces, Piece("text", working_buffer)] if working_buffer else pieces

    def fit(self, pieces: list[Piece], room: int, settings: Json) -> Fitted:
        """Truncate the pieces into `room` tokens by the strategy the settings name; at least one piece always stays."""
        estimate = self.estimate
        costs = [estimate(piece.text) for piece in pieces]
        if not pieces or sum(costs) <= room:
            return Fitted(pieces, 0)
        strategy = settings.get("truncationStrategy", DEFAULT_STRATEGY)
        if strategy == "stopAtLimit":
            raise SpecError(
                "contextExceedsLimit",
                f"the context needs {sum(costs)} tokens, {room} are available; exclude nodes or switch models",
            )
        if strategy == "rollingWindow":
            return rolling_window(pieces, costs, room)
        return self.truncate_middle(pieces, costs, room, settings.get("minimumRecentNodes", DEFAULT_MINIMUM_RECENT))

    def truncate_middle(self, pieces: list[Piece], costs: list[int], room: int, minimum_recent: int) -> Fitted:
        """Apply truncateMiddle to pieces over `room` tokens, given their estimates: the point a variant overrides."""
        return truncate_middle(pieces, costs, room, minimum_recent, self.marker_tokens)

    def result(self, fitted: Fitted, system: str, *, buffer_mode: bool) -> Json:
        """The completion request: messages (or the document), the system context when there is one, and the flags."""
        result: Json = {"truncated": fitted.dropped > 0, "droppedMessageCount": fitted.dropped}
        if system:
            result["systemContext"] = system
        if buffer_mode:
            return {"document": "".join(piece.text for piece in fitted.pieces), **result}
        return {"messages": [{"role": p.role, "content": p.text} for p in fitted.pieces], **result}


_ASSEMBLER: Final = Assembler()


@contextmanager
def _collector_paused() -> Iterator[None]:
    # Assembly builds no reference cycles, yet its allocations would set off full passes of the cyclic collector
    # over the caller's whole request: on a million-node tree that is a third of the time, and it grows faster
    # than the path. Reference counting frees everything as usual; the collector is restored as it was.
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _messages(steps: list[Step]) -> list[Piece]:
    """One message per run of same-role nodes, context sources before their primary; texts are joined once (linear)."""
    runs: list[tuple[str, list[str]]] = []
    for index, step in enumerate(steps):
        if step.excluded:
            continue
        following = steps[index + 1] if index + 1 < len(steps) else None
        if following is not None and following.context and not following.excluded:
            for node in following.context:
                _extend(runs, node)
        _extend(runs, step.node)
    return [Piece(role, texts[0] if len(texts) == 1 else "\n\n".join(texts)) for role, texts in runs]


def _extend(runs: list[tuple[str, list[str]]], node: Json) -> None:
    role = _ROLES[node["authorType"]]  # checked by the request validation
    if runs and runs[-1][0] == role:
        runs[-1][1].append(content_text(node.get("content")))
    else:
        runs.append((role, [content_text(node.get("content"))]))
