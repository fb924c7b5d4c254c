"""Mutants of the section "Conflict surfacing convention": a non-comment, non-empty line in two or more genre files is listed."""

from __future__ import annotations

from ctxconform.reference.read_context import ReadContext, split_lines
from ctxconform.reference.read_context.mutants._base import CATALOGUE, Json

__all__ = [
    "ConflictsListTwoGenresAtMost",
    "ConflictsSuggestTheFirstGenre",
    "DefaultTasteTakesPartInConflicts",
    "WhitespaceLinesConflict",
]


@CATALOGUE.mutant("read-context/conflicts/shared-line-in-genre-files")
class ConflictsListTwoGenresAtMost(ReadContext):
    """The reference, except that a conflict's files names only the first two genres holding the line."""

    def tastes(self, declared: list[str]) -> Json:
        tastes = super().tastes(declared)
        tastes["conflicts"] = [{**entry, "files": entry["files"][:2]} for entry in tastes["conflicts"]]
        return tastes


def _is_comment(line: str) -> bool:
    return line.startswith("#") or (line.startswith("<!--") and line.endswith("-->"))


@CATALOGUE.mutant("read-context/conflicts/empty-lines-never-conflict")
class WhitespaceLinesConflict(ReadContext):
    """The reference, except that lines are tested for emptiness before stripping, so whitespace-only lines conflict."""

    def conflict_points(self, text: str) -> list[str]:
        return [line.strip() for line in split_lines(text) if line and not _is_comment(line.strip())]


@CATALOGUE.mutant("read-context/conflicts/only-genre-files")
class DefaultTasteTakesPartInConflicts(ReadContext):
    """The reference, except that _default.md takes part in conflicts like a genre file."""

    def tastes(self, declared: list[str]) -> Json:
        tastes = super().tastes(declared)
        tastes["conflicts"] = self.conflicts({"_default": tastes["default"], **tastes["genres"]})
        return tastes


@CATALOGUE.mutant(
    "read-context/conflicts/no-suggested-resolution",
    "read-context/response-shape/conflict-entry",
)
class ConflictsSuggestTheFirstGenre(ReadContext):
    """The reference, except that each conflict suggests keeping the first genre's line (a `keep` field)."""

    def tastes(self, declared: list[str]) -> Json:
        tastes = super().tastes(declared)
        tastes["conflicts"] = [{**entry, "keep": entry["files"][0]} for entry in tastes["conflicts"]]
        return tastes
