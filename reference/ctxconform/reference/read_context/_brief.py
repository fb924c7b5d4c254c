"""The brief: raw markdown, the genres its `Tastes:` lines declare, and the intent (everything else)."""

from __future__ import annotations

import re
from typing import Any, Final

from ctxconform.reference.read_context._text import split_lines

__all__ = ["parse_brief"]

_DECLARATION: Final = re.compile(r"^\s*tastes\s*:(?P<rest>.*)$", re.IGNORECASE)
_QUOTES: Final = "\"'`"


def parse_brief(raw: str) -> dict[str, Any]:
    """Return {raw, intent, tastes} for a brief's text."""
    tastes: list[str] = []
    kept: list[str] = []
    for line in split_lines(raw):
        match = _DECLARATION.match(line)
        if match is None:
            kept.append(line)
        else:
            tastes.extend(name for name in _names(match["rest"]) if name not in tastes)
    return {"raw": raw, "intent": "\n".join(kept).strip(), "tastes": tastes}


def _names(rest: str) -> list[str]:
    listed = rest.strip()
    if listed.startswith("[") and listed.endswith("]"):
        listed = listed[1:-1]
    names = (item.strip().strip(_QUOTES).strip() for item in listed.split(","))
    return [name for name in names if name]
