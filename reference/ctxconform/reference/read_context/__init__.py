"""The reference implementation of ADR-059: agent context loading order and format (read_context)."""

from __future__ import annotations

from ctxconform.reference.read_context._brief import parse_brief
from ctxconform.reference.read_context._jsonl import GAP_DEFAULTS, RECENT
from ctxconform.reference.read_context._notes import (
    NOTES_HEAD_LINES,
    NOTES_TAIL_LINES,
    NOTES_TRUNCATION_THRESHOLD,
    LineCounter,
    summarize_notes,
)
from ctxconform.reference.read_context._service import ReadContext

__all__ = [
    "GAP_DEFAULTS",
    "NOTES_HEAD_LINES",
    "NOTES_TAIL_LINES",
    "NOTES_TRUNCATION_THRESHOLD",
    "RECENT",
    "SPEC_VERSION",
    "LineCounter",
    "ReadContext",
    "parse_brief",
    "summarize_notes",
]

SPEC_VERSION = "ADR-059"
