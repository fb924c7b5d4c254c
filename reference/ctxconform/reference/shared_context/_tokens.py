"""Token estimation and the size limits of shared context (spec sections 4 and 8.2)."""

from __future__ import annotations

from typing import Final

__all__ = ["MAX_KEY_LENGTH", "MAX_STORE_TOKENS", "MAX_VALUE_TOKENS", "WARN_VALUE_TOKENS", "estimate_tokens"]

MAX_VALUE_TOKENS: Final = 1000
WARN_VALUE_TOKENS: Final = 800
MAX_STORE_TOKENS: Final = 10_000
MAX_KEY_LENGTH: Final = 64


def estimate_tokens(value: str) -> int:
    """Return the approximate token count of a value: its length divided by four, at least one."""
    return max(1, len(value) // 4)
