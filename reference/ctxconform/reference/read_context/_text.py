"""Reading workspace files as UTF-8 text, tolerantly: a missing, unreadable or undecodable file reads as empty."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final

__all__ = ["MAX_TEXT_BYTES", "read_text", "split_lines"]

# Markdown files larger than this read as empty: tastes and briefs are hand-written, never this large,
# and a bound keeps one bad file from exhausting memory.
MAX_TEXT_BYTES: Final = 256 * 1024 * 1024


def read_text(path: Path, *, limit: int = MAX_TEXT_BYTES) -> str:
    """Return a small file's text, or "" when it is missing, not a regular file, too large, unreadable or not UTF-8."""
    try:
        with path.open("rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return ""
            data = handle.read(limit + 1)
    except (OSError, ValueError):  # ValueError: a name no file system can hold (a lone surrogate)
        return ""
    if len(data) > limit:
        return ""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return ""


def split_lines(text: str) -> list[str]:
    r"""Split on line breaks (\n, or \r\n read as one), without a phantom empty line after a final break."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    return lines
