"""Mutants of the section "Implementation notes": the tool's argument, the notes constants and the global tastes folder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import cast

from ctxconform.reference.read_context import NOTES_HEAD_LINES, NOTES_TAIL_LINES, ReadContext, read_text
from ctxconform.reference.read_context.mutants._base import CATALOGUE, Json, NotesSummarizedAgain

__all__ = ["ImageIdReadWithStr", "NonStringImageIdCrashes", "NotesHeadAndTailSwapped", "WorkspaceDefaultTasteOverrides"]


@CATALOGUE.mutant("read-context/implementation-notes/tool-name")
@dataclass
class NonStringImageIdCrashes(ReadContext):
    """The reference, except that image_id is joined to a path before its type is checked, so a non-string id crashes."""

    last_workspace: Path | None = None

    def read_context(self, image_id: object) -> Json:
        # The mutation: the id becomes a path before its type is checked (the cast only quiets the type checker).
        self.last_workspace = self.workspace_root / cast("str", image_id)
        return super().read_context(image_id)


@CATALOGUE.mutant(
    "read-context/implementation-notes/notes-constants",
    "read-context/summarization/head-first-10",
    "read-context/summarization/tail-last-30",
)
class NotesHeadAndTailSwapped(NotesSummarizedAgain):
    """The reference, except that the head and tail constants are swapped: 30 lines, the marker, then 10."""

    head = NOTES_TAIL_LINES
    tail = NOTES_HEAD_LINES


@CATALOGUE.mutant("read-context/implementation-notes/global-tastes-folder")
class WorkspaceDefaultTasteOverrides(ReadContext):
    """The reference, except that a _default.md in the image's workspace replaces the global one."""

    def read_context(self, image_id: object) -> Json:
        context = super().read_context(image_id)
        local = read_text(self.workspace_file(self.workspace_root / str(image_id), "_default.md"))
        if local:  # the mutation: a _default.md in the workspace overrides the global one
            context["tastes"]["default"] = local
        return context


@CATALOGUE.mutant("read-context/implementation-notes/tool-name", edge="wrong-types")
class ImageIdReadWithStr(ReadContext):
    """The reference, except that image_id is read with str(), so null or 42 reads a workspace named "None" or "42"."""

    def read_context(self, image_id: object) -> Json:
        return super().read_context(str(image_id))
