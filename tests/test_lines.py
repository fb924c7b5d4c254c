"""Lines from a child's output, read on the caller's thread: whole lines, oversized ones dropped, end and deadline."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator

import pytest

from ctxconform.conformance.transports._lines import OVERSIZED, TIMED_OUT, LineReader


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    """A pipe: (read end, write end); both closed afterwards."""
    read, write = os.pipe()
    yield read, write
    for fd in (read, write):
        with contextlib.suppress(OSError):
            os.close(fd)


def test_lines_come_back_whole_however_the_bytes_arrive(pipe: tuple[int, int]) -> None:
    """Two lines written in three pieces come back as two lines, newlines kept."""
    read, write = pipe
    reader = LineReader(read, 100)
    for piece in (b'{"a":', b'1}\n{"b"', b":2}\n"):
        os.write(write, piece)
    assert [reader.read_line(1), reader.read_line(1)] == [b'{"a":1}\n', b'{"b":2}\n']


def test_a_line_over_the_limit_is_oversized_and_the_next_line_is_intact(pipe: tuple[int, int]) -> None:
    """A line longer than the limit, even arriving in pieces, reads as OVERSIZED once; the next one as itself."""
    read, write = pipe
    reader = LineReader(read, 10)
    writer = threading.Thread(target=lambda: [os.write(write, b"x" * 7) for _ in range(5)] and os.write(write, b"\nok\n"))
    writer.start()
    first, second = reader.read_line(2), reader.read_line(2)
    writer.join()
    assert (first, second) == (OVERSIZED, b"ok\n")


def test_the_end_of_the_stream_gives_the_unterminated_rest_then_empty(pipe: tuple[int, int]) -> None:
    """After the writer closes, the last line without a newline comes back, then b"" for ever."""
    read, write = pipe
    reader = LineReader(read, 100)
    os.write(write, b"last")
    os.close(write)
    assert [reader.read_line(1), reader.read_line(1), reader.read_line(1)] == [b"last", b"", b""]


def test_no_line_before_the_deadline_is_timed_out(pipe: tuple[int, int]) -> None:
    """Nothing written: TIMED_OUT after about the timeout, and a line written later is still read whole."""
    read, write = pipe
    reader = LineReader(read, 100)
    started = time.monotonic()
    assert reader.read_line(0.2) is TIMED_OUT
    assert 0.15 < time.monotonic() - started < 2
    os.write(write, b"late\n")
    assert reader.read_line(1) == b"late\n"
