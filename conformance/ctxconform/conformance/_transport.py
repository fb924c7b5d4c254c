"""What every transport provides: send one protocol message, get one decoded message back."""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["Transport"]


class Transport(Protocol):
    """A channel to one running implementation."""

    def open(self) -> None:
        """Make the implementation ready (start a process, build an object); raise ImplementationUnavailable."""

    def exchange(self, message: dict[str, Any], timeout: float) -> object:
        """Send a message and return the decoded answer; raise a TransportFailure when that fails."""

    def close(self, timeout: float) -> None:
        """Stop the implementation and release everything; never raises, never leaves a process behind."""
