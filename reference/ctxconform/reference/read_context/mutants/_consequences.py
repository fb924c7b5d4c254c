"""Mutants of the section "Consequences": one tool call, a fixed schema, human-edited markdown and a bounded size."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from ctxconform.reference.read_context import ReadContext
from ctxconform.reference.read_context.mutants._base import CATALOGUE, Json, notes_lines

__all__ = [
    "ConflictsIgnoreLetterCase",
    "FirstCallWithoutHistory",
    "MissingNotesAreNull",
    "NotesOver1MibComeBackWhole",
    "ReadsAreLogged",
]


@CATALOGUE.mutant("read-context/consequences/line-equality-based")
class ConflictsIgnoreLetterCase(ReadContext):
    """The reference, except that lines differing only in letter case conflict."""

    def conflict_points(self, text: str) -> list[str]:
        return [point.casefold() for point in super().conflict_points(text)]

    def tastes(self, declared: list[str]) -> Json:
        tastes = super().tastes(declared)
        # Each conflict is named by the first spelling of its point, as the genre files hold it.
        first: dict[str, str] = {}
        for text in tastes["genres"].values():
            for point in super().conflict_points(text):
                first.setdefault(point.casefold(), point)
        tastes["conflicts"] = [{**entry, "point": first[entry["point"]]} for entry in tastes["conflicts"]]
        return tastes


@CATALOGUE.mutant(
    "read-context/consequences/one-tool-call",
    "read-context/loading-order/recent-log-last-10",
    "read-context/loading-order/recent-gaps-last-10",
)
@dataclass
class FirstCallWithoutHistory(ReadContext):
    """The reference, except that the first call for an image returns recent_log and recent_gaps empty."""

    seen: set[str] = field(default_factory=set)

    def read_context(self, image_id: object) -> Json:
        context = super().read_context(image_id)
        if str(image_id) not in self.seen:  # the mutation: the first call only starts loading the history
            self.seen.add(str(image_id))
            context["recent_log"], context["recent_gaps"] = [], []
        return context


@CATALOGUE.mutant(
    "read-context/consequences/fixed-schema",
    "read-context/response-shape/notes-object",
)
class MissingNotesAreNull(ReadContext):
    """The reference, except that notes is null instead of the empty struct when notes.md is missing."""

    # The mutation is a type the reference rules out: notes may be None.
    def notes(self, workspace: Path) -> Json | None:  # type: ignore[override]
        return super().notes(workspace) if self.workspace_file(workspace, "notes.md").exists() else None


@CATALOGUE.mutant("read-context/consequences/markdown-stays-human-edited")
class ReadsAreLogged(ReadContext):
    """The reference, except that every call appends a read_context entry to the image's log.jsonl."""

    def read_context(self, image_id: object) -> Json:
        context = super().read_context(image_id)
        line = {"timestamp": datetime.now(UTC).isoformat(), "op": "read_context"}
        with self.workspace_file(self.workspace_root / str(image_id), "log.jsonl").open("a", encoding="utf-8") as log:
            log.write(json.dumps(line) + "\n")
        return context


_MEBIBYTE: Final = 1024 * 1024


@CATALOGUE.mutant(
    "read-context/consequences/size-bounded",
    "read-context/summarization/threshold",
    name="notes_over_1_mib_come_back_whole",
)
class NotesOver1MibComeBackWhole(ReadContext):
    """The reference, except that notes files over 1 MiB come back whole instead of summarized."""

    def notes(self, workspace: Path) -> Json:
        notes = super().notes(workspace)
        path = self.workspace_file(workspace, "notes.md")
        read = notes_lines(path) if notes["truncated"] and path.stat().st_size > _MEBIBYTE else None
        if read is not None:  # the mutation: notes over 1 MiB skip the summary
            notes = {"summary": read[0], "truncated": False}
        return notes
