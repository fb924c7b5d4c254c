"""Token estimation (about four characters per token) and the defaults of the user preferences."""

from __future__ import annotations

from typing import Final

__all__ = ["DEFAULT_MINIMUM_RECENT", "DEFAULT_MODEL_LIMIT", "DEFAULT_STRATEGY", "DEFAULT_TOKEN_BUFFER", "MARKER", "estimate"]

DEFAULT_STRATEGY: Final = "truncateMiddle"
DEFAULT_MINIMUM_RECENT: Final = 4
DEFAULT_TOKEN_BUFFER: Final = 1024
DEFAULT_MODEL_LIMIT: Final = 128_000
MARKER: Final = "[... earlier messages truncated ...]"


def estimate(text: str) -> int:
    """Return the conservative estimate: ceil(characters / 4)."""
    return -(-len(text) // 4)
