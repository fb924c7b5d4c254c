"""Assembly: a path through a Loom tree into a completion request, in dialogue or buffer mode."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ctxconform.reference.context_assembly._tokens import (
    DEFAULT_MINIMUM_RECENT,
    DEFAULT_MODEL_LIMIT,
    DEFAULT_STRATEGY,
    DEFAULT_TOKEN_BUFFER,
    estimate,
)
from ctxconform.reference.context_assembly._tree import Step, content_text, walk
from ctxconform.reference.context_assembly._truncate import Piece, fit
from ctxconform.reference.context_assembly._validate import check_request
from ctxconform.reference.exceptions import SpecError

__all__ = ["assemble"]

Json = dict[str, Any]
_ROLES = {"human": "user", "model": "assistant"}


def assemble(request: Any) -> Json:
    """Assemble the request's path; raise SpecError for a malformed request or tree, or a context that cannot fit."""
    with _collector_paused():
        check_request(request)
        return _assemble(request)


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


def _assemble(request: Json) -> Json:
    tree = request["tree"]
    # Preferences are app-level (the request's settings) unless the tree overrides them, one setting at a time.
    settings = {**(request.get("settings") or {}), **(tree.get("settings") or {})}
    steps = walk(tree, request["path"])
    buffer_mode = tree.get("mode", "dialogue") == "buffer"
    system = _system(request, steps) if not buffer_mode or tree.get("bufferModeSystemContext") else ""
    budget = request.get("modelContextLimit", DEFAULT_MODEL_LIMIT) - settings.get("tokenBuffer", DEFAULT_TOKEN_BUFFER)
    if estimate(system) > budget:
        raise SpecError("systemContextTooLong", f"system context alone needs {estimate(system)} tokens, {budget} are available")
    pieces = _segments(steps, request.get("workingBuffer", "")) if buffer_mode else _messages(steps)
    if not pieces:
        raise SpecError("emptyContext", "every node on the path is excluded, so no message is left; include a node or move")
    strategy = settings.get("truncationStrategy", DEFAULT_STRATEGY)
    fitted = fit(pieces, budget - estimate(system), strategy, settings.get("minimumRecentNodes", DEFAULT_MINIMUM_RECENT))
    result: Json = {"truncated": fitted.dropped > 0, "droppedMessageCount": fitted.dropped}
    if system:
        result["systemContext"] = system
    if buffer_mode:
        return {"document": "".join(piece.text for piece in fitted.pieces), **result}
    return {"messages": [{"role": p.role, "content": p.text} for p in fitted.pieces], **result}


def _system(request: Json, steps: list[Step]) -> str:
    agent = ((request.get("agent") or {}).get("configuration") or {}).get("systemPrompt") or ""
    parts = [agent, request["tree"].get("systemContext") or ""]
    parts += [content_text(node.get("content")) for step in steps if not step.excluded for node in step.instructions]
    return "\n\n".join(part.strip() for part in parts if part.strip())


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


def _segments(steps: list[Step], working_buffer: str) -> list[Piece]:
    pieces = [Piece("text", content_text(step.node.get("content"))) for step in steps if not step.excluded]
    return [*pieces, Piece("text", working_buffer)] if working_buffer else pieces
