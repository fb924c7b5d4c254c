"""Tastes: `_default.md` always, genre files declared by the brief on top, and lines shared by two genres as conflicts."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from ctxconform.reference.read_context._text import MAX_TEXT_BYTES, read_text, split_lines
from ctxconform.reference.read_context._workspace import contained

__all__ = ["conflict_points", "find_conflicts", "load_tastes"]

# A genre name must be a plain file name in the tastes folder: no separators, no dot-files, no parent references.
_GENRE: Final = re.compile(r"[^./\\\x00-\x1f\x7f][^/\\\x00-\x1f\x7f]{0,99}")


def load_tastes(
    tastes_dir: Path | None,
    genres: list[str],
    conflicts: Callable[[dict[str, str]], list[dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """Return {default, genres, conflicts} for the declared genres, conflicts found by `conflicts`; missing files left out."""
    if tastes_dir is None:
        return {"default": "", "genres": {}, "conflicts": []}
    texts, budget = {}, MAX_TEXT_BYTES
    for genre in genres:
        if _GENRE.fullmatch(genre) and ".." not in genre:
            text = _read_taste(tastes_dir, f"{genre}.md")
            # The genres share one budget: a brief declaring many large genres must not multiply the cap.
            if text and len(text) <= budget:
                texts[genre] = text
                budget -= len(text)
    return {"default": _read_taste(tastes_dir, "_default.md"), "genres": texts, "conflicts": (conflicts or find_conflicts)(texts)}


def _read_taste(tastes_dir: Path, name: str) -> str:
    """A taste file's text; a symlink out of the tastes folder reads as missing."""
    path = tastes_dir / name
    return read_text(path) if contained(tastes_dir, path) else ""


def find_conflicts(texts: dict[str, str], points: Callable[[str], list[str]] | None = None) -> list[dict[str, Any]]:
    """Each line found in more than one of `texts` ({genre: text}), with the genres holding it, in first-seen order."""
    seen: dict[str, list[str]] = {}
    for genre, text in texts.items():
        for point in dict.fromkeys((points or conflict_points)(text)):
            seen.setdefault(point, []).append(genre)
    return [{"point": point, "files": files} for point, files in seen.items() if len(files) > 1]


def conflict_points(text: str) -> list[str]:
    """The lines that can conflict: stripped, not blank, not a comment (`#` or `<!-- -->`)."""
    lines = (line.strip() for line in split_lines(text))
    return [line for line in lines if line and not line.startswith("#") and not _html_comment(line)]


def _html_comment(line: str) -> bool:
    return line.startswith("<!--") and line.endswith("-->")
