"""Mutants of the section "Response shape": the keys, types and order of what read_context returns."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path
from typing import Final

from ctxconform.reference.read_context import ReadContext, split_lines
from ctxconform.reference.read_context.mutants._base import CATALOGUE, Json

__all__ = [
    "BriefRawStripped",
    "ConflictsPerPairOfGenres",
    "CrlfReadAsTwoBreaks",
    "EmptyConflictsLeftOut",
    "GapListsBuiltWithList",
    "GapTextFieldsReadWithStr",
    "GapsTakeTheRequestedImageId",
    "GenreNamesLowerCased",
    "GenresKeyedByFileName",
    "IntentCategoryDefaultsToEmpty",
    "IntentWithoutBlankLines",
    "LogDetailsKeepTimestampAndOp",
    "LogFieldsReadWithStr",
    "NotesCarryALineCount",
    "OnlyLoadedGenresListed",
    "ResponseEchoesImageId",
]


@CATALOGUE.mutant("read-context/response-shape/top-level-keys")
class ResponseEchoesImageId(ReadContext):
    """The reference, except that the response also echoes the image_id."""

    def read_context(self, image_id: object) -> Json:
        return {**super().read_context(image_id), "image_id": image_id}


@CATALOGUE.mutant(
    "read-context/response-shape/tastes-object",
    "read-context/consequences/fixed-schema",
)
class EmptyConflictsLeftOut(ReadContext):
    """The reference, except that tastes has no conflicts key when there is no conflict."""

    def tastes(self, declared: list[str]) -> Json:
        tastes = super().tastes(declared)
        if not tastes["conflicts"]:
            del tastes["conflicts"]
        return tastes


@CATALOGUE.mutant(
    "read-context/response-shape/genres-map",
    "read-context/loading-order/declared-genres-layer-on-top",
)
class GenresKeyedByFileName(ReadContext):
    """The reference, except that tastes.genres is keyed by file name ("underwater.md") instead of genre name."""

    def tastes(self, declared: list[str]) -> Json:
        tastes = super().tastes(declared)
        tastes["genres"] = {f"{genre}.md": text for genre, text in tastes["genres"].items()}
        return tastes


@CATALOGUE.mutant(
    "read-context/response-shape/conflict-entry",
    "read-context/conflicts/shared-line-in-genre-files",
)
class ConflictsPerPairOfGenres(ReadContext):
    """The reference, except that a line shared by three genre files gives one entry per pair of them."""

    def tastes(self, declared: list[str]) -> Json:
        tastes = super().tastes(declared)
        tastes["conflicts"] = [
            {"point": entry["point"], "files": list(pair)}
            for entry in tastes["conflicts"]
            for pair in combinations(entry["files"], 2)
        ]
        return tastes


@CATALOGUE.mutant(
    "read-context/response-shape/brief-raw",
    "read-context/response-shape/structured-top-prose-body",
)
class BriefRawStripped(ReadContext):
    """The reference, except that brief.raw has its surrounding whitespace stripped."""

    def brief(self, workspace: Path) -> Json:
        brief = super().brief(workspace)
        brief["raw"] = brief["raw"].strip()
        return brief


@CATALOGUE.mutant("read-context/response-shape/brief-intent")
class IntentWithoutBlankLines(ReadContext):
    """The reference, except that brief.intent leaves out blank lines."""

    def brief(self, workspace: Path) -> Json:
        brief = super().brief(workspace)
        brief["intent"] = "\n".join(line for line in brief["intent"].split("\n") if line.strip())
        return brief


@CATALOGUE.mutant("read-context/response-shape/brief-tastes-list")
class OnlyLoadedGenresListed(ReadContext):
    """The reference, except that brief.tastes lists only the declared genres that have a taste file."""

    def read_context(self, image_id: object) -> Json:
        context = super().read_context(image_id)
        loaded = context["tastes"]["genres"]
        context["brief"]["tastes"] = [genre for genre in context["brief"]["tastes"] if genre in loaded]
        return context


@CATALOGUE.mutant("read-context/response-shape/notes-object", name="notes_carry_a_line_count")
class NotesCarryALineCount(ReadContext):
    """The reference, except that notes also carries the summary's line count as `lines`."""

    def notes(self, workspace: Path) -> Json:
        notes = super().notes(workspace)
        return {**notes, "lines": len(split_lines(notes["summary"]))}


@CATALOGUE.mutant("read-context/response-shape/log-entry-shape")
class LogDetailsKeepTimestampAndOp(ReadContext):
    """The reference, except that a log entry's details also hold its timestamp and op."""

    def log_entry(self, record: Json) -> Json:
        return {**super().log_entry(record), "details": dict(record)}


@CATALOGUE.mutant("read-context/response-shape/gap-record-fields")
class GapsTakeTheRequestedImageId(ReadContext):
    """The reference, except that every gap record's image_id is the requested image's, not the line's."""

    def read_context(self, image_id: object) -> Json:
        context = super().read_context(image_id)
        for record in context["recent_gaps"]:
            record["image_id"] = image_id
        return context


@CATALOGUE.mutant("read-context/response-shape/gap-record-defaults")
class IntentCategoryDefaultsToEmpty(ReadContext):
    """The reference, except that a gap line without intent_category gets '' instead of 'uncategorized'."""

    def gap(self, record: Json) -> Json:
        return {**super().gap(record), **({} if "intent_category" in record else {"intent_category": ""})}


def _doubled(text: str) -> str:
    r"""What a byte-wise \r -> \n translation does to a file's \r\n line breaks."""
    return text.replace("\r\n", "\n\n")


@CATALOGUE.mutant(
    "read-context/loading-order/default-taste-always-loads",
    "read-context/summarization/short-notes-raw",
    "read-context/response-shape/brief-raw",
)
class CrlfReadAsTwoBreaks(ReadContext):
    r"""The reference, except that each \r\n of the markdown is translated byte by byte into two line breaks.

    Every markdown text changes, brief.raw too: a blank line is added after each line, which no reading of
    markdown-line-breaks allows, so the brief is no longer the file's "<full markdown>" (brief-raw).
    """

    def read_context(self, image_id: object) -> Json:
        context = super().read_context(image_id)
        tastes, brief, notes = context["tastes"], context["brief"], context["notes"]
        tastes["default"] = _doubled(tastes["default"])
        tastes["genres"] = {genre: _doubled(text) for genre, text in tastes["genres"].items()}
        brief["raw"], notes["summary"] = _doubled(brief["raw"]), _doubled(notes["summary"])
        return context


@CATALOGUE.mutant(
    "read-context/response-shape/log-entry-missing-fields",
    "read-context/response-shape/log-entry-shape",
    edge="stored-records",
)
class LogFieldsReadWithStr(ReadContext):
    """The reference, except that a log line's timestamp and op are read with str(), so null becomes "None", a list its repr."""

    def log_entry(self, record: Json) -> Json:
        entry = super().log_entry(record)
        entry["timestamp"], entry["op"] = str(record.get("timestamp", "")), str(record.get("op", ""))
        return entry


_TEXT_FIELDS: Final = ("description", "intent_category", "notes")


@CATALOGUE.mutant("read-context/response-shape/gap-record-fields", edge="stored-records")
class GapTextFieldsReadWithStr(ReadContext):
    """The reference, except that a gap line's description, intent_category and notes are read with str(), so null is "None"."""

    def gap(self, record: Json) -> Json:
        shaped = super().gap(record)
        shaped |= {field: str(record[field]) for field in _TEXT_FIELDS if field in record}
        return shaped


@CATALOGUE.mutant("read-context/response-shape/gap-record-fields", edge="stored-records")
class GapListsBuiltWithList(ReadContext):
    """The reference, except that operations_involved and vocabulary_used are built with list(), so "mask" gives its letters."""

    def gap(self, record: Json) -> Json:
        shaped = super().gap(record)
        for field in ("operations_involved", "vocabulary_used"):
            value = record.get(field)
            if isinstance(value, str | dict):  # list() of a number raises; a string or an object iterates
                shaped[field] = list(value)
        return shaped


@CATALOGUE.mutant(
    "read-context/response-shape/genres-map",
    "read-context/loading-order/declared-genres-layer-on-top",
    edge="identifiers",
)
class GenreNamesLowerCased(ReadContext):
    """The reference, except that declared genre names are lower-cased, so Portrait and portrait are one genre."""

    def tastes(self, declared: list[str]) -> Json:
        return super().tastes(list(dict.fromkeys(name.lower() for name in declared)))
