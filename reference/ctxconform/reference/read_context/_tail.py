"""Reading a file's last lines by seeking back from its end, so the cost does not grow with the file."""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO, Final

__all__ = ["BLOCK", "MAX_SCAN", "lines_from_end"]

BLOCK: Final = 64 * 1024
# How far back a reader looks for the entries it wants; a longer line than this is never read whole.
MAX_SCAN: Final = 16 * 1024 * 1024


def lines_from_end(handle: BinaryIO, size: int, *, max_scan: int | None = MAX_SCAN) -> Iterator[bytes]:
    """Yield the file's complete lines, last first, reading at most `max_scan` bytes back (None: no bound)."""
    # The line being assembled is kept as its blocks, last first, and joined once complete: adding each block to the
    # bytes read so far would copy a long line once per block.
    position, partial = size, list[bytes]()
    while position > 0 and (max_scan is None or size - position < max_scan):
        step = min(BLOCK, position)
        position -= step
        handle.seek(position)
        pieces = handle.read(step).split(b"\n")
        if len(pieces) == 1:
            partial.append(pieces[0])
            continue
        yield (pieces[-1] + b"".join(reversed(partial))).removesuffix(b"\r")
        yield from (piece.removesuffix(b"\r") for piece in reversed(pieces[1:-1]))
        partial = [pieces[0]]
    if position == 0:
        yield b"".join(reversed(partial)).removesuffix(b"\r")
