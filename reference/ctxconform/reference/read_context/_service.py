"""read_context(image_id): tastes, brief, notes, recent log and recent gaps, in the ADR's order and shape."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxconform.reference.read_context import _jsonl, _tastes
from ctxconform.reference.read_context._brief import parse_brief
from ctxconform.reference.read_context._notes import LineCounter, summarize_notes
from ctxconform.reference.read_context._text import read_text
from ctxconform.reference.read_context._workspace import contained, workspace_of

__all__ = ["ReadContext"]

Json = dict[str, Any]


@dataclass
class ReadContext:
    """Loads an image's context from its workspace and the global tastes folder; each part is a method a variant overrides."""

    workspace_root: Path
    tastes_dir: Path | None = None
    counter: LineCounter = field(default_factory=LineCounter)

    def read_context(self, image_id: object) -> Json:
        """Return the five parts of the context, in loading order."""
        workspace = workspace_of(self.workspace_root, image_id)
        brief = self.brief(workspace)
        return {
            "tastes": self.tastes(brief["tastes"]),
            "brief": brief,
            "notes": self.notes(workspace),
            "recent_log": self.recent_log(workspace),
            "recent_gaps": self.recent_gaps(workspace),
        }

    def brief(self, workspace: Path) -> Json:
        """The workspace's brief as {raw, intent, tastes}; the point a variant overrides to read briefs differently."""
        return parse_brief(read_text(self.workspace_file(workspace, "brief.md")))

    def tastes(self, declared: list[str]) -> Json:
        """The tastes as {default, genres, conflicts} for `declared`; the point a variant overrides to load tastes differently."""
        return _tastes.load_tastes(self.tastes_dir, declared, self.conflicts)

    def conflicts(self, genres: dict[str, str]) -> list[Json]:
        """The lines shared by several of `genres` ({genre: text}); the point a variant overrides to find conflicts otherwise."""
        return _tastes.find_conflicts(genres, self.conflict_points)

    def conflict_points(self, text: str) -> list[str]:
        """The lines of a genre text that can conflict; the point a variant overrides to compare lines differently."""
        return _tastes.conflict_points(text)

    def notes(self, workspace: Path) -> Json:
        """The workspace's notes as {summary, truncated}; the point a variant overrides to summarize notes differently."""
        return summarize_notes(self.workspace_file(workspace, "notes.md"), self.counter)

    def recent_log(self, workspace: Path) -> list[Json]:
        """The last log entries of the workspace, newest first; the point a variant overrides to pick them differently."""
        return [self.log_entry(record) for record in _jsonl.last_objects(self.workspace_file(workspace, "log.jsonl"))]

    def log_entry(self, record: Json) -> Json:
        """One log line shaped as {timestamp, op, details}; the point a variant overrides to shape entries differently."""
        return _jsonl.log_entry(record)

    def recent_gaps(self, workspace: Path) -> list[Json]:
        """The last vocabulary gaps of the workspace, newest first; the point a variant overrides to pick them differently."""
        return [self.gap(record) for record in _jsonl.last_objects(self.workspace_file(workspace, "vocabulary_gaps.jsonl"))]

    def gap(self, record: Json) -> Json:
        """One gap line shaped as the full gap record; the point a variant overrides to shape gap records differently."""
        return _jsonl.gap(record)

    def workspace_file(self, workspace: Path, name: str) -> Path:
        """Where the workspace's file `name` is read from; the point a variant overrides to read files elsewhere."""
        # A file that is a symlink out of the workspace reads as missing.
        path = workspace / name
        return path if contained(workspace, path) else workspace / ".ctxconform-outside"
