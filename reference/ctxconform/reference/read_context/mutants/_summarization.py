"""Mutants of the section "Long-notes summarization": the threshold, the head, the elision marker and the tail."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from ctxconform.reference.read_context import (
    NOTES_HEAD_LINES,
    NOTES_TAIL_LINES,
    NOTES_TRUNCATION_THRESHOLD,
    LineCounter,
    ReadContext,
    split_lines,
)
from ctxconform.reference.read_context.mutants._base import CATALOGUE, Json, NotesSummarizedAgain, notes_lines

__all__ = [
    "BlankNotesReadAsMissing",
    "ElidedCountGrowsOnEveryCall",
    "MarkerCountsAllButTheHead",
    "NotesHeadOf9Lines",
    "NotesRawOnlyBelowTheThreshold",
    "NotesTailOf29Lines",
    "NotesTruncateAt50",
    "ShortNotesRejoinedFromLines",
    "TruncatedWhenTheSummaryIsShorter",
]


@CATALOGUE.mutant(
    "read-context/summarization/threshold",
    "read-context/implementation-notes/notes-constants",
    name="notes_truncate_at_50",
)
class NotesTruncateAt50(ReadContext):
    """The reference, except that notes of 41 to 50 lines come back whole."""

    def read_context(self, image_id: object) -> Json:
        context = super().read_context(image_id)
        try:
            text = (self.workspace_root / str(image_id) / "notes.md").read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return context
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if 40 < len(lines) <= 50:  # noqa: PLR2004 - the mutation: 50 lines instead of 40 before truncating
            context["notes"] = {"summary": text, "truncated": False}
        return context


@CATALOGUE.mutant(
    "read-context/summarization/short-notes-raw",
    "read-context/response-shape/structured-top-prose-body",
)
class ShortNotesRejoinedFromLines(ReadContext):
    r"""The reference, except that short notes are rejoined from their lines, losing the final break and any \r."""

    def notes(self, workspace: Path) -> Json:
        notes = super().notes(workspace)
        if not notes["truncated"]:  # the mutation: short notes are rebuilt from their lines like long ones
            notes["summary"] = "\n".join(split_lines(notes["summary"]))
        return notes


@CATALOGUE.mutant(
    "read-context/summarization/head-first-10",
    "read-context/implementation-notes/notes-constants",
    name="notes_head_of_9_lines",
)
class NotesHeadOf9Lines(NotesSummarizedAgain):
    """The reference, except that the summary of long notes starts with their first 9 lines."""

    head = NOTES_HEAD_LINES - 1


@CATALOGUE.mutant("read-context/summarization/elision-marker")
class MarkerCountsAllButTheHead(NotesSummarizedAgain):
    """The reference, except that N in the elision marker is the line count minus 10 instead of minus 40."""

    def elided(self, lines: int) -> int:
        """N counts every line after the head."""
        return lines - NOTES_HEAD_LINES


@CATALOGUE.mutant(
    "read-context/summarization/tail-last-30",
    "read-context/implementation-notes/notes-constants",
    name="notes_tail_of_29_lines",
)
class NotesTailOf29Lines(NotesSummarizedAgain):
    """The reference, except that the summary of long notes ends with their last 29 lines."""

    tail = NOTES_TAIL_LINES - 1


@CATALOGUE.mutant("read-context/summarization/truncated-true")
class TruncatedWhenTheSummaryIsShorter(ReadContext):
    """The reference, except that long notes are flagged truncated only when their summary is shorter than the file."""

    def notes(self, workspace: Path) -> Json:
        notes = super().notes(workspace)
        read = notes_lines(self.workspace_file(workspace, "notes.md")) if notes["truncated"] else None
        if read is not None:  # the mutation: "truncated" judged by the summary being shorter than the file
            notes["truncated"] = len(notes["summary"]) < len(read[0])
        return notes


class _RecountingCounter(LineCounter):
    """A counter that adds a file's lines to what it counted for that file before."""

    def __init__(self) -> None:
        super().__init__()
        self._totals: dict[tuple[int, int], int] = {}

    def count(self, handle: BinaryIO, info: os.stat_result) -> int:
        """Return the lines counted so far for this file, this count included."""
        key = (info.st_dev, info.st_ino)
        self._totals[key] = self._totals.get(key, 0) + super().count(handle, info)
        return self._totals[key]


@CATALOGUE.mutant(
    "read-context/summarization/deterministic",
    "read-context/summarization/elision-marker",
)
@dataclass
class ElidedCountGrowsOnEveryCall(ReadContext):
    """The reference, except that the line counter adds a file's lines to its earlier count, so N grows on every call."""

    counter: LineCounter = field(default_factory=_RecountingCounter)


@CATALOGUE.mutant("read-context/summarization/threshold", "read-context/summarization/short-notes-raw", edge="boundaries")
class NotesRawOnlyBelowTheThreshold(ReadContext):
    """The reference, except that notes come back raw only below 40 lines (< for <=), so 40 lines are cut with N = 0."""

    def notes(self, workspace: Path) -> Json:
        notes = super().notes(workspace)
        read = notes_lines(self.workspace_file(workspace, "notes.md"))
        if read is not None and len(read[1]) == NOTES_TRUNCATION_THRESHOLD:
            lines = read[1]
            head, tail = "\n".join(lines[:NOTES_HEAD_LINES]), "\n".join(lines[NOTES_HEAD_LINES:])
            notes = {"summary": f"{head}\n\n... [0 lines elided] ...\n\n{tail}", "truncated": True}
        return notes


@CATALOGUE.mutant("read-context/summarization/short-notes-raw", edge="degenerate")
class BlankNotesReadAsMissing(ReadContext):
    """The reference, except that notes holding only white space are taken for missing notes: summary ''."""

    def notes(self, workspace: Path) -> Json:
        notes = super().notes(workspace)
        if not notes["truncated"] and not notes["summary"].strip():
            notes["summary"] = ""
        return notes
