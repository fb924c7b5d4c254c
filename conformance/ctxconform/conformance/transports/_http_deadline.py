"""A call's deadline on an HTTP connection: every socket operation of the call gives up when it passes."""

from __future__ import annotations

import http.client
import time

__all__ = ["wait_at_most"]


def wait_at_most(connection: http.client.HTTPConnection, deadline: float) -> None:
    """Make the connection's next socket operations give up at `deadline` (a `time.monotonic()` moment)."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the deadline has passed")
    connection.timeout = left
    if connection.sock is not None:
        connection.sock.settimeout(left)
