"""Mutants of the read-context reference."""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import combinations
from pathlib import Path
from typing import Any, Final

from ctxconform.reference._implementation import Reference
from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.mutants._catalogue import Mutant, mutant
from ctxconform.reference.read_context import (
    NOTES_HEAD_LINES,
    NOTES_TAIL_LINES,
    NOTES_TRUNCATION_THRESHOLD,
    RECENT,
    LineCounter,
    ReadContext,
)
from ctxconform.reference.read_context._jsonl import gap, json_object, last_objects, log_entry
from ctxconform.reference.read_context._tastes import conflict_points, find_conflicts
from ctxconform.reference.read_context._text import read_text, split_lines

__all__ = ["MUTANTS"]

MUTANTS: list[Mutant] = []

Json = dict[str, Any]

_WORKSPACE_FILES: Final = ("brief.md", "notes.md", "log.jsonl", "vocabulary_gaps.jsonl")
_DECLARATION: Final = re.compile(r"^\s*tastes\s*:(?P<rest>.*)$", re.IGNORECASE)
_MEBIBYTE: Final = 1024 * 1024


# --- helpers: the file reading and conflict finding that mutants redo with one thing changed --------


def _file_bytes(path: Path) -> bytes | None:
    """A regular file's bytes; None when missing, not a regular file or unreadable."""
    try:
        with path.open("rb") as handle:
            return handle.read() if stat.S_ISREG(os.fstat(handle.fileno()).st_mode) else None
    except OSError:
        return None


def _notes_lines(path: Path) -> tuple[str, list[str]] | None:
    """The notes' text and lines as the reference counts them; None when the reference reads no text."""
    data = _file_bytes(path)
    try:
        text = data.decode("utf-8") if data is not None else None
    except UnicodeDecodeError:
        return None
    return None if text is None else (text, split_lines(text))


def _summary(lines: list[str], head: int, tail: int, elided: int) -> str:
    marker = f"\n\n... [{elided} lines elided] ...\n\n"
    return "\n".join(lines[:head]) + marker + "\n".join(lines[len(lines) - tail :])


def _is_comment(line: str) -> bool:
    return line.startswith("#") or (line.startswith("<!--") and line.endswith("-->"))


# --- loading order: tastes -------------------------------------------------------------------------


class _DefaultReplacedByGenres(ReadContext):
    def _tastes(self, declared: list[str]) -> Json:
        tastes = super()._tastes(declared)
        if tastes["genres"]:  # the mutation: genres replace the default layer instead of layering on top
            tastes["default"] = ""
        return tastes


class _EveryGenreLoads(ReadContext):
    def _tastes(self, declared: list[str]) -> Json:
        folder = self.tastes_dir
        present = sorted(path.stem for path in folder.glob("*.md") if path.stem != "_default") if folder else []
        return super()._tastes([*declared, *(genre for genre in present if genre not in declared)])


class _ConflictsNeedThreeFiles(ReadContext):
    def _tastes(self, declared: list[str]) -> Json:
        tastes = super()._tastes(declared)
        tastes["conflicts"] = [entry for entry in tastes["conflicts"] if len(entry["files"]) > 2]  # noqa: PLR2004 - the mutation: > 2, not >= 2
        return tastes


class _FirstGenreKeepsSharedLines(ReadContext):
    def _tastes(self, declared: list[str]) -> Json:
        tastes = super()._tastes(declared)
        keeper = {entry["point"]: entry["files"][0] for entry in tastes["conflicts"]}
        for genre, text in tastes["genres"].items():
            kept = [line for line in text.split("\n") if keeper.get(line.strip(), genre) == genre]
            tastes["genres"][genre] = "\n".join(kept)
        return tastes


# --- loading order: brief and notes per image -------------------------------------------------------


@dataclass
class _BriefCachedByName(ReadContext):
    cache: dict[str, Json] = field(default_factory=dict)

    def _brief(self, workspace: Path) -> Json:
        # The mutation: the cache is keyed by the file's name, not its path.
        if "brief.md" not in self.cache:
            self.cache["brief.md"] = super()._brief(workspace)
        return self.cache["brief.md"]


@dataclass
class _NotesCachedByName(ReadContext):
    cache: dict[str, Json] = field(default_factory=dict)

    def _notes(self, workspace: Path) -> Json:
        # The mutation: the cache is keyed by the file's name, not its path.
        if "notes.md" not in self.cache:
            self.cache["notes.md"] = super()._notes(workspace)
        return dict(self.cache["notes.md"])


class _DeclaredNamesKeepSpaces(ReadContext):
    def _brief(self, workspace: Path) -> Json:
        brief = super()._brief(workspace)
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


class _FlagCountsAFinalBreakAsALine(ReadContext):
    def _notes(self, workspace: Path) -> Json:
        notes = super()._notes(workspace)
        data = _file_bytes(self._inside(workspace, "notes.md"))
        if data:  # the mutation: lines counted as line breaks + 1, so a final break adds one
            notes["truncated"] = data.count(b"\n") + 1 > NOTES_TRUNCATION_THRESHOLD
        return notes


# --- loading order: recent log and gaps -------------------------------------------------------------


class _LogCountsBlankLines(ReadContext):
    def _recent_log(self, workspace: Path) -> list[Json]:
        data = _file_bytes(self._inside(workspace, "log.jsonl")) or b""
        # The mutation: the last 10 lines are taken before blank lines are dropped.
        records = [json_object(line) for line in data.splitlines()[-RECENT:]]
        return [log_entry(record) for record in reversed(records) if record is not None]


class _GapsFromTheTop(ReadContext):
    def _recent_gaps(self, workspace: Path) -> list[Json]:
        data = _file_bytes(self._inside(workspace, "vocabulary_gaps.jsonl")) or b""
        records = [record for record in map(json_object, data.split(b"\n")) if record is not None]
        # The mutation: the first 10 records, not the last 10.
        return [gap(record) for record in reversed(records[:RECENT])]


class _GapsSortedByTimestamp(ReadContext):
    def _recent_gaps(self, workspace: Path) -> list[Json]:
        gaps = super()._recent_gaps(workspace)
        return sorted(gaps, key=lambda record: str(record["timestamp"] or ""), reverse=True)


# --- response shape ---------------------------------------------------------------------------------


class _EchoesImageId(ReadContext):
    def read_context(self, image_id: object) -> Json:
        return {**super().read_context(image_id), "image_id": image_id}


class _NoConflictsLeftOut(ReadContext):
    def _tastes(self, declared: list[str]) -> Json:
        tastes = super()._tastes(declared)
        if not tastes["conflicts"]:
            del tastes["conflicts"]
        return tastes


class _GenresKeyedByFileName(ReadContext):
    def _tastes(self, declared: list[str]) -> Json:
        tastes = super()._tastes(declared)
        tastes["genres"] = {f"{genre}.md": text for genre, text in tastes["genres"].items()}
        return tastes


class _ConflictsPerPair(ReadContext):
    def _tastes(self, declared: list[str]) -> Json:
        tastes = super()._tastes(declared)
        tastes["conflicts"] = [
            {"point": entry["point"], "files": list(pair)}
            for entry in tastes["conflicts"]
            for pair in combinations(entry["files"], 2)
        ]
        return tastes


class _RawStripped(ReadContext):
    def _brief(self, workspace: Path) -> Json:
        brief = super()._brief(workspace)
        brief["raw"] = brief["raw"].strip()
        return brief


class _IntentWithoutBlankLines(ReadContext):
    def _brief(self, workspace: Path) -> Json:
        brief = super()._brief(workspace)
        brief["intent"] = "\n".join(line for line in brief["intent"].split("\n") if line.strip())
        return brief


class _OnlyLoadedGenresListed(ReadContext):
    def read_context(self, image_id: object) -> Json:
        context = super().read_context(image_id)
        loaded = context["tastes"]["genres"]
        context["brief"]["tastes"] = [genre for genre in context["brief"]["tastes"] if genre in loaded]
        return context


class _NotesCountLines(ReadContext):
    def _notes(self, workspace: Path) -> Json:
        notes = super()._notes(workspace)
        return {**notes, "lines": len(split_lines(notes["summary"]))}


class _DetailsKeepEveryKey(ReadContext):
    def _recent_log(self, workspace: Path) -> list[Json]:
        records = last_objects(self._inside(workspace, "log.jsonl"))
        return [{**log_entry(record), "details": dict(record)} for record in records]


class _GapsTakeTheRequestedImageId(ReadContext):
    def read_context(self, image_id: object) -> Json:
        context = super().read_context(image_id)
        for record in context["recent_gaps"]:
            record["image_id"] = image_id
        return context


class _IntentCategoryDefaultsToEmpty(ReadContext):
    def _recent_gaps(self, workspace: Path) -> list[Json]:
        records = last_objects(self._inside(workspace, "vocabulary_gaps.jsonl"))
        return [{**gap(record), **({} if "intent_category" in record else {"intent_category": ""})} for record in records]


class _UniversalNewlines(ReadContext):
    def read_context(self, image_id: object) -> Json:
        context = super().read_context(image_id)
        tastes, brief, notes = context["tastes"], context["brief"], context["notes"]
        tastes["default"] = _lf(tastes["default"])
        tastes["genres"] = {genre: _lf(text) for genre, text in tastes["genres"].items()}
        brief["raw"], brief["intent"], notes["summary"] = _lf(brief["raw"]), _lf(brief["intent"]), _lf(notes["summary"])
        return context


def _lf(text: str) -> str:
    """What reading in text mode does to a file's line breaks."""
    return text.replace("\r\n", "\n")


# --- summarization ----------------------------------------------------------------------------------


class _ShortNotesRejoined(ReadContext):
    def _notes(self, workspace: Path) -> Json:
        notes = super()._notes(workspace)
        if not notes["truncated"]:  # the mutation: short notes are rebuilt from their lines like long ones
            notes["summary"] = "\n".join(split_lines(notes["summary"]))
        return notes


class _LongNotes(ReadContext):
    head = NOTES_HEAD_LINES
    tail = NOTES_TAIL_LINES

    def elided(self, lines: int) -> int:
        """N in the marker for notes of `lines` lines."""
        return lines - NOTES_TRUNCATION_THRESHOLD

    def _notes(self, workspace: Path) -> Json:
        notes = super()._notes(workspace)
        read = _notes_lines(self._inside(workspace, "notes.md")) if notes["truncated"] else None
        if read is not None:
            lines = read[1]
            notes["summary"] = _summary(lines, self.head, self.tail, self.elided(len(lines)))
        return notes


class _HeadOf9(_LongNotes):
    head = NOTES_HEAD_LINES - 1


class _TailOf29(_LongNotes):
    tail = NOTES_TAIL_LINES - 1


class _MarkerCountsAllButTheHead(_LongNotes):
    def elided(self, lines: int) -> int:
        """N counts every line after the head."""
        return lines - NOTES_HEAD_LINES


class _HeadAndTailSwapped(_LongNotes):
    head = NOTES_TAIL_LINES
    tail = NOTES_HEAD_LINES


class _FlagComparesLengths(ReadContext):
    def _notes(self, workspace: Path) -> Json:
        notes = super()._notes(workspace)
        read = _notes_lines(self._inside(workspace, "notes.md")) if notes["truncated"] else None
        if read is not None:  # the mutation: "truncated" judged by the summary being shorter than the file
            notes["truncated"] = len(notes["summary"]) < len(read[0])
        return notes


class _RecountingCounter(LineCounter):
    """A counter that adds a file's lines to what it counted for that file before."""

    def __init__(self) -> None:
        super().__init__()
        self._totals: dict[tuple[int, int], int] = {}

    def count(self, handle: Any, info: os.stat_result) -> int:
        """Return the lines counted so far for this file, this count included."""
        key = (info.st_dev, info.st_ino)
        self._totals[key] = self._totals.get(key, 0) + super().count(handle, info)
        return self._totals[key]


@dataclass
class _Recounting(ReadContext):
    counter: LineCounter = field(default_factory=_RecountingCounter)


class _BigNotesWhole(ReadContext):
    def _notes(self, workspace: Path) -> Json:
        notes = super()._notes(workspace)
        path = self._inside(workspace, "notes.md")
        read = _notes_lines(path) if notes["truncated"] and path.stat().st_size > _MEBIBYTE else None
        if read is not None:  # the mutation: notes over 1 MiB skip the summary
            notes = {"summary": read[0], "truncated": False}
        return notes


# --- tolerance --------------------------------------------------------------------------------------


class _GenresNeedTheDefault(ReadContext):
    def _tastes(self, declared: list[str]) -> Json:
        tastes = super()._tastes(declared)
        if self.tastes_dir is not None and not (self.tastes_dir / "_default.md").exists():
            tastes["genres"], tastes["conflicts"] = {}, []
        return tastes


class _LogReadWhenItExists(ReadContext):
    def _recent_log(self, workspace: Path) -> list[Json]:
        path = self._inside(workspace, "log.jsonl")
        if not path.exists():  # the mutation: existence is checked, not readability
            return []
        records = [record for record in map(json_object, path.read_bytes().split(b"\n")) if record is not None]
        return [log_entry(record) for record in reversed(records[-RECENT:])]


class _EmptyWorkspaceUnknown(ReadContext):
    def read_context(self, image_id: object) -> Json:
        context = super().read_context(image_id)
        folder = self.workspace_root / str(image_id)
        if not any((folder / name).exists() for name in _WORKSPACE_FILES):
            raise SpecError("not_found", f"no context for image {image_id!r}")
        return context


# --- conflicts --------------------------------------------------------------------------------------


class _BlankTestedBeforeStripping(ReadContext):
    def _tastes(self, declared: list[str]) -> Json:
        tastes = super()._tastes(declared)

        def points(text: str) -> list[str]:
            return [line.strip() for line in split_lines(text) if line and not _is_comment(line.strip())]

        tastes["conflicts"] = find_conflicts(tastes["genres"], points)
        return tastes


class _DefaultTakesPartInConflicts(ReadContext):
    def _tastes(self, declared: list[str]) -> Json:
        tastes = super()._tastes(declared)
        tastes["conflicts"] = find_conflicts({"_default": tastes["default"], **tastes["genres"]}, conflict_points)
        return tastes


class _ConflictsNameTheFirstAsWinner(ReadContext):
    def _tastes(self, declared: list[str]) -> Json:
        tastes = super()._tastes(declared)
        tastes["conflicts"] = [{**entry, "keep": entry["files"][0]} for entry in tastes["conflicts"]]
        return tastes


class _ConflictsListTwoFiles(ReadContext):
    def _tastes(self, declared: list[str]) -> Json:
        tastes = super()._tastes(declared)
        tastes["conflicts"] = [{**entry, "files": entry["files"][:2]} for entry in tastes["conflicts"]]
        return tastes


class _ConflictsIgnoreCase(ReadContext):
    def _tastes(self, declared: list[str]) -> Json:
        tastes = super()._tastes(declared)
        first: dict[str, str] = {}
        for text in tastes["genres"].values():
            for point in conflict_points(text):
                first.setdefault(point.casefold(), point)
        found = find_conflicts(tastes["genres"], lambda text: [point.casefold() for point in conflict_points(text)])
        tastes["conflicts"] = [{**entry, "point": first[entry["point"]]} for entry in found]
        return tastes


# --- consequences -----------------------------------------------------------------------------------


@dataclass
class _FirstCallWithoutHistory(ReadContext):
    seen: set[str] = field(default_factory=set)

    def read_context(self, image_id: object) -> Json:
        context = super().read_context(image_id)
        if str(image_id) not in self.seen:  # the mutation: the first call only starts loading the history
            self.seen.add(str(image_id))
            context["recent_log"], context["recent_gaps"] = [], []
        return context


class _MissingNotesNull(ReadContext):
    def _notes(self, workspace: Path) -> Json | None:  # type: ignore[override]
        return super()._notes(workspace) if self._inside(workspace, "notes.md").exists() else None


class _LogsItsReads(ReadContext):
    def read_context(self, image_id: object) -> Json:
        context = super().read_context(image_id)
        line = {"timestamp": datetime.now(UTC).isoformat(), "op": "read_context"}
        with self._inside(self.workspace_root / str(image_id), "log.jsonl").open("a", encoding="utf-8") as log:
            log.write(json.dumps(line) + "\n")
        return context


# --- implementation notes ---------------------------------------------------------------------------


class _WorkspaceDefaultFirst(ReadContext):
    def read_context(self, image_id: object) -> Json:
        context = super().read_context(image_id)
        local = read_text(self._inside(self.workspace_root / str(image_id), "_default.md"))
        if local:  # the mutation: a _default.md in the workspace overrides the global one
            context["tastes"]["default"] = local
        return context


@dataclass
class _IdJoinedBeforeItIsChecked(ReadContext):
    last_workspace: Path | None = None

    def read_context(self, image_id: object) -> Json:
        # The mutation: the id becomes a path before its type is checked.
        self.last_workspace = self.workspace_root / image_id  # type: ignore[operator]
        return super().read_context(image_id)


# --- the catalogue ----------------------------------------------------------------------------------


class _TruncateAt50(ReadContext):
    def read_context(self, image_id: object) -> dict[str, Any]:
        context = super().read_context(image_id)
        try:
            text = (self.workspace_root / str(image_id) / "notes.md").read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return context
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if 40 < len(lines) <= 50:  # noqa: PLR2004 - the mutation: 50 lines instead of 40 before truncating
            context["notes"] = {"summary": text, "truncated": False}
        return context


class _LogOldestFirst(ReadContext):
    def read_context(self, image_id: object) -> dict[str, Any]:
        context = super().read_context(image_id)
        context["recent_log"] = context["recent_log"][::-1]
        return context


@mutant("read-context/summarization/threshold", "read-context/implementation-notes/notes-constants", catalogue=MUTANTS)
def notes_truncate_at_50() -> Reference:
    """The reference, except that notes of 41 to 50 lines come back whole."""
    return Reference(read_context=_TruncateAt50)


@mutant("read-context/loading-order/recent-log-newest-first", catalogue=MUTANTS)
def log_oldest_first() -> Reference:
    """The reference, except that the recent log is oldest first."""
    return Reference(read_context=_LogOldestFirst)


@mutant("read-context/loading-order/default-taste-always-loads", catalogue=MUTANTS)
def default_taste_replaced_by_genres() -> Reference:
    """The reference, except that tastes.default is empty whenever a declared genre loads."""
    return Reference(read_context=_DefaultReplacedByGenres)


@mutant(
    "read-context/loading-order/declared-genres-layer-on-top",
    "read-context/conflicts/only-genre-files",
    catalogue=MUTANTS,
)
def undeclared_genres_load() -> Reference:
    """The reference, except that every genre file in the tastes folder loads, declared or not."""
    return Reference(read_context=_EveryGenreLoads)


@mutant(
    "read-context/loading-order/conflicts-surfaced",
    "read-context/conflicts/shared-line-in-genre-files",
    catalogue=MUTANTS,
)
def conflicts_need_three_genre_files() -> Reference:
    """The reference, except that a line is a conflict only when more than two genre files share it."""
    return Reference(read_context=_ConflictsNeedThreeFiles)


@mutant(
    "read-context/loading-order/no-auto-resolve",
    "read-context/loading-order/declared-genres-layer-on-top",
    "read-context/response-shape/genres-map",
    catalogue=MUTANTS,
)
def shared_lines_kept_by_the_first_genre_only() -> Reference:
    """The reference, except that a conflicting line is removed from every genre text but the first one holding it."""
    return Reference(read_context=_FirstGenreKeepsSharedLines)


@mutant(
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
    catalogue=MUTANTS,
)
def brief_cached_by_file_name() -> Reference:
    """The reference, except that the parsed brief is cached by file name, so every image gets the first image's brief."""
    return Reference(read_context=_BriefCachedByName)


@mutant(
    "read-context/loading-order/brief-tastes-declaration",
    "read-context/response-shape/brief-tastes-list",
    "read-context/loading-order/declared-genres-layer-on-top",
    "read-context/loading-order/conflicts-surfaced",
    "read-context/loading-order/tastes-declaration-forms",
    catalogue=MUTANTS,
)
def declared_genre_names_keep_spaces() -> Reference:
    """The reference, except that the names of a Tastes: line keep the spaces around them."""
    return Reference(read_context=_DeclaredNamesKeepSpaces)


@mutant(
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
    catalogue=MUTANTS,
)
def notes_cached_by_file_name() -> Reference:
    """The reference, except that the notes summary is cached by file name, so every image gets the first image's notes."""
    return Reference(read_context=_NotesCachedByName)


@mutant("read-context/loading-order/notes-truncated-flag", catalogue=MUTANTS)
def truncated_flag_counts_a_final_break() -> Reference:
    """The reference, except that the truncated flag counts line breaks + 1 lines, so 40 lines and a final break are flagged."""
    return Reference(read_context=_FlagCountsAFinalBreakAsALine)


@mutant("read-context/loading-order/recent-log-last-10", catalogue=MUTANTS)
def log_counts_blank_lines() -> Reference:
    """The reference, except that recent_log is built from the last 10 lines of log.jsonl, blank lines included."""
    return Reference(read_context=_LogCountsBlankLines)


@mutant("read-context/loading-order/recent-gaps-last-10", catalogue=MUTANTS)
def gaps_first_10_records() -> Reference:
    """The reference, except that recent_gaps holds the first 10 records of the file instead of the last 10."""
    return Reference(read_context=_GapsFromTheTop)


@mutant("read-context/loading-order/recent-gaps-newest-first", catalogue=MUTANTS)
def gaps_sorted_by_timestamp() -> Reference:
    """The reference, except that recent_gaps is sorted by timestamp, newest first, instead of in reverse file order."""
    return Reference(read_context=_GapsSortedByTimestamp)


@mutant("read-context/response-shape/top-level-keys", catalogue=MUTANTS)
def response_echoes_image_id() -> Reference:
    """The reference, except that the response also echoes the image_id."""
    return Reference(read_context=_EchoesImageId)


@mutant(
    "read-context/response-shape/tastes-object",
    "read-context/consequences/fixed-schema",
    catalogue=MUTANTS,
)
def empty_conflicts_left_out() -> Reference:
    """The reference, except that tastes has no conflicts key when there is no conflict."""
    return Reference(read_context=_NoConflictsLeftOut)


@mutant(
    "read-context/response-shape/genres-map",
    "read-context/loading-order/declared-genres-layer-on-top",
    catalogue=MUTANTS,
)
def genres_keyed_by_file_name() -> Reference:
    """The reference, except that tastes.genres is keyed by file name ("underwater.md") instead of genre name."""
    return Reference(read_context=_GenresKeyedByFileName)


@mutant(
    "read-context/response-shape/conflict-entry",
    "read-context/conflicts/shared-line-in-genre-files",
    catalogue=MUTANTS,
)
def conflicts_per_pair_of_genres() -> Reference:
    """The reference, except that a line shared by three genre files gives one entry per pair of them."""
    return Reference(read_context=_ConflictsPerPair)


@mutant(
    "read-context/response-shape/brief-raw",
    "read-context/response-shape/structured-top-prose-body",
    catalogue=MUTANTS,
)
def brief_raw_stripped() -> Reference:
    """The reference, except that brief.raw has its surrounding whitespace stripped."""
    return Reference(read_context=_RawStripped)


@mutant("read-context/response-shape/brief-intent", catalogue=MUTANTS)
def intent_without_blank_lines() -> Reference:
    """The reference, except that brief.intent leaves out blank lines."""
    return Reference(read_context=_IntentWithoutBlankLines)


@mutant("read-context/response-shape/brief-tastes-list", catalogue=MUTANTS)
def only_loaded_genres_listed() -> Reference:
    """The reference, except that brief.tastes lists only the declared genres that have a taste file."""
    return Reference(read_context=_OnlyLoadedGenresListed)


@mutant("read-context/response-shape/notes-object", catalogue=MUTANTS)
def notes_carry_a_line_count() -> Reference:
    """The reference, except that notes also carries the summary's line count as `lines`."""
    return Reference(read_context=_NotesCountLines)


@mutant("read-context/response-shape/log-entry-shape", catalogue=MUTANTS)
def log_details_keep_timestamp_and_op() -> Reference:
    """The reference, except that a log entry's details also hold its timestamp and op."""
    return Reference(read_context=_DetailsKeepEveryKey)


@mutant("read-context/response-shape/gap-record-fields", catalogue=MUTANTS)
def gaps_take_the_requested_image_id() -> Reference:
    """The reference, except that every gap record's image_id is the requested image's, not the line's."""
    return Reference(read_context=_GapsTakeTheRequestedImageId)


@mutant("read-context/response-shape/gap-record-defaults", catalogue=MUTANTS)
def intent_category_defaults_to_empty() -> Reference:
    """The reference, except that a gap line without intent_category gets '' instead of 'uncategorized'."""
    return Reference(read_context=_IntentCategoryDefaultsToEmpty)


@mutant(
    "read-context/response-shape/structured-top-prose-body",
    "read-context/summarization/short-notes-raw",
    catalogue=MUTANTS,
)
def markdown_read_with_universal_newlines() -> Reference:
    r"""The reference, except that the markdown is read in text mode, so its \r\n line breaks come back as \n."""
    return Reference(read_context=_UniversalNewlines)


@mutant(
    "read-context/summarization/short-notes-raw",
    "read-context/response-shape/structured-top-prose-body",
    catalogue=MUTANTS,
)
def short_notes_rejoined_from_lines() -> Reference:
    r"""The reference, except that short notes are rejoined from their lines, losing the final break and any \r."""
    return Reference(read_context=_ShortNotesRejoined)


@mutant(
    "read-context/summarization/head-first-10",
    "read-context/implementation-notes/notes-constants",
    catalogue=MUTANTS,
)
def notes_head_of_9_lines() -> Reference:
    """The reference, except that the summary of long notes starts with their first 9 lines."""
    return Reference(read_context=_HeadOf9)


@mutant("read-context/summarization/elision-marker", catalogue=MUTANTS)
def marker_counts_all_but_the_head() -> Reference:
    """The reference, except that N in the elision marker is the line count minus 10 instead of minus 40."""
    return Reference(read_context=_MarkerCountsAllButTheHead)


@mutant(
    "read-context/summarization/tail-last-30",
    "read-context/implementation-notes/notes-constants",
    catalogue=MUTANTS,
)
def notes_tail_of_29_lines() -> Reference:
    """The reference, except that the summary of long notes ends with their last 29 lines."""
    return Reference(read_context=_TailOf29)


@mutant("read-context/summarization/truncated-true", catalogue=MUTANTS)
def truncated_when_the_summary_is_shorter() -> Reference:
    """The reference, except that long notes are flagged truncated only when their summary is shorter than the file."""
    return Reference(read_context=_FlagComparesLengths)


@mutant(
    "read-context/summarization/deterministic",
    "read-context/summarization/elision-marker",
    catalogue=MUTANTS,
)
def elided_count_grows_on_every_call() -> Reference:
    """The reference, except that the line counter adds a file's lines to its earlier count, so N grows on every call."""
    return Reference(read_context=_Recounting)


@mutant("read-context/tolerance/missing-files-empty", catalogue=MUTANTS)
def genres_need_the_default_taste() -> Reference:
    """The reference, except that no genre loads when _default.md is missing."""
    return Reference(read_context=_GenresNeedTheDefault)


@mutant("read-context/tolerance/unreadable-files-empty", catalogue=MUTANTS)
def log_read_whenever_it_exists() -> Reference:
    """The reference, except that log.jsonl is read whenever it exists, so a directory in its place is an error."""
    return Reference(read_context=_LogReadWhenItExists)


@mutant("read-context/tolerance/fresh-workspace", catalogue=MUTANTS)
def empty_workspace_is_unknown() -> Reference:
    """The reference, except that a workspace holding none of the four files is refused with not_found."""
    return Reference(read_context=_EmptyWorkspaceUnknown)


@mutant("read-context/conflicts/shared-line-in-genre-files", catalogue=MUTANTS)
def conflicts_list_two_genres_at_most() -> Reference:
    """The reference, except that a conflict's files names only the first two genres holding the line."""
    return Reference(read_context=_ConflictsListTwoFiles)


@mutant("read-context/conflicts/empty-lines-never-conflict", catalogue=MUTANTS)
def whitespace_lines_conflict() -> Reference:
    """The reference, except that lines are tested for emptiness before stripping, so whitespace-only lines conflict."""
    return Reference(read_context=_BlankTestedBeforeStripping)


@mutant("read-context/conflicts/only-genre-files", catalogue=MUTANTS)
def default_taste_takes_part_in_conflicts() -> Reference:
    """The reference, except that _default.md takes part in conflicts like a genre file."""
    return Reference(read_context=_DefaultTakesPartInConflicts)


@mutant(
    "read-context/conflicts/no-suggested-resolution",
    "read-context/response-shape/conflict-entry",
    catalogue=MUTANTS,
)
def conflicts_suggest_the_first_genre() -> Reference:
    """The reference, except that each conflict suggests keeping the first genre's line (a `keep` field)."""
    return Reference(read_context=_ConflictsNameTheFirstAsWinner)


@mutant("read-context/consequences/line-equality-based", catalogue=MUTANTS)
def conflicts_ignore_letter_case() -> Reference:
    """The reference, except that lines differing only in letter case conflict."""
    return Reference(read_context=_ConflictsIgnoreCase)


@mutant(
    "read-context/consequences/one-tool-call",
    "read-context/loading-order/recent-log-last-10",
    "read-context/loading-order/recent-gaps-last-10",
    catalogue=MUTANTS,
)
def first_call_without_history() -> Reference:
    """The reference, except that the first call for an image returns recent_log and recent_gaps empty."""
    return Reference(read_context=_FirstCallWithoutHistory)


@mutant(
    "read-context/consequences/fixed-schema",
    "read-context/response-shape/notes-object",
    catalogue=MUTANTS,
)
def missing_notes_are_null() -> Reference:
    """The reference, except that notes is null instead of the empty struct when notes.md is missing."""
    return Reference(read_context=_MissingNotesNull)


@mutant("read-context/consequences/markdown-stays-human-edited", catalogue=MUTANTS)
def reads_are_logged() -> Reference:
    """The reference, except that every call appends a read_context entry to the image's log.jsonl."""
    return Reference(read_context=_LogsItsReads)


@mutant(
    "read-context/consequences/size-bounded",
    "read-context/summarization/threshold",
    catalogue=MUTANTS,
)
def notes_over_1_mib_come_back_whole() -> Reference:
    """The reference, except that notes files over 1 MiB come back whole instead of summarized."""
    return Reference(read_context=_BigNotesWhole)


@mutant("read-context/implementation-notes/tool-name", catalogue=MUTANTS)
def non_string_image_id_crashes() -> Reference:
    """The reference, except that image_id is joined to a path before its type is checked, so a non-string id crashes."""
    return Reference(read_context=_IdJoinedBeforeItIsChecked)


@mutant(
    "read-context/implementation-notes/notes-constants",
    "read-context/summarization/head-first-10",
    "read-context/summarization/tail-last-30",
    catalogue=MUTANTS,
)
def notes_head_and_tail_swapped() -> Reference:
    """The reference, except that the head and tail constants are swapped: 30 lines, the marker, then 10."""
    return Reference(read_context=_HeadAndTailSwapped)


@mutant("read-context/implementation-notes/global-tastes-folder", catalogue=MUTANTS)
def workspace_default_taste_overrides() -> Reference:
    """The reference, except that a _default.md in the image's workspace replaces the global one."""
    return Reference(read_context=_WorkspaceDefaultFirst)
