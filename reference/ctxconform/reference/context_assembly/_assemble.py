"""Assembly: a path through a Loom tree into a completion request, in dialogue or buffer mode."""

from __future__ import annotations

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
from ctxconform.reference.exceptions import SpecError

__all__ = ["assemble"]

Json = dict[str, Any]
_ROLES = {"human": "user", "model": "assistant"}


def assemble(request: Json) -> Json:
    """Assemble the request's path; raise SpecError for a malformed tree or a context that cannot fit."""
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
    pieces: list[Piece] = []
    for index, step in enumerate(steps):
        if step.excluded:
            continue
        following = steps[index + 1] if index + 1 < len(steps) else None
        if following is not None and not following.excluded:  # context sources go before the primary
            pieces += [_piece(node) for node in following.context]
        pieces.append(_piece(step.node))
    return _merge(pieces)


def _segments(steps: list[Step], working_buffer: str) -> list[Piece]:
    pieces = [Piece("text", content_text(step.node.get("content"))) for step in steps if not step.excluded]
    return [*pieces, Piece("text", working_buffer)] if working_buffer else pieces


def _piece(node: Json) -> Piece:
    role = _ROLES.get(node.get("authorType", ""))
    if role is None:
        raise SpecError(
            "invalidTree", f"node {node.get('id')!r} has authorType {node.get('authorType')!r}; expected human or model"
        )
    return Piece(role, content_text(node.get("content")))


def _merge(pieces: list[Piece]) -> list[Piece]:
    """Join consecutive same-role pieces with a blank line (texts gathered first: linear, not quadratic)."""
    groups: list[tuple[str, list[str]]] = []
    for piece in pieces:
        if groups and groups[-1][0] == piece.role:
            groups[-1][1].append(piece.text)
        else:
            groups.append((piece.role, [piece.text]))
    return [Piece(role, "\n\n".join(texts)) for role, texts in groups]
