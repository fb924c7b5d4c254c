"""Notes: the raw text when short, else the first 10 lines, an elision marker and the last 30 lines.

The marker needs the total line count, which only a full read can give. A LineCounter remembers each file's
count, and when the file has only grown (its old end unchanged) it counts the appended bytes alone, so a
notes file that grows by appending costs head + tail + new bytes, not its whole size. "Only grown" is judged
by the size and a hash of the 4 KiB before the old end: an edit that keeps both is not noticed until the file
is reopened under another inode (editors that save by rename do exactly that).
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, BinaryIO, Final

from ctxconform.reference.read_context._files import open_regular
from ctxconform.reference.read_context._tail import lines_from_end
from ctxconform.reference.read_context._text import MAX_TEXT_BYTES

__all__ = [
    "MAX_NOTES_SUMMARY_BYTES",
    "NOTES_HEAD_LINES",
    "NOTES_TAIL_LINES",
    "NOTES_TRUNCATION_THRESHOLD",
    "LineCounter",
    "summarize_notes",
]

NOTES_HEAD_LINES: Final = 10
NOTES_TAIL_LINES: Final = 30
NOTES_TRUNCATION_THRESHOLD: Final = NOTES_HEAD_LINES + NOTES_TAIL_LINES
# The head, and the tail, each read at most this much: the summary holds its lines whole (the suite writes 30 lines
# of a megabyte), and a notes file whose summary would be larger reads as unreadable, so memory stays bounded.
MAX_NOTES_SUMMARY_BYTES: Final = 4 * MAX_TEXT_BYTES
_CHUNK: Final = 1024 * 1024
_PROBE: Final = 4096
_EMPTY: Final = {"summary": "", "truncated": False}


@dataclass(frozen=True)
class _Count:
    size: int
    lines: int
    ends_with_newline: bool
    probe: bytes


class LineCounter:
    """Counts a file's lines, remembering counts by file identity and extending them over appended bytes."""

    def __init__(self) -> None:
        self._counts: dict[tuple[int, int], _Count] = {}
        self._lock = threading.Lock()

    def count(self, handle: BinaryIO, info: os.stat_result) -> int:
        """Return the number of lines (a last line without a final newline counts)."""
        key = (info.st_dev, info.st_ino)
        with self._lock:
            known = self._counts.get(key)
        if known is None or known.size > info.st_size or _probe(handle, known.size) != known.probe:
            known = _Count(0, 0, True, _probe(handle, 0))
        counted = _extend(handle, known, info.st_size)
        with self._lock:
            self._counts[key] = counted
        return counted.lines


def summarize_notes(path: Path, counter: LineCounter) -> dict[str, Any]:
    """Return {summary, truncated} for a notes file; the empty struct when it is missing or unreadable."""
    handle = open_regular(path)
    if handle is None:
        return dict(_EMPTY)
    try:
        with handle:
            return _summary(handle, os.fstat(handle.fileno()), counter)
    except (OSError, UnicodeDecodeError):
        return dict(_EMPTY)


def _summary(handle: BinaryIO, info: os.stat_result, counter: LineCounter) -> dict[str, Any]:
    head = _head(handle, NOTES_TRUNCATION_THRESHOLD + 1)
    if head is None:
        return dict(_EMPTY)
    if len(head) <= NOTES_TRUNCATION_THRESHOLD:
        handle.seek(0)
        return {"summary": handle.read().decode("utf-8"), "truncated": False}
    total = counter.count(handle, info)
    end = _content_end(handle, info.st_size)
    tail = list(islice(lines_from_end(handle, end, max_scan=MAX_NOTES_SUMMARY_BYTES), NOTES_TAIL_LINES))
    if len(tail) < NOTES_TAIL_LINES:  # the last 30 lines are longer than the bound
        return dict(_EMPTY)
    marker = f"\n\n... [{total - NOTES_TRUNCATION_THRESHOLD} lines elided] ...\n\n"
    first = "\n".join(line.decode("utf-8") for line in head[:NOTES_HEAD_LINES])
    last = "\n".join(line.decode("utf-8") for line in reversed(tail))
    return {"summary": first + marker + last, "truncated": True}


def _head(handle: BinaryIO, wanted: int) -> list[bytes] | None:
    """The first `wanted` lines (fewer when the file has fewer); None when they exceed MAX_NOTES_SUMMARY_BYTES."""
    handle.seek(0)
    lines: list[bytes] = []
    left = MAX_NOTES_SUMMARY_BYTES
    while len(lines) < wanted:
        line = handle.readline(left + 1)
        left -= len(line)
        if left < 0:
            return None
        if not line:
            break
        lines.append(line.removesuffix(b"\n").removesuffix(b"\r"))
    return lines


def _content_end(handle: BinaryIO, size: int) -> int:
    """The offset after the last line's text: a final newline does not start another line."""
    if size == 0:
        return 0
    handle.seek(size - 1)
    return size - 1 if handle.read(1) == b"\n" else size


def _probe(handle: BinaryIO, end: int) -> bytes:
    start = max(0, end - _PROBE)
    handle.seek(start)
    return hashlib.blake2b(handle.read(end - start), digest_size=16).digest()


def _extend(handle: BinaryIO, known: _Count, size: int) -> _Count:
    handle.seek(known.size)
    ends_with_newline, position = known.ends_with_newline, known.size
    # The count so far treats an unterminated last line as a line; appended text may continue it.
    newlines = known.lines - (0 if known.ends_with_newline else 1)
    while position < size:
        chunk = handle.read(min(_CHUNK, size - position))
        if not chunk:
            break
        newlines += chunk.count(b"\n")
        position += len(chunk)
        ends_with_newline = chunk.endswith(b"\n")
    lines = newlines + (0 if ends_with_newline or position == 0 else 1)
    return _Count(position, lines, ends_with_newline, _probe(handle, position))
