"""The records shared context keeps: sessions, entry metadata and entries (spec section 2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Entry", "Metadata", "Session", "SessionState"]

SessionState = Literal["active", "archived"]
"""A session's lifecycle state: active, or archived and read-only (8.4)."""


@dataclass(frozen=True)
class Session:
    """A session's lifecycle state and the running total of its values' tokens."""

    session_id: str
    state: SessionState
    total_tokens: int


@dataclass(frozen=True)
class Metadata:
    """What list_keys shows of an entry: everything but the value."""

    key: str
    written_by: str
    written_at: str
    version: int
    tokens: int


@dataclass(frozen=True)
class Entry(Metadata):
    """A key-value pair with its metadata."""

    value: str
