"""read_context(image_id): tastes, brief, notes, recent log and recent gaps, in the ADR's order and shape."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxconform.reference.read_context._brief import parse_brief
from ctxconform.reference.read_context._jsonl import gap, last_objects, log_entry
from ctxconform.reference.read_context._notes import LineCounter, summarize_notes
from ctxconform.reference.read_context._tastes import load_tastes
from ctxconform.reference.read_context._text import read_text
from ctxconform.reference.read_context._workspace import contained, workspace_of

__all__ = ["ReadContext"]


@dataclass
class ReadContext:
    """Loads an image's context from its workspace and the global tastes folder."""

    workspace_root: Path
    tastes_dir: Path | None = None
    counter: LineCounter = field(default_factory=LineCounter)

    def read_context(self, image_id: object) -> dict[str, Any]:
        """Return the five parts of the context, in loading order."""
        workspace = workspace_of(self.workspace_root, image_id)
        brief = self._brief(workspace)
        return {
            "tastes": self._tastes(brief["tastes"]),
            "brief": brief,
            "notes": self._notes(workspace),
            "recent_log": self._recent_log(workspace),
            "recent_gaps": self._recent_gaps(workspace),
        }

    def _brief(self, workspace: Path) -> dict[str, Any]:
        return parse_brief(read_text(self._inside(workspace, "brief.md")))

    def _tastes(self, declared: list[str]) -> dict[str, Any]:
        return load_tastes(self.tastes_dir, declared)

    def _notes(self, workspace: Path) -> dict[str, Any]:
        return summarize_notes(self._inside(workspace, "notes.md"), self.counter)

    def _recent_log(self, workspace: Path) -> list[dict[str, Any]]:
        return [log_entry(r) for r in last_objects(self._inside(workspace, "log.jsonl"))]

    def _recent_gaps(self, workspace: Path) -> list[dict[str, Any]]:
        return [gap(r) for r in last_objects(self._inside(workspace, "vocabulary_gaps.jsonl"))]

    def _inside(self, workspace: Path, name: str) -> Path:
        # A file that is a symlink out of the workspace reads as missing.
        path = workspace / name
        return path if contained(workspace, path) else workspace / ".ctxconform-outside"
