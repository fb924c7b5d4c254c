"""Mutants of the section "Tolerance for missing files": missing or unreadable files read as empty, a fresh workspace works."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.read_context import RECENT, ReadContext, json_object
from ctxconform.reference.read_context.mutants._base import CATALOGUE, Json

__all__ = ["EmptyWorkspaceIsUnknown", "GenresNeedTheDefaultTaste", "LogReadWheneverItExists"]


@CATALOGUE.mutant("read-context/tolerance/missing-files-empty")
class GenresNeedTheDefaultTaste(ReadContext):
    """The reference, except that no genre loads when _default.md is missing."""

    def tastes(self, declared: list[str]) -> Json:
        tastes = super().tastes(declared)
        if self.tastes_dir is not None and not (self.tastes_dir / "_default.md").exists():
            tastes["genres"], tastes["conflicts"] = {}, []
        return tastes


@CATALOGUE.mutant("read-context/tolerance/unreadable-files-empty")
class LogReadWheneverItExists(ReadContext):
    """The reference, except that log.jsonl is read whenever it exists, so a directory in its place is an error."""

    def recent_log(self, workspace: Path) -> list[Json]:
        path = self.workspace_file(workspace, "log.jsonl")
        if not path.exists():  # the mutation: existence is checked, not readability
            return []
        records = [record for record in map(json_object, path.read_bytes().split(b"\n")) if record is not None]
        return [self.log_entry(record) for record in reversed(records[-RECENT:])]


_WORKSPACE_FILES: Final = ("brief.md", "notes.md", "log.jsonl", "vocabulary_gaps.jsonl")


@CATALOGUE.mutant("read-context/tolerance/fresh-workspace")
class EmptyWorkspaceIsUnknown(ReadContext):
    """The reference, except that a workspace holding none of the four files is refused with not_found."""

    def read_context(self, image_id: object) -> Json:
        context = super().read_context(image_id)
        folder = self.workspace_root / str(image_id)
        if not any((folder / name).exists() for name in _WORKSPACE_FILES):
            raise SpecError("not_found", f"no context for image {image_id!r}")
        return context
