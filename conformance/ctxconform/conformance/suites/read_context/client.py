"""A read-context workspace as a test sees it: files written to disk, read_context called, replies read through checks."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path
from typing import Any, Final

from ctxconform.conformance.suites.read_context import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.testing import (
    Checked,
    Client,
    Implementation,
    Operation,
    Operations,
    RequirementId,
    check,
    check_in,
    unique_hex,
)

__all__ = [
    "FRESH",
    "GAP_DEFAULTS",
    "OPERATIONS",
    "SPEC",
    "ReadContextClient",
    "Workspace",
    "as_text",
    "check_line_breaks",
    "check_repeats",
    "check_taste_whitespace",
    "conflicts_of",
    "fresh_workspace",
    "gap_core",
    "genre_texts",
    "jsonl",
    "log_details",
    "log_entry",
    "newest_first",
    "origin_details",
    "raw_of",
    "same_text",
    "taste_text",
    "taste_texts",
    "within_limits",
]

SPEC: Final = "read-context"
Json = dict[str, Any]

# fixed-schema's own note: "the suite validates every response against the one schema of the result"; tool-name says
# that arguments other than {image_id: string} get a spec error, so it owns the shape of error objects.
OPERATIONS: Final = Operations(
    spec=SPEC,
    table={
        "read_context": Operation(requirement=R.CONSEQUENCES_FIXED_SCHEMA, schema=f"{SPEC}/read_context.response.json"),
    },
    error_schema=f"{SPEC}/error.json",
    error_requirement=R.IMPLEMENTATION_NOTES_TOOL_NAME,
)

# The whole response for a workspace with none of the four files and no taste files (tolerance/fresh-workspace).
FRESH: Final[Json] = {
    "tastes": {"default": "", "genres": {}, "conflicts": []},
    "brief": {"raw": "", "intent": "", "tastes": []},
    "notes": {"summary": "", "truncated": False},
    "recent_log": [],
    "recent_gaps": [],
}

# The ADR's defaults for a gap record's optional fields (response-shape/gap-record-defaults).
GAP_DEFAULTS: Final[Json] = {
    "session_id": None,
    "snapshot_hash": None,
    "intent": None,
    "intent_category": "uncategorized",
    "missing_capability": None,
    "operations_involved": [],
    "vocabulary_used": [],
    "satisfaction": None,
    "notes": "",
}


class ReadContextClient(Client):
    """The one operation of read-context."""

    def read_context(self, args: object, *, serves: str | None = None) -> Checked:
        """Call read_context with any arguments."""
        return self.call("read_context", args, serves=serves)


class Workspace:
    """One test's image workspace and the (global, emptied when a workspace is made) tastes folder."""

    def __init__(self, implementation: Implementation) -> None:
        folders = implementation.options[SPEC]
        self.client = ReadContextClient(implementation, OPERATIONS)
        self.root = Path(folders["workspace_root"])
        self.tastes_dir = Path(folders["tastes_dir"])
        self.image_id = f"img-{unique_hex(12)}"
        self.folder = self.root / self.image_id
        self.folder.mkdir(parents=True)
        shutil.rmtree(self.tastes_dir, ignore_errors=True)
        self.tastes_dir.mkdir(parents=True)

    def write(self, name: str, content: str | bytes) -> Path:
        """Write a workspace file (brief.md, notes.md, log.jsonl, vocabulary_gaps.jsonl)."""
        path = self.folder / name
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        return path

    def taste(self, genre: str, content: str | bytes) -> Path:
        """Write a tastes file: `_default` or a genre name."""
        path = self.tastes_dir / f"{genre}.md"
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        return path

    def read(self, requirement: str, image_id: object = None) -> Checked:
        """Call read_context for this workspace's image (or another id), serving `requirement`."""
        args = {"image_id": self.image_id if image_id is None else image_id}
        return self.client.read_context(args, serves=requirement)

    def context(self, requirement: str) -> Json:
        """The schema-checked context of this workspace's image; a refusal fails `requirement`."""
        result: Json = self.read(requirement).expect(requirement)
        return result

    def answered(self, requirement: str) -> Json:
        """The context, for a requirement that says "never an error": the call being answered is its held check."""
        checked = self.read(requirement)
        answer = checked.raw if checked.ok else {"error": checked.error}
        check(requirement, checked.ok, "read_context was refused where the spec requires a result", received=answer)
        result: Json = checked.expect(requirement)
        return result

    def remove(self) -> None:
        """Delete the workspace folder."""
        shutil.rmtree(self.folder, ignore_errors=True)


@contextmanager
def fresh_workspace(implementation: Implementation) -> Iterator[Workspace]:
    """A workspace for one example of a property test (the `workspace` fixture is per test, not per example)."""
    created = Workspace(implementation)
    try:
        yield created
    finally:
        created.remove()


def jsonl(records: list[Json]) -> str:
    """One JSON object per line."""
    return "".join(json.dumps(record) + "\n" for record in records)


def raw_of(checked: Checked, requirement: str) -> Any:
    """The result as sent, for a check made before the schema's; a refusal fails `requirement`."""
    if not checked.ok:
        checked.expect(requirement)
    return checked.raw


# The schema bounds both lists at 10 too: a test of a limit looks at the raw lists first, so that a longer list
# fails the limit's own requirement rather than the schema's.
LIMITS: Final[dict[str, RequirementId]] = {
    "recent_log": R.LOADING_ORDER_RECENT_LOG_LAST_10,
    "recent_gaps": R.LOADING_ORDER_RECENT_GAPS_LAST_10,
}


def within_limits(checked: Checked, requirement: str, *pieces: str) -> Json:
    """The context, after checking on the raw reply that each of `pieces` holds at most 10 entries."""
    raw = raw_of(checked, requirement)
    for piece in pieces:
        items = raw.get(piece) if isinstance(raw, dict) else None
        if isinstance(items, list):
            check(LIMITS[piece], len(items) <= 10, f"{piece} holds more than 10 entries", received=len(items), expected="<= 10")
    result: Json = checked.expect(requirement)
    return result


def check_repeats(checked: Checked, requirement: str) -> Json:
    """The context, after checking on the raw reply (before the schema) that no conflict repeats a genre or a line."""
    raw = raw_of(checked, requirement)
    tastes = raw.get("tastes") if isinstance(raw, dict) else None
    conflicts = tastes.get("conflicts") if isinstance(tastes, dict) else None
    entries = [entry for entry in conflicts or [] if isinstance(entry, dict)]
    points = [json.dumps(entry.get("point")) for entry in entries]
    check(requirement, len(set(points)) == len(points), "two conflict entries for one line", received=conflicts)
    for entry in entries:
        files = entry.get("files")
        names = [str(name).removesuffix(".md") for name in files] if isinstance(files, list) else []
        check(requirement, len(set(names)) == len(names), "a conflict lists a genre more than once", received=entry)
    result: Json = checked.expect(requirement)
    return result


def conflicts_of(context: Json, requirement: str) -> dict[str, frozenset[str]]:
    """tastes.conflicts as {point: genres}, file names "x.md" read as genre "x"; fails `requirement` on a repeat.

    A conflict names each genre once, and a line gives one entry: a repeated genre or point fails the conflicts
    requirement the test checks, which both conflict-entry and shared-line-in-genre-files spell out.
    """
    found: dict[str, frozenset[str]] = {}
    conflicts = context["tastes"]["conflicts"]
    for entry in conflicts:
        names = [name.removesuffix(".md") for name in entry["files"]]
        check(requirement, entry["point"] not in found, "two conflict entries for one line", received=conflicts)
        check(requirement, len(set(names)) == len(names), "a conflict lists a genre more than once", received=entry)
        found[entry["point"]] = frozenset(names)
    return found


def as_text(text: Any) -> Any:
    r"""A text as read in text mode, \r\n and a lone \r as \n: how breaks come back is markdown-line-breaks' alone."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if isinstance(text, str) else text


def same_text(found: object, written: str) -> bool:
    """Whether `found` is the text `written`, line breaks aside (markdown-line-breaks)."""
    return isinstance(found, str) and as_text(found) == as_text(written)


def taste_text(text: Any) -> Any:
    r"""A taste text as compared: breaks read as \n, surrounding whitespace removed (taste-text-whitespace's alone)."""
    return as_text(text).strip() if isinstance(text, str) else text


def taste_texts(texts: Json) -> Json:
    """Taste texts by genre, keys as they are, each as taste_text compares it."""
    return {name: taste_text(text) for name, text in texts.items()}


def check_line_breaks(found: object, written: str, what: str) -> None:
    r"""A markdown text's line breaks follow a reading of markdown-line-breaks: as written, or \r\n and \r read as \n."""
    check_in(R.RESPONSE_SHAPE_MARKDOWN_LINE_BREAKS, found, list(dict.fromkeys([written, as_text(written)])), what)


def check_taste_whitespace(found: object, written: str, what: str) -> None:
    """A taste text keeps its surrounding whitespace or has it removed (taste-text-whitespace), line breaks aside."""
    text = as_text(written)
    forms = [text, text.strip(), text.lstrip(), text.rstrip()]
    check_in(R.RESPONSE_SHAPE_TASTE_TEXT_WHITESPACE, as_text(found), list(dict.fromkeys(forms)), what)


def genre_texts(genres: Json) -> Json:
    """tastes.genres keyed by genre name, a file name "x.md" read as "x": how keys are spelled is genres-map's alone."""
    return {name.removesuffix(".md"): text for name, text in genres.items()}


def gap_core(record: Json, workaround: str = "") -> Json:
    """A gap record without `workaround`, after checking it follows a reading of gap-workaround (absent, or the line's)."""
    check(
        R.RESPONSE_SHAPE_GAP_WORKAROUND,
        record.get("workaround", workaround) == workaround,
        "a gap record's workaround is not the line's",
        received=record,
        expected={"workaround": workaround},
    )
    return {key: value for key, value in record.items() if key != "workaround"}


def log_entry(line: Json) -> Json:
    """The log entry a line becomes under the origin's reading of details: every key besides timestamp and op."""
    details = {key: value for key, value in line.items() if key not in ("timestamp", "op")}
    return {"timestamp": line.get("timestamp", ""), "op": line.get("op", ""), "details": details}


def log_details(line: Json) -> list[Json]:
    """What a line's details may be (log-entry-shape's readings): every other key, or the line's own details object."""
    own = line.get("details")
    return [log_entry(line)["details"], own if isinstance(own, dict) else {}]


def origin_details(items: list[Json], lines: Sequence[Json]) -> list[Json]:
    """The entries, each whose details are its line's own details object given the origin's details instead.

    A line is found by its timestamp and op (a missing one read as ''), which the suite's lines never share.
    """
    shaped: list[Json] = []
    for item in items:
        key = (item.get("timestamp") or "", item.get("op") or "")
        line = next((ln for ln in lines if (ln.get("timestamp", ""), ln.get("op", "")) == key), None)
        if line is not None and item.get("details") == log_details(line)[1]:
            item = {**item, "details": log_entry(line)["details"]}
        shaped.append(item)
    return shaped


def _timestamp(item: Any) -> datetime | None:
    """An entry's timestamp as a time, when it is an ISO 8601 string (no zone read as UTC)."""
    value = item.get("timestamp") if isinstance(item, dict) else None
    try:
        parsed = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None
    return parsed if parsed is None or parsed.tzinfo else parsed.replace(tzinfo=UTC)


def newest_first(items: list[Json], expected: list[Json]) -> bool:
    """Whether `items` are `expected` (reverse file order) newest first under a reading of recent-*-newest-first.

    Either exactly in reverse file order, or the same entries ordered by timestamp: no entry has an older timestamp
    than one after it (entries whose timestamps are equal, missing or not ISO 8601 may come in any order).
    """
    if items == expected:
        return True
    if sorted(json.dumps(item, sort_keys=True) for item in items) != sorted(json.dumps(e, sort_keys=True) for e in expected):
        return False
    stamps = [stamp for stamp in map(_timestamp, items) if stamp is not None]
    return all(newer >= older for newer, older in pairwise(stamps))
