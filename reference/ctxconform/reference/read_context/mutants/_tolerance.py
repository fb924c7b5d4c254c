"""Mutants of the section "Tolerance for missing files": missing or unreadable files read as empty, a fresh workspace works."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Final

from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.read_context import RECENT, ReadContext, json_object
from ctxconform.reference.read_context.mutants._base import CATALOGUE, Json, file_bytes

__all__ = [
    "EmptyWorkspaceIsUnknown",
    "GenresNeedTheDefaultTaste",
    "JsonLinesTakenAsMappings",
    "LogReadWheneverItExists",
    "TrailingSlashTrimmedFromImageId",
    "WorkspacesIndexedByFoldedName",
]


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


def _mappings(data: bytes | None) -> list[Json]:
    """The file's lines taken as records the way dict() takes them, newest first."""
    found: list[Json] = []
    for line in (data or b"").split(b"\n"):
        if not line.strip():
            continue
        try:
            found.append(dict(json.loads(line)))  # the mutation: whatever dict() accepts is a record
        except (ValueError, TypeError):
            continue
    return found[-RECENT:][::-1]


@CATALOGUE.mutant("read-context/tolerance/malformed-jsonl-lines", edge="stored-records")
class JsonLinesTakenAsMappings(ReadContext):
    """The reference, except that a JSON line is made a record with dict(), so a list of pairs or "" is an entry."""

    def recent_log(self, workspace: Path) -> list[Json]:
        return [self.log_entry(r) for r in _mappings(file_bytes(self.workspace_file(workspace, "log.jsonl")))]

    def recent_gaps(self, workspace: Path) -> list[Json]:
        return [self.gap(r) for r in _mappings(file_bytes(self.workspace_file(workspace, "vocabulary_gaps.jsonl")))]


@CATALOGUE.mutant("read-context/tolerance/unknown-image-id", edge="identifiers")
class TrailingSlashTrimmedFromImageId(ReadContext):
    """The reference, except that a trailing / is trimmed from image_id, so "a/" reads image a's workspace."""

    def read_context(self, image_id: object) -> Json:
        trimmed = image_id.rstrip("/") if isinstance(image_id, str) else image_id
        return super().read_context(trimmed or image_id)


def _folded(name: str) -> str:
    return unicodedata.normalize("NFKC", name).casefold()


@CATALOGUE.mutant(
    "read-context/tolerance/unknown-image-id",
    "read-context/loading-order/brief-per-image",
    edge="identifiers",
)
class WorkspacesIndexedByFoldedName(ReadContext):
    """The reference, except that workspaces are found through a dict keyed by case-folded NFKC name, so A reads a."""

    def read_context(self, image_id: object) -> Json:
        try:
            index = {_folded(path.name): path.name for path in sorted(self.workspace_root.iterdir()) if path.is_dir()}
        except OSError:
            index = {}
        if isinstance(image_id, str):
            image_id = index.get(_folded(image_id), image_id)
        return super().read_context(image_id)
