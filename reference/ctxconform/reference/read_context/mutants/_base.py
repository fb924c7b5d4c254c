"""What the read-context mutants of several sections share: the catalogue, file reading and long notes summarized again."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any, ClassVar, Final

from ctxconform.reference.mutants import Catalogue
from ctxconform.reference.read_context import (
    NOTES_HEAD_LINES,
    NOTES_TAIL_LINES,
    NOTES_TRUNCATION_THRESHOLD,
    SPEC_ID,
    ReadContext,
    ReadContextFactory,
    split_lines,
)

__all__ = ["CATALOGUE", "Json", "NotesSummarizedAgain", "file_bytes", "notes_lines"]

Json = dict[str, Any]

CATALOGUE: Final = Catalogue(SPEC_ID, adopt=lambda service: ReadContextFactory(service=service))


def file_bytes(path: Path) -> bytes | None:
    """A regular file's bytes; None when missing, not a regular file or unreadable."""
    try:
        with path.open("rb") as handle:
            return handle.read() if stat.S_ISREG(os.fstat(handle.fileno()).st_mode) else None
    except OSError:
        return None


def notes_lines(path: Path) -> tuple[str, list[str]] | None:
    """The notes' text and lines as the reference counts them; None when the reference reads no text."""
    data = file_bytes(path)
    try:
        text = data.decode("utf-8") if data is not None else None
    except UnicodeDecodeError:
        return None
    return None if text is None else (text, split_lines(text))


class NotesSummarizedAgain(ReadContext):
    """The reference, except that long notes are summarized again from their lines, with the head, tail and N a subclass sets."""

    head: ClassVar[int] = NOTES_HEAD_LINES
    tail: ClassVar[int] = NOTES_TAIL_LINES

    def elided(self, lines: int) -> int:
        """N in the marker for notes of `lines` lines."""
        return lines - NOTES_TRUNCATION_THRESHOLD

    def notes(self, workspace: Path) -> Json:
        """The reference's notes, with the summary of long notes rebuilt from the head, the marker and the tail."""
        notes = super().notes(workspace)
        read = notes_lines(self.workspace_file(workspace, "notes.md")) if notes["truncated"] else None
        if read is not None:
            lines = read[1]
            marker = f"\n\n... [{self.elided(len(lines))} lines elided] ...\n\n"
            notes["summary"] = "\n".join(lines[: self.head]) + marker + "\n".join(lines[len(lines) - self.tail :])
        return notes
