"""A permissive twin of ADR-059 (read_context), written from the document alone.

It reads every file in text mode (UTF-8, invalid bytes replaced, universal newlines), keeps nothing between calls,
and wherever the text allows more than one behaviour it takes the one the reference does not: see `LIBERTIES`.
"""

from __future__ import annotations

import json
import os
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, Final

from twins._protocol import Json, Liberty, Refusal
from twins._protocol import Twin as ProtocolTwin

__all__ = ["LIBERTIES", "Twin"]

HEAD: Final = 10
TAIL: Final = 30
THRESHOLD: Final = HEAD + TAIL
RECENT: Final = 10
DECLARATION: Final = "Tastes:"
UNSAFE_NAME: Final = ("/", "\\", "\x00")
NULLABLE_GAP_FIELDS: Final = ("session_id", "snapshot_hash", "intent", "missing_capability")
SATISFACTION: Final = (-1, 0, 1)
IDS: Final = ("timestamp", "image_id")

LIBERTIES: tuple[Liberty, ...] = (
    Liberty(
        what="Every file is read in text mode with universal newlines: \\r\\n (and a lone \\r) come back as \\n in "
        "tastes.default, tastes.genres, brief.raw, brief.intent and notes.summary.",
        allowed_by="'Agent reads tastes/brief/notes as markdown' (registry response-shape/markdown-line-breaks, second "
        "reading: the origin's raw is the file read with read_text, which does the same)",
    ),
    Liberty(
        what="Taste texts (tastes.default and each tastes.genres value) come back with their surrounding whitespace "
        "(leading and trailing blank lines, spaces and the final line break) removed.",
        allowed_by='\'"default": "<text>",\' (registry response-shape/taste-text-whitespace, second reading: '
        "unlike brief.raw and short notes, taste texts are not called raw)",
    ),
    Liberty(
        what="Bytes that are not UTF-8 are replaced with U+FFFD and the rest of the file is used as usual.",
        allowed_by="'missing/unreadable files.' (registry tolerance/non-utf8-files, second reading)",
    ),
    Liberty(
        what="The response's keys come in reverse loading order (recent_gaps, recent_log, notes, brief, tastes), and the "
        "keys of tastes, brief and notes in reverse order of the document's example too.",
        allowed_by="'The agent's first turn always reads in this order' "
        "(registry loading-order/response-key-order, second reading: key order is not significant)",
    ),
    Liberty(
        what="Only a line starting with exactly 'Tastes:' declares genres; 'tastes:' and 'TASTES:' lines stay in intent, "
        "and brackets and quotes stay part of the names.",
        allowed_by="'declared inbrief.md'sTastes:line' (registry loading-order/tastes-declaration-forms, second reading)",
    ),
    Liberty(
        what="With several Tastes: lines the first one declares the genres; every declaration line leaves intent.",
        allowed_by="'Tastes:declarations +intent' (registry loading-order/multiple-tastes-lines, third reading)",
    ),
    Liberty(
        what="brief.intent keeps its surrounding whitespace: it is brief.md with the declaration lines taken out, "
        "final line break included.",
        allowed_by='\'"intent": "<everything except Tastes: line>"\' (registry response-shape/brief-intent, '
        "which compares intent with surrounding whitespace removed)",
    ),
    Liberty(
        what="A declared genre without a taste file (missing, unreadable, or a name that cannot be a file in the tastes "
        "folder) or with an empty one is in tastes.genres with the text ''.",
        allowed_by="'Every loader returns an empty struct' (registry tolerance/missing-genre-file, second reading)",
    ),
    Liberty(
        what="Only one-line HTML comments (<!-- ... -->) are comment lines for conflicts: shared markdown headings conflict.",
        allowed_by="'When a non-comment' (registry conflicts/comment-lines, second reading)",
    ),
    Liberty(
        what="Conflicting lines are compared exactly as written, surrounding whitespace included, and point is the line "
        "as written.",
        allowed_by="'tastes.conflicts gets a {point, files} entry.' (registry conflicts/surrounding-whitespace, second reading)",
    ),
    Liberty(
        what="A conflict's files are file names ('underwater.md'), in reverse alphabetical order, and the conflicts are "
        "in reverse alphabetical order of their point.",
        allowed_by='\'Conflicts (same line in two genre files)\' and \'"conflicts": [{"point": "<line>", "files": '
        '["a", "b"]}, ...]\': the document orders neither (registry response-shape/conflict-entry)',
    ),
    Liberty(
        what="Notes of more than 40 lines keep the file's final line break after the last 30 lines.",
        allowed_by="'then last 30 lines.' (registry summarization/tail-last-30: the final break may be kept)",
    ),
    Liberty(
        what="A malformed JSONL line (not a JSON object) is skipped but still counts among the last 10 lines: the list "
        "holds the well-formed entries among the last 10 non-blank lines.",
        allowed_by="'returns an empty struct on missing/unreadable files' (registry tolerance/malformed-jsonl-lines, "
        "second reading)",
    ),
    Liberty(
        what="A log line without a string timestamp or op gives null for it, not ''.",
        allowed_by='\'"recent_log": [{"timestamp": "...", "op": "...", "details": {}}, ...]\' '
        "(registry response-shape/log-entry-missing-fields, second reading)",
    ),
    Liberty(
        what="Gap records carry no workaround field, and a line lacking timestamp, image_id or description gives ''.",
        allowed_by='\'"description": "...", "session_id": null\' (registry response-shape/gap-workaround, first '
        "reading); the document gives no default for the required fields",
    ),
    Liberty(
        what="Gap records, log entries and details list their keys in alphabetical order, not the document's or the line's.",
        allowed_by='\'"timestamp": "...", "image_id": "...", "description": "...",\': JSON objects are '
        "unordered and the document gives a shape, not a serialization",
    ),
    Liberty(
        what="An image_id naming no workspace (unknown, removed, path-like, or a symlink out of the root) gets the "
        "fresh-workspace response with the global _default.md, never an error; nothing outside the root is read.",
        allowed_by="'The agent's first turn must work on a fresh workspace' "
        "(registry tolerance/unknown-image-id, second reading)",
    ),
    Liberty(
        what="Newest first is by timestamp: the last 10 entries (and gap records) are ordered latest timestamp first, "
        "entries without an ISO 8601 timestamp after them.",
        allowed_by="'<workspace>/log.jsonl, newest first.' and '<workspace>/vocabulary_gaps.jsonl, newest first.' "
        "(registry loading-order/recent-log-newest-first and recent-gaps-newest-first: 'the one with the latest timestamp')",
    ),
    Liberty(
        what="A log entry's details are the line's own details object ({} when it has none), not its other keys.",
        allowed_by='\'"recent_log": [{"timestamp": "...", "op": "...", "details": {}}, ...]\' '
        "(registry response-shape/log-entry-shape, second reading)",
    ),
    Liberty(
        what="Arguments besides image_id are ignored, not refused.",
        allowed_by="'calls read_context(image_id)': the document names one argument and says nothing of others "
        "(registry implementation-notes/extra-arguments, second reading)",
    ),
)


def read_text(path: Path) -> str:
    """A regular file's text as UTF-8 with invalid bytes replaced and universal newlines; '' when it cannot be read."""
    try:
        with path.open("rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return ""
            data = handle.read()
    except (OSError, ValueError):
        return ""
    return data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")


def lines_of(text: str) -> list[str]:
    """A text's lines; a final line break starts no line."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def inside(folder: Path, path: Path) -> bool:
    """Whether `path`, symlinks followed, is directly inside `folder`."""
    try:
        return path.resolve().parent == folder.resolve()
    except (OSError, RuntimeError, ValueError):
        return False


def plain_name(name: str) -> bool:
    """Whether `name` can only name an entry of one folder: no separator, no NUL, not '.' or '..'."""
    return bool(name) and name not in (".", "..") and not any(mark in name for mark in UNSAFE_NAME)


class Twin(ProtocolTwin):
    """read-context: read_context(image_id) over a workspace root and a global tastes folder."""

    spec: ClassVar[str] = "read-context"
    version: ClassVar[str] = "ADR-059"
    features: ClassVar[tuple[str, ...]] = ()

    root: Path
    tastes_dir: Path

    def open(self, state_dir: Path, options: Json) -> None:
        """Use the workspace root and tastes folder the start options name."""
        self.root = Path(options.get("workspace_root") or state_dir / "read-context" / "workspaces")
        self.tastes_dir = Path(options.get("tastes_dir") or state_dir / "read-context" / "tastes")

    def call(self, op: str, args: Any, context: Json) -> Json:
        """Carry out read_context; other arguments than image_id are ignored."""
        del context
        if op != "read_context":
            raise Refusal("UNKNOWN_OP", f"read-context has no operation {op!r}")
        image_id = args.get("image_id") if isinstance(args, dict) else None
        if not isinstance(image_id, str):
            raise Refusal("INVALID_REQUEST", "read_context takes image_id, a string")
        workspace = self.workspace(image_id)
        brief = self.brief(workspace)
        return {
            "recent_gaps": [gap_record(line) for line in self.recent(workspace, "vocabulary_gaps.jsonl")],
            "recent_log": [log_entry(line) for line in self.recent(workspace, "log.jsonl")],
            "notes": summarize(self.file(workspace, "notes.md")),
            "brief": brief,
            "tastes": self.tastes(brief["tastes"]),
        }

    def workspace(self, image_id: str) -> Path | None:
        """The image's workspace folder, or None when the id names none inside the root."""
        if not plain_name(image_id):
            return None
        folder = self.root / image_id
        try:
            return folder if inside(self.root, folder) and folder.is_dir() else None
        except (OSError, ValueError):
            return None

    def file(self, workspace: Path | None, name: str) -> str:
        """The text of one workspace file; '' for a fresh workspace or a file leading out of it."""
        if workspace is None or not inside(workspace, workspace / name):
            return ""
        return read_text(workspace / name)

    def brief(self, workspace: Path | None) -> Json:
        """brief.md as {raw, intent, tastes}: the first plain 'Tastes:' line declares, every one leaves intent."""
        raw = self.file(workspace, "brief.md")
        declared: list[str] | None = None
        kept = []
        for line in raw.split("\n"):
            if not line.startswith(DECLARATION):
                kept.append(line)
            elif declared is None:
                names = (name.strip() for name in line.removeprefix(DECLARATION).split(","))
                declared = list(dict.fromkeys(name for name in names if name))
        return {"tastes": declared or [], "intent": "\n".join(kept), "raw": raw}

    def tastes(self, declared: list[str]) -> Json:
        """_default.md and the declared genres, trimmed; conflicts found on the files as read."""
        texts = {genre: self.taste(genre) for genre in declared}
        return {
            "conflicts": conflicts(texts),
            "genres": {genre: text.strip() for genre, text in texts.items()},
            "default": self.taste("_default").strip(),
        }

    def taste(self, name: str) -> str:
        """The text of `<name>.md` in the tastes folder; '' when the name could lead out of it."""
        path = self.tastes_dir / f"{name}.md"
        return read_text(path) if plain_name(name) and inside(self.tastes_dir, path) else ""

    def recent(self, workspace: Path | None, name: str) -> list[Json]:
        """The JSON objects among the last 10 non-blank lines of a JSONL file, newest first."""
        lines = [line for line in lines_of(self.file(workspace, name)) if line.strip()]
        found = [found for found in map(json_object, lines[-RECENT:]) if found is not None]
        return sorted(found, key=timestamp_key, reverse=True)


def summarize(text: str) -> Json:
    """Notes of at most 40 lines as read; longer ones as 10 lines, the marker and 30 lines, the final break kept."""
    lines = lines_of(text) if text else []
    if len(lines) <= THRESHOLD:
        return {"truncated": False, "summary": text}
    marker = f"\n\n... [{len(lines) - THRESHOLD} lines elided] ...\n\n"
    final = "\n" if text.endswith("\n") else ""
    return {"truncated": True, "summary": "\n".join(lines[:HEAD]) + marker + "\n".join(lines[-TAIL:]) + final}


def is_comment(line: str) -> bool:
    """A one-line HTML comment, the only comment markdown has."""
    stripped = line.strip()
    return stripped.startswith("<!--") and stripped.endswith("-->")


def conflicts(texts: dict[str, str]) -> list[Json]:
    """Lines, exactly as written, found in two or more genre texts; files named as files, newest point first."""
    holders: dict[str, set[str]] = {}
    for genre, text in texts.items():
        for line in set(text.split("\n")):
            if line.strip() and not is_comment(line):
                holders.setdefault(line, set()).add(genre)
    shared = sorted(((point, genres) for point, genres in holders.items() if len(genres) >= 2), reverse=True)
    return [{"files": sorted((f"{genre}.md" for genre in genres), reverse=True), "point": point} for point, genres in shared]


def timestamp_key(line: Json) -> tuple[bool, datetime]:
    """A line's place by timestamp: those with an ISO 8601 timestamp first when sorted in reverse (no zone is UTC)."""
    value = line.get("timestamp")
    try:
        parsed = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        parsed = None
    if parsed is None:
        return (False, datetime.min.replace(tzinfo=UTC))
    return (True, parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC))


def refuse_constant(name: str) -> Any:
    """NaN and infinities are not JSON."""
    raise ValueError(name)


def json_object(line: str) -> Json | None:
    """One line as a JSON object; None when it is not one."""
    try:
        found = json.loads(line, parse_constant=refuse_constant)
    except (ValueError, RecursionError):
        return None
    return found if isinstance(found, dict) else None


def log_entry(line: Json) -> Json:
    """{details, op, timestamp}: details the line's own object, timestamp and op null when the line has no string for them."""
    timestamp, op = line.get("timestamp"), line.get("op")
    return {
        "details": dict(sorted(own.items())) if isinstance(own := line.get("details"), dict) else {},
        "op": op if isinstance(op, str) else None,
        "timestamp": timestamp if isinstance(timestamp, str) else None,
    }


def gap_record(line: Json) -> Json:
    """The ADR's record, keys in alphabetical order, the ADR's defaults for what the line lacks or mistypes."""
    record: Json = {field: text_or(line.get(field), "") for field in ("description", "notes")}
    record |= {field: None if field in line and line[field] is None else text_or(line.get(field), "") for field in IDS}
    record |= {field: text_or(line.get(field), None) for field in NULLABLE_GAP_FIELDS}
    record["intent_category"] = text_or(line.get("intent_category"), "uncategorized")
    for field in ("operations_involved", "vocabulary_used"):
        value = line.get(field)
        record[field] = value if isinstance(value, list) and all(isinstance(item, str) for item in value) else []
    satisfaction = line.get("satisfaction")
    record["satisfaction"] = satisfaction if type(satisfaction) is int and satisfaction in SATISFACTION else None
    return dict(sorted(record.items()))


def text_or(value: object, default: str | None) -> str | None:
    """`value` when it is a string, else `default`."""
    return value if isinstance(value, str) else default
