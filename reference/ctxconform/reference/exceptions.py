"""Exceptions raised by the reference implementations."""

from __future__ import annotations

__all__ = ["SpecError", "StoreError"]


class SpecError(Exception):
    """A spec-defined error: the implementation refuses a request with a code and a message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class StoreError(Exception):
    """The durable store could not be opened or used; the message says what to check."""

    def __init__(self, url: str, message: str) -> None:
        super().__init__(f"store {url!r}: {message}")
        self.url = url
        self.message = message
