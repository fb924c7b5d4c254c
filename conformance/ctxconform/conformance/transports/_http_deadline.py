"""HTTP answers bounded: in time by the call's deadline (every socket operation, the answer as a whole), and in size."""

from __future__ import annotations

import http.client
import io
import math
import socket
import time
from collections.abc import Iterator
from typing import Any, Final

from ctxconform.conformance.exceptions import ProtocolViolation

__all__ = ["MAX_BODY_BYTES", "DeadlineConnection", "bounded", "chunks"]

MAX_BODY_BYTES: Final = 64 * 1024 * 1024
"""The most one answer (or one event of a stream) may take, as one stdio line."""
_CHUNK: Final = 1 << 16


class DeadlineConnection(http.client.HTTPConnection):
    """An HTTP connection whose calls end by a deadline: sending, and reading the status line, headers and body.

    A socket timeout alone bounds each read, not the answer: a server sending a header line every tenth of a second
    would hold the caller for as long as it liked. Here every read waits only for what is left of the deadline.
    """

    deadline: float = math.inf

    def by(self, deadline: float) -> None:
        """Make the call now starting end by `deadline` (a `time.monotonic()` moment); TimeoutError if it has passed."""
        self.deadline = deadline
        left = _left(deadline)
        self.timeout = left
        if self.sock is not None:
            self.sock.settimeout(left)

    # http.client builds each response as `self.response_class(sock, method=...)`: a method answers that call as well.
    def response_class(self, sock: socket.socket, *args: Any, **kwargs: Any) -> http.client.HTTPResponse:  # type: ignore[override]
        """The answer to the request just sent, its every read waiting no later than the connection's deadline."""
        return http.client.HTTPResponse(_Reads(sock, self), *args, **kwargs)  # type: ignore[arg-type]


class _Reads:
    """What an HTTPResponse takes for its socket: it asks only for a file to read, given here with the deadline."""

    def __init__(self, sock: socket.socket, connection: DeadlineConnection) -> None:
        self._sock, self._connection = sock, connection

    def makefile(self, mode: str) -> io.BufferedReader:  # noqa: ARG002 - always "rb" from http.client
        """The socket's bytes, buffered, each read bounded by the deadline."""
        # On the socket's own file: closing the connection then leaves the socket open until the answer is read.
        return io.BufferedReader(_DeadlineReader(self._sock, self._sock.makefile("rb", buffering=0), self._connection))


class _DeadlineReader(io.RawIOBase):
    """A socket's reads, each waiting at most until the connection's deadline (read at each read: a later call moves it)."""

    def __init__(self, sock: socket.socket, raw: io.RawIOBase, connection: DeadlineConnection) -> None:
        super().__init__()
        self._sock, self._raw, self._connection = sock, raw, connection

    def readable(self) -> bool:
        """Always readable."""
        return True

    def readinto(self, buffer: Any) -> int | None:
        """Read what has arrived, waiting no later than the deadline; TimeoutError past it."""
        deadline = self._connection.deadline
        self._sock.settimeout(None if deadline == math.inf else _left(deadline))
        return self._raw.readinto(buffer)

    def close(self) -> None:
        """Let go of the socket's file, so that closing the connection closes the socket."""
        self._raw.close()
        super().close()


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the deadline has passed")
    return left


def chunks(response: http.client.HTTPResponse) -> Iterator[bytes]:
    """A response's body as it arrives (by its connection's deadline); the response is closed once the body is read."""
    while chunk := response.read1(_CHUNK):
        yield chunk
    response.close()  # read1 does not, at the end of a Content-Length body: the next request would find it busy


def bounded(pieces: Iterator[bytes]) -> Iterator[bytes]:
    """The pieces, until together they pass MAX_BODY_BYTES: ProtocolViolation then, before the next is held."""
    size = 0
    for piece in pieces:
        size += len(piece)
        if size > MAX_BODY_BYTES:
            raise ProtocolViolation(f"an answer longer than {MAX_BODY_BYTES >> 20} MiB, the most one message may take")
        yield piece
