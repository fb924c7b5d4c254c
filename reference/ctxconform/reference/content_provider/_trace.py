"""CompletionTraces (spec section 7): one per LLM invocation, with token totals, summary data and steps."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["CompletionTrace", "TokenTotals"]

Json = dict[str, Any]


@dataclass(frozen=True)
class TokenTotals:
    """Invocation-level token totals (7.3), with the counts the origin keeps."""

    prompt: int
    completion: int
    total: int
    reasoning: int | None = None
    cached: int | None = None

    def to_json(self) -> Json:
        """The totals as JSON; counts that were not given are left out."""
        counts = {"prompt": self.prompt, "completion": self.completion, "total": self.total}
        optional = {"reasoning": self.reasoning, "cached": self.cached}
        return counts | {name: value for name, value in optional.items() if value is not None}


@dataclass
class CompletionTrace:
    """The trace of exactly one invocation (7.2): open while steps are added, ended with its totals and summary."""

    invocation: int
    steps: list[Json] = field(default_factory=list)
    tokens: TokenTotals | None = None
    summary: Json | None = None

    @property
    def ended(self) -> bool:
        """Whether end_trace has populated the trace."""
        return self.tokens is not None

    def to_json(self) -> Json:
        """The trace as JSON: an open trace has no tokens or summary yet."""
        out: Json = {"invocation": self.invocation, "ended": self.ended, "steps": list(self.steps)}
        if self.tokens is not None:
            out |= {"tokens": self.tokens.to_json(), "summary": self.summary}
        return out
