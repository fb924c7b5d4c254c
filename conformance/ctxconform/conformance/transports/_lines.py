"""Reading a child's output one line at a time, on the caller's thread, with a deadline.

A reader thread handing lines over through a queue costs a thread wake-up per reply (tens of microseconds, more
than the pipe itself); waiting on the pipe with select in the calling thread does not.
"""

from __future__ import annotations

import os
import select
import time
from typing import Final

__all__ = ["OVERSIZED", "TIMED_OUT", "LineReader"]

OVERSIZED: Final = b"\x00oversized"  # never a real line: a real one ends in a newline
TIMED_OUT: Final = b"\x00timed out"
_CHUNK: Final = 1 << 16


class LineReader:
    """Lines from a file descriptor: each up to and including its newline, b"" at the end of the stream."""

    def __init__(self, fd: int, max_line_bytes: int) -> None:
        self._fd = fd
        self._max = max_line_bytes
        self._buffer = bytearray()
        self._scanned = 0  # the buffer's first bytes, known to hold no newline: each byte is searched once
        self._skipping = False  # inside a line that was already reported as oversized
        self._ended = False

    def read_line(self, timeout: float) -> bytes:
        """The next line, OVERSIZED for one longer than the limit (its bytes dropped), b"" at the end, or TIMED_OUT."""
        deadline = time.monotonic() + timeout
        while True:
            line = self._take_line()
            if line is not None:
                return line
            if self._ended:
                return b""
            if not self._wait(deadline):
                return TIMED_OUT
            self._fill()

    def _take_line(self) -> bytes | None:
        """A whole line from the buffer, or what the buffer says without one; None when more must be read."""
        while (end := self._buffer.find(b"\n", self._scanned)) >= 0:
            line = self._cut(end + 1)
            if self._skipping:  # the tail of a line already reported as oversized
                self._skipping = False
                continue
            return OVERSIZED if len(line) > self._max else line
        self._scanned = len(self._buffer)
        return self._partial()

    def _cut(self, size: int) -> bytes:
        """Take the buffer's first `size` bytes, copying them once."""
        self._scanned = 0
        if size == len(self._buffer):
            line = bytes(self._buffer)
            self._buffer.clear()
            return line
        line = bytes(memoryview(self._buffer)[:size])
        del self._buffer[:size]
        return line

    def _partial(self) -> bytes | None:
        """Without a newline in the buffer: OVERSIZED once it is too long, the last unterminated line at the end."""
        if self._skipping:
            self._cut(len(self._buffer))
            return None
        if len(self._buffer) > self._max:
            self._cut(len(self._buffer))
            self._skipping = True
            return OVERSIZED
        if self._ended and self._buffer:
            return self._cut(len(self._buffer))
        return None

    def _wait(self, deadline: float) -> bool:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        ready, _, _ = select.select([self._fd], [], [], left)
        return bool(ready)

    def _fill(self) -> None:
        chunk = os.read(self._fd, _CHUNK)
        if chunk:
            self._buffer += chunk
        else:
            self._ended = True
