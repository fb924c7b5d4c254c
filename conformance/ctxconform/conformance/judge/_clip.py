"""Keep transcripts readable and serializable: elide what is nested too deep or too long to show."""

from __future__ import annotations

from typing import Final

__all__ = ["MAX_CHARS", "MAX_DEPTH", "MAX_ITEMS", "clip", "clip_text"]

MAX_DEPTH: Final = 32
MAX_CHARS: Final = 4096
MAX_ITEMS: Final = 200


def clip(value: object, depth: int = MAX_DEPTH) -> object:
    """Return `value` with strings, lists and objects past the limits replaced by a note of what was left out.

    Lone surrogates, which no UTF-8 file can hold, come back escaped (a backslash and their code).
    """
    if isinstance(value, str):
        return clip_text(value)
    if not isinstance(value, (list, dict)):
        return value
    if depth <= 0:
        return f"... (a {type(value).__name__} nested deeper than {MAX_DEPTH} levels)"
    if isinstance(value, list):
        kept: list[object] = [clip(item, depth - 1) for item in value[:MAX_ITEMS]]
        return kept + ([f"... ({len(value) - MAX_ITEMS} more items)"] if len(value) > MAX_ITEMS else [])
    clipped = {clip_text(str(key)): clip(item, depth - 1) for key, item in list(value.items())[:MAX_ITEMS]}
    if len(value) > MAX_ITEMS:
        clipped["..."] = f"{len(value) - MAX_ITEMS} more members"
    return clipped


def clip_text(text: str, limit: int = MAX_CHARS) -> str:
    """Return `text` cut to `limit` characters with a note of the rest, lone surrogates escaped."""
    if len(text) > limit:
        text = f"{text[:limit]}... ({len(text) - limit} more characters)"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text
