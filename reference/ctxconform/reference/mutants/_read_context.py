"""Mutants of the read-context reference."""

from __future__ import annotations

from typing import Any

from ctxconform.reference._implementation import Reference
from ctxconform.reference.mutants._catalogue import Mutant, mutant
from ctxconform.reference.read_context import ReadContext

__all__ = ["MUTANTS"]

MUTANTS: list[Mutant] = []


class _TruncateAt50(ReadContext):
    def read_context(self, image_id: object) -> dict[str, Any]:
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


class _LogOldestFirst(ReadContext):
    def read_context(self, image_id: object) -> dict[str, Any]:
        context = super().read_context(image_id)
        context["recent_log"] = context["recent_log"][::-1]
        return context


@mutant("read-context/summarization/threshold", catalogue=MUTANTS)
def notes_truncate_at_50() -> Reference:
    """The reference, except that notes of 41 to 50 lines come back whole."""
    return Reference(name="mutant:notes_truncate_at_50", read_context=_TruncateAt50)


@mutant("read-context/loading-order/recent-log-newest-first", catalogue=MUTANTS)
def log_oldest_first() -> Reference:
    """The reference, except that the recent log is oldest first."""
    return Reference(name="mutant:log_oldest_first", read_context=_LogOldestFirst)
