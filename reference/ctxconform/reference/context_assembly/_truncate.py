"""The truncation strategies that drop messages, linear in the number of messages (token counts are summed once)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ctxconform.reference.context_assembly._tokens import MARKER

__all__ = ["Fitted", "Piece", "rolling_window", "truncate_middle"]


# A named tuple, not a dataclass, for the same reason as Step: one is built per message of a path of any length.
class Piece(NamedTuple):
    """One message (or buffer segment): its role and text."""

    role: str
    text: str


@dataclass(frozen=True)
class Fitted:
    """The pieces kept, with the marker where something was removed, and how many were dropped."""

    pieces: list[Piece]
    dropped: int


def rolling_window(pieces: list[Piece], costs: list[int], budget: int) -> Fitted:
    """Apply rollingWindow: keep the most recent pieces that fit in `budget` tokens, and always the last one."""
    start, used = len(pieces) - 1, costs[-1]
    while start > 0 and used + costs[start - 1] <= budget:
        start -= 1
        used += costs[start]
    return Fitted(pieces[start:], start)


def truncate_middle(pieces: list[Piece], costs: list[int], budget: int, minimum_recent: int, marker_tokens: int) -> Fitted:
    """Apply truncateMiddle: keep the most recent pieces, then the beginning, and the marker (`marker_tokens`) between."""
    tail_start = max(1, len(pieces) - max(1, minimum_recent)) if len(pieces) > 1 else 0
    used = sum(costs[tail_start:]) + marker_tokens
    while tail_start > 1 and used + costs[tail_start - 1] <= budget:  # grow the kept end first
        tail_start -= 1
        used += costs[tail_start]
    head_end = 0
    while head_end < tail_start and used + costs[head_end] <= budget:
        used += costs[head_end]
        head_end += 1
    dropped = tail_start - head_end
    if dropped == 0:
        return Fitted(pieces, 0)
    return Fitted([*pieces[:head_end], Piece("user", MARKER), *pieces[tail_start:]], dropped)
