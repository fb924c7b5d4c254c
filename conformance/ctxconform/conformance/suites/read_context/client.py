"""A read-context workspace as a test sees it: files written to disk, read_context called, results checked."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance._outcome import CheckedReply
from ctxconform.conformance._schemas import schema_errors
from ctxconform.conformance._unique import unique_hex
from ctxconform.conformance.exceptions import RequirementFailure

__all__ = [
    "FRESH",
    "GAP_DEFAULTS",
    "SPEC",
    "Outcome",
    "Workspace",
    "conflicts_of",
    "fresh_workspace",
    "gap_core",
    "jsonl",
    "limited_context",
    "require",
]

SPEC: Final = "read-context"
SHAPE: Final = "read-context/consequences/fixed-schema"
ERROR_SHAPE: Final = "read-context/implementation-notes/tool-name"
Json = dict[str, Any]
# The whole response for a workspace with none of the four files and no taste files (tolerance/fresh-workspace).
FRESH: Final[Json] = {
    "tastes": {"default": "", "genres": {}, "conflicts": []},
    "brief": {"raw": "", "intent": "", "tastes": []},
    "notes": {"summary": "", "truncated": False},
    "recent_log": [],
    "recent_gaps": [],
}


@dataclass(frozen=True)
class Outcome(CheckedReply):
    """A reply to read_context: a context checked against the response schema, or an error."""

    action: str = "read_context"

    def context(self, requirement: str = SHAPE) -> Json:
        """The context; fails `requirement` when refused, a piece's shape requirement or the fixed schema when malformed."""
        if not self.reply.ok:
            raise RequirementFailure(requirement, f"read_context was refused with {self.reply.error}")
        check_keys(self.reply.result)
        errors = schema_errors(f"{SPEC}/read_context.response.json", self.reply.result)
        if errors:
            raise RequirementFailure(SHAPE, f"the response does not match the ADR's shape: {'; '.join(errors[:5])}")
        result: Json = self.reply.result
        return result


class Workspace:
    """One test's image workspace and the (shared, reset per test) tastes folder."""

    def __init__(self, implementation: Implementation) -> None:
        folders = implementation.options[SPEC]
        self.implementation = implementation
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

    def read(self, image_id: object = None) -> Outcome:
        """Call read_context for this workspace's image (or another id)."""
        args = {"image_id": self.image_id if image_id is None else image_id}
        return call(self.implementation, args)

    def remove(self) -> None:
        """Delete the workspace folder."""
        shutil.rmtree(self.folder, ignore_errors=True)


# The keys of each object of the ADR's example, and the requirement that defines them. They are checked before the
# schema, so that a key left out or added fails the requirement of its piece rather than consequences/fixed-schema.
PIECE_KEYS: Final = {
    "tastes": (frozenset({"default", "genres", "conflicts"}), "read-context/response-shape/tastes-object"),
    "brief": (frozenset({"raw", "intent", "tastes"}), "read-context/response-shape/brief-raw"),
    "notes": (frozenset({"summary", "truncated"}), "read-context/response-shape/notes-object"),
}
TOP_KEYS: Final = frozenset({"tastes", "brief", "notes", "recent_log", "recent_gaps"})
LOG_KEYS: Final = frozenset({"timestamp", "op", "details"})
# The ADR's gap record; `workaround` is allowed too (response-shape/gap-workaround).
GAP_KEYS: Final = frozenset({"timestamp", "image_id", "description", "session_id", "snapshot_hash", "intent"}) | frozenset(
    {"intent_category", "missing_capability", "operations_involved", "vocabulary_used", "satisfaction", "notes"}
)


def check_keys(result: object) -> None:
    """Fail the requirement of the first object of the response whose keys are not the ADR's; other faults are the schema's."""
    if not isinstance(result, dict):
        return
    require(set(result) == TOP_KEYS, "read-context/response-shape/top-level-keys", f"response keys {sorted(result)}")
    for piece, (keys, requirement_id) in PIECE_KEYS.items():
        _check_object(result[piece], keys, requirement_id, piece)
    for entry in result["recent_log"] if isinstance(result["recent_log"], list) else []:
        _check_object(entry, LOG_KEYS, "read-context/response-shape/log-entry-shape", "a log entry")
    for record in result["recent_gaps"] if isinstance(result["recent_gaps"], list) else []:
        if isinstance(record, dict):
            _check_object(
                {k: v for k, v in record.items() if k != "workaround"},
                GAP_KEYS,
                "read-context/response-shape/gap-record-fields",
                "a gap record",
            )


def _check_object(value: object, keys: frozenset[str], requirement_id: str, what: str) -> None:
    if isinstance(value, dict) and set(value) != keys:
        raise RequirementFailure(requirement_id, f"{what} has the keys {sorted(value)}; the ADR's are {sorted(keys)}")


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


def jsonl(records: list[Json]) -> str:
    """One JSON object per line."""
    return "".join(json.dumps(record) + "\n" for record in records)


def call(implementation: Implementation, args: object) -> Outcome:
    """Call read_context with any arguments; check an error object's shape at once."""
    reply = implementation.call(SPEC, "read_context", args)
    if not reply.ok:
        errors = schema_errors(f"{SPEC}/error.json", reply.error)
        if errors:
            raise RequirementFailure(ERROR_SHAPE, f"error object does not match the schema: {'; '.join(errors)}")
    return Outcome(reply)


# The schema bounds both lists at 10 too; checked first so that a longer list fails its own requirement.
LIMITS: Final = {
    "recent_log": "read-context/loading-order/recent-log-last-10",
    "recent_gaps": "read-context/loading-order/recent-gaps-last-10",
}


def limited_context(outcome: Outcome, requirement: str = SHAPE) -> Json:
    """The context, after checking that recent_log and recent_gaps hold at most 10 entries each."""
    result = outcome.reply.result
    if outcome.ok and isinstance(result, dict):
        for piece, requirement_id in LIMITS.items():
            items = result.get(piece)
            if isinstance(items, list) and len(items) > 10:
                raise RequirementFailure(requirement_id, f"{piece} holds {len(items)} entries")
    return outcome.context(requirement)


@contextmanager
def fresh_workspace(implementation: Implementation) -> Iterator[Workspace]:
    """A workspace for one example of a property test (the `workspace` fixture is per test, not per example)."""
    created = Workspace(implementation)
    try:
        yield created
    finally:
        created.remove()


def require(condition: object, requirement: str, message: str) -> None:
    """Fail `requirement` with `message` unless `condition` holds."""
    if not condition:
        raise RequirementFailure(requirement, message)


def conflicts_of(context: Json) -> dict[str, frozenset[str]]:
    """tastes.conflicts as {point: genres}, file names "x.md" read as genre "x"; one entry per point."""
    found: dict[str, frozenset[str]] = {}
    for entry in context["tastes"]["conflicts"]:
        require(entry["point"] not in found, "read-context/response-shape/conflict-entry", f"two entries for {entry['point']!r}")
        found[entry["point"]] = frozenset(name.removesuffix(".md") for name in entry["files"])
    return found


def gap_core(record: Json, workaround: str = "") -> Json:
    """A gap record without `workaround`, after checking it follows a reading of gap-workaround (absent, or the line's)."""
    if "workaround" in record:
        require(
            record["workaround"] == workaround,
            "read-context/response-shape/gap-workaround",
            f"workaround {record['workaround']!r}; the line's is {workaround!r}",
        )
    return {key: value for key, value in record.items() if key != "workaround"}
