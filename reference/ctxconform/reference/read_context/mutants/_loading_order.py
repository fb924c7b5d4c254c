"""Mutants of the section "Loading order": tastes, brief, notes, recent log and recent gaps, each read as the ADR orders."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from ctxconform.reference.read_context import NOTES_TRUNCATION_THRESHOLD, RECENT, ReadContext, json_object, split_lines
from ctxconform.reference.read_context.mutants._base import CATALOGUE, Json, file_bytes

__all__ = [
    "BriefCachedByFileName",
    "ConflictsNeedThreeGenreFiles",
    "DeclaredGenreNamesKeepSpaces",
    "DefaultTasteReplacedByGenres",
    "EmptyDeclaredNamesKept",
    "GapsFirst10Records",
    "GapsSortedOldestFirst",
    "LogCountsBlankLines",
    "LogOldestFirst",
    "LogReadFromItsLast64Kib",
    "NotesCachedByFileName",
    "SharedLinesKeptByTheFirstGenreOnly",
    "TruncatedFlagCountsAFinalBreak",
    "UndeclaredGenresLoad",
]


@CATALOGUE.mutant("read-context/loading-order/recent-log-newest-first")
class LogOldestFirst(ReadContext):
    """The reference, except that the recent log is oldest first."""

    def read_context(self, image_id: object) -> Json:
        context = super().read_context(image_id)
        context["recent_log"] = context["recent_log"][::-1]
        return context


@CATALOGUE.mutant("read-context/loading-order/default-taste-always-loads")
class DefaultTasteReplacedByGenres(ReadContext):
    """The reference, except that tastes.default is empty whenever a declared genre loads."""

    def tastes(self, declared: list[str]) -> Json:
        tastes = super().tastes(declared)
        if tastes["genres"]:  # the mutation: genres replace the default layer instead of layering on top
            tastes["default"] = ""
        return tastes


@CATALOGUE.mutant(
    "read-context/loading-order/declared-genres-layer-on-top",
    "read-context/conflicts/only-genre-files",
)
class UndeclaredGenresLoad(ReadContext):
    """The reference, except that every genre file in the tastes folder loads, declared or not."""

    def tastes(self, declared: list[str]) -> Json:
        folder = self.tastes_dir
        present = sorted(path.stem for path in folder.glob("*.md") if path.stem != "_default") if folder else []
        return super().tastes([*declared, *(genre for genre in present if genre not in declared)])


@CATALOGUE.mutant(
    "read-context/loading-order/conflicts-surfaced",
    "read-context/conflicts/shared-line-in-genre-files",
)
class ConflictsNeedThreeGenreFiles(ReadContext):
    """The reference, except that a line is a conflict only when more than two genre files share it."""

    def tastes(self, declared: list[str]) -> Json:
        tastes = super().tastes(declared)
        tastes["conflicts"] = [entry for entry in tastes["conflicts"] if len(entry["files"]) > 2]  # noqa: PLR2004 - the mutation: > 2, not >= 2
        return tastes


@CATALOGUE.mutant(
    "read-context/loading-order/no-auto-resolve",
    "read-context/loading-order/declared-genres-layer-on-top",
    "read-context/response-shape/genres-map",
)
class SharedLinesKeptByTheFirstGenreOnly(ReadContext):
    """The reference, except that a conflicting line is removed from every genre text but the first one holding it."""

    def tastes(self, declared: list[str]) -> Json:
        tastes = super().tastes(declared)
        keeper = {entry["point"]: entry["files"][0] for entry in tastes["conflicts"]}
        for genre, text in tastes["genres"].items():
            kept = [line for line in text.split("\n") if keeper.get(line.strip(), genre) == genre]
            tastes["genres"][genre] = "\n".join(kept)
        return tastes


@CATALOGUE.mutant(
    "read-context/loading-order/brief-per-image",
    "read-context/loading-order/declared-genres-layer-on-top",
    "read-context/loading-order/conflicts-surfaced",
    "read-context/response-shape/brief-raw",
    "read-context/tolerance/fresh-workspace",
    "read-context/response-shape/brief-tastes-list",
    "read-context/conflicts/shared-line-in-genre-files",
    "read-context/loading-order/no-auto-resolve",
    "read-context/loading-order/brief-tastes-declaration",
    "read-context/loading-order/tastes-declaration-forms",
    "read-context/loading-order/multiple-tastes-lines",
    "read-context/tolerance/non-utf8-files",
    "read-context/tolerance/missing-files-empty",
)
@dataclass
class BriefCachedByFileName(ReadContext):
    """The reference, except that the parsed brief is cached by file name, so every image gets the first image's brief."""

    cache: dict[str, Json] = field(default_factory=dict)

    def brief(self, workspace: Path) -> Json:
        # The mutation: the cache is keyed by the file's name, not its path.
        if "brief.md" not in self.cache:
            self.cache["brief.md"] = super().brief(workspace)
        return self.cache["brief.md"]


_DECLARATION: Final = re.compile(r"^\s*tastes\s*:(?P<rest>.*)$", re.IGNORECASE)


@CATALOGUE.mutant(
    "read-context/loading-order/brief-tastes-declaration",
    "read-context/response-shape/brief-tastes-list",
    "read-context/loading-order/declared-genres-layer-on-top",
    "read-context/loading-order/conflicts-surfaced",
    "read-context/loading-order/tastes-declaration-forms",
)
class DeclaredGenreNamesKeepSpaces(ReadContext):
    """The reference, except that the names of a Tastes: line keep the spaces around them."""

    def brief(self, workspace: Path) -> Json:
        brief = super().brief(workspace)
        names: list[str] = []
        for line in split_lines(brief["raw"]):
            match = _DECLARATION.match(line)
            if match is not None:
                listed = match["rest"].strip()
                if listed.startswith("[") and listed.endswith("]"):
                    listed = listed[1:-1]
                # The mutation: each item loses its quotes but keeps the spaces around it.
                items = (item.strip("\"'`") for item in listed.split(","))
                names.extend(item for item in items if item.strip() and item not in names)
        brief["tastes"] = names
        return brief


@CATALOGUE.mutant(
    "read-context/loading-order/notes-per-image",
    "read-context/response-shape/structured-top-prose-body",
    "read-context/tolerance/fresh-workspace",
    "read-context/summarization/short-notes-raw",
    "read-context/summarization/threshold",
    "read-context/loading-order/notes-truncated-flag",
    "read-context/summarization/head-first-10",
    "read-context/tolerance/missing-files-empty",
    "read-context/tolerance/unreadable-files-empty",
    "read-context/tolerance/non-utf8-files",
)
@dataclass
class NotesCachedByFileName(ReadContext):
    """The reference, except that the notes summary is cached by file name, so every image gets the first image's notes."""

    cache: dict[str, Json] = field(default_factory=dict)

    def notes(self, workspace: Path) -> Json:
        # The mutation: the cache is keyed by the file's name, not its path.
        if "notes.md" not in self.cache:
            self.cache["notes.md"] = super().notes(workspace)
        return dict(self.cache["notes.md"])


@CATALOGUE.mutant("read-context/loading-order/notes-truncated-flag", name="truncated_flag_counts_a_final_break")
class TruncatedFlagCountsAFinalBreak(ReadContext):
    """The reference, except that the truncated flag counts line breaks + 1 lines, so 40 lines and a final break are flagged."""

    def notes(self, workspace: Path) -> Json:
        notes = super().notes(workspace)
        data = file_bytes(self.workspace_file(workspace, "notes.md"))
        if data:  # the mutation: lines counted as line breaks + 1, so a final break adds one
            notes["truncated"] = data.count(b"\n") + 1 > NOTES_TRUNCATION_THRESHOLD
        return notes


@CATALOGUE.mutant("read-context/loading-order/recent-log-last-10")
class LogCountsBlankLines(ReadContext):
    """The reference, except that recent_log is built from the last 10 lines of log.jsonl, blank lines included."""

    def recent_log(self, workspace: Path) -> list[Json]:
        data = file_bytes(self.workspace_file(workspace, "log.jsonl")) or b""
        # The mutation: the last 10 lines are taken before blank lines are dropped.
        records = [json_object(line) for line in data.splitlines()[-RECENT:]]
        return [self.log_entry(record) for record in reversed(records) if record is not None]


@CATALOGUE.mutant("read-context/loading-order/recent-gaps-last-10", name="gaps_first_10_records")
class GapsFirst10Records(ReadContext):
    """The reference, except that recent_gaps holds the first 10 records of the file instead of the last 10."""

    def recent_gaps(self, workspace: Path) -> list[Json]:
        data = file_bytes(self.workspace_file(workspace, "vocabulary_gaps.jsonl")) or b""
        records = [record for record in map(json_object, data.split(b"\n")) if record is not None]
        # The mutation: the first 10 records, not the last 10.
        return [self.gap(record) for record in reversed(records[:RECENT])]


@CATALOGUE.mutant("read-context/loading-order/recent-gaps-newest-first")
class GapsSortedOldestFirst(ReadContext):
    """The reference, except that recent_gaps is sorted by timestamp oldest first: newest first under neither reading.

    (Sorted newest first by timestamp is a reading of recent-gaps-newest-first, not a defect.)
    """

    def recent_gaps(self, workspace: Path) -> list[Json]:
        gaps = super().recent_gaps(workspace)
        return sorted(gaps, key=lambda record: str(record["timestamp"] or ""))


_BLOCK: Final = 64 * 1024


@CATALOGUE.mutant("read-context/loading-order/recent-log-last-10", name="log_read_from_its_last_64_kib", edge="boundaries")
class LogReadFromItsLast64Kib(ReadContext):
    """The reference, except that the recent log comes from the file's last 64 KiB only, so a line crossing it drops out."""

    def recent_log(self, workspace: Path) -> list[Json]:
        data = file_bytes(self.workspace_file(workspace, "log.jsonl")) or b""
        records = [record for record in map(json_object, data[-_BLOCK:].split(b"\n")) if record is not None]
        return [self.log_entry(record) for record in records[-RECENT:][::-1]]


@CATALOGUE.mutant(
    "read-context/loading-order/brief-tastes-declaration",
    "read-context/consequences/fixed-schema",
    edge="degenerate",
)
class EmptyDeclaredNamesKept(ReadContext):
    """The reference, except that empty items of a Tastes: line are kept, so "Tastes:" alone declares the genre ''."""

    def brief(self, workspace: Path) -> Json:
        brief = super().brief(workspace)
        items = (
            item for line in split_lines(brief["raw"]) if (match := _DECLARATION.match(line)) for item in match["rest"].split(",")
        )
        if any(not item.strip() for item in items) and "" not in brief["tastes"]:
            brief["tastes"] = [*brief["tastes"], ""]
        return brief
