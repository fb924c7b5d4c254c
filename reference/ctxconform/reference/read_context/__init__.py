"""The reference implementation of ADR-059: agent context loading order and format (read_context)."""

from __future__ import annotations

from ctxconform.reference.read_context._brief import parse_brief
from ctxconform.reference.read_context._handler import (
    HANDLER_FACTORY,
    SPEC_ID,
    SPEC_VERSION,
    ReadContextFactory,
    ReadContextHandler,
)
from ctxconform.reference.read_context._jsonl import GAP_DEFAULTS, RECENT, json_object
from ctxconform.reference.read_context._notes import (
    NOTES_HEAD_LINES,
    NOTES_TAIL_LINES,
    NOTES_TRUNCATION_THRESHOLD,
    LineCounter,
    summarize_notes,
)
from ctxconform.reference.read_context._service import ReadContext
from ctxconform.reference.read_context._text import read_text, split_lines

__all__ = [
    "GAP_DEFAULTS",
    "HANDLER_FACTORY",
    "NOTES_HEAD_LINES",
    "NOTES_TAIL_LINES",
    "NOTES_TRUNCATION_THRESHOLD",
    "RECENT",
    "SPEC_ID",
    "SPEC_VERSION",
    "LineCounter",
    "ReadContext",
    "ReadContextFactory",
    "ReadContextHandler",
    "json_object",
    "parse_brief",
    "read_text",
    "split_lines",
    "summarize_notes",
]
