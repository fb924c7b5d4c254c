"""The brief: raw markdown, the genres its `Tastes:` lines declare, and the intent (everything else)."""

from __future__ import annotations

import re
from typing import Any, Final

__all__ = ["parse_brief"]

# Whole-text patterns, not a list of lines: a brief of many short lines would cost ~50 bytes per line as objects.
# [^\S\n] is \s within one line; a declaration line is removed with its line break.
_DECLARATION: Final = re.compile(r"^[^\S\n]*tastes[^\S\n]*:(?P<rest>[^\n]*)$", re.IGNORECASE | re.MULTILINE)
_DECLARATION_LINE: Final = re.compile(r"^[^\S\n]*tastes[^\S\n]*:[^\n]*(?:\n|\Z)", re.IGNORECASE | re.MULTILINE)
_QUOTES: Final = "\"'`"


def parse_brief(raw: str) -> dict[str, Any]:
    """Return {raw, intent, tastes} for a brief's text."""
    tastes: list[str] = []
    for match in _DECLARATION.finditer(raw):
        tastes.extend(name for name in _names(match["rest"]) if name not in tastes)
    intent = _DECLARATION_LINE.sub("", raw).replace("\r\n", "\n").strip()
    return {"raw": raw, "intent": intent, "tastes": tastes}


def _names(rest: str) -> list[str]:
    listed = rest.strip()
    if listed.startswith("[") and listed.endswith("]"):
        listed = listed[1:-1]
    names = (item.strip().strip(_QUOTES).strip() for item in listed.split(","))
    return [name for name in names if name]
