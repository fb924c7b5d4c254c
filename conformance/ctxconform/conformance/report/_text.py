"""Untrusted text made safe to show: on a terminal, and as Markdown that a CI job summary renders.

Anything an implementation sends (its name, version, messages, stderr) may hold terminal escapes, Markdown that
forges table rows or links, raw HTML, NUL bytes and lone surrogates. These functions are the only way such text
reaches the console or summary.md.
"""

from __future__ import annotations

import html
import re
from typing import Final

__all__ = ["NAME_CHARS", "TEXT_CHARS", "bounded", "markdown", "visible", "visible_lines"]

NAME_CHARS: Final = 200
TEXT_CHARS: Final = 2000
# C0 and C1 controls, DEL, line and paragraph separators, bidirectional overrides and isolates (they reorder what
# follows them on screen), and lone surrogates (UTF-8 cannot encode them).
_UNSAFE: Final = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
# The same, less line breaks, tabs and lone surrogates: what a page (whose writer pairs or replaces surrogates) keeps.
_UNSAFE_IN_LINES: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# Every ASCII punctuation character that can start or end Markdown markup; CommonMark renders `\X` as X for each.
# `<`, `>` and `&` become character references instead, which never open HTML.
_MARKUP: Final = re.compile(r"([\\`*_{}\[\]()#+\-.!|~:])")


def bounded(text: str, limit: int = TEXT_CHARS) -> str:
    """Return `text` cut to `limit` characters, saying how many were left out."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text) - limit} more characters)"


def visible(text: str, limit: int = TEXT_CHARS) -> str:
    """Return `text` on one line, bounded, each control character and lone surrogate shown as its Python escape."""
    return _UNSAFE.sub(_escape, bounded(text, limit))


def visible_lines(text: str) -> str:
    """Return `text` with its line breaks, tabs and surrogates, every other control character shown as its escape."""
    return _UNSAFE_IN_LINES.sub(_escape, text)


def markdown(text: str, limit: int = TEXT_CHARS) -> str:
    """Return `text` as inline Markdown that renders as itself: one line, no markup, no HTML, no control characters."""
    one_line = _UNSAFE.sub(_dropped, bounded(text, limit))
    return _MARKUP.sub(r"\\\1", html.escape(one_line, quote=False))


def _dropped(found: re.Match[str]) -> str:
    character = found.group()
    if character in "\n\r\t\u2028\u2029":
        return " "
    return "\ufffd" if "\ud800" <= character <= "\udfff" else ""


def _escape(found: re.Match[str]) -> str:
    return found.group().encode("unicode_escape").decode("ascii")
