"""Reading workspace files as UTF-8 text, tolerantly: a missing, unreadable or undecodable file reads as empty."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from ctxconform.reference.read_context._files import open_regular

__all__ = ["MAX_TEXT_BYTES", "read_text", "split_lines"]

# Markdown files larger than this read as empty: tastes and briefs are hand-written, never this large. The bound is
# on memory, not only on the file: a brief is in the reply twice (raw, intent) and JSON can take 6 bytes for one
# (a NUL is \u0000), so 16 MiB read keeps an encoded reply near 200 MB (256 MiB read took a 5 GiB peak).
MAX_TEXT_BYTES: Final = 16 * 1024 * 1024


def read_text(path: Path, *, limit: int = MAX_TEXT_BYTES) -> str:
    """Return a small file's text, or "" when it is missing, not a regular file, too large, unreadable or not UTF-8."""
    handle = open_regular(path)
    if handle is None:
        return ""
    try:
        with handle:
            data = handle.read(limit + 1)
    except OSError:
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
