"""Rendering a spec diff as Markdown for people."""

from __future__ import annotations

from ctxconform.conformance.specdiff._model import CHANGE_KINDS, Change, SpecDiff

__all__ = ["render_markdown"]


def render_markdown(diff: SpecDiff) -> str:
    """Render a diff for people: a heading, the counts per kind, then a table per kind ("No changes." when there are none)."""
    lines = [f"# Spec changes: {diff.old} → {diff.new}", ""]
    if not diff.changes:
        return "\n".join([*lines, "No changes.", ""])
    lines += [", ".join(f"{diff.counts.get(kind, 0)} {kind}" for kind in CHANGE_KINDS) + ".", ""]
    for kind in CHANGE_KINDS:
        rows = [_row(change) for change in diff.changes if change.kind == kind]
        if rows:
            lines += [
                f"## {kind.capitalize()} ({len(rows)})",
                "",
                "| spec | where | what | change |",
                "|---|---|---|---|",
                *rows,
                "",
            ]
    return "\n".join(lines)


def _row(change: Change) -> str:
    cells = (change.spec, f"`{change.where}`", f"`{change.what}`", change.message)
    return "| " + " | ".join(cell.replace("|", "\\|").replace("\n", " ") for cell in cells) + " |"
