"""A permissive twin of the Shared Context specification, written from the spec text alone.

It keeps one JSON document per session in the state folder (written atomically, synced), and wherever the text
allows more than one behaviour it takes the one the reference does not: see `LIBERTIES`.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, Final

from twins._protocol import Json, Liberty, Refusal
from twins._protocol import Twin as ProtocolTwin

__all__ = ["LIBERTIES", "Twin"]

MAX_VALUE_TOKENS: Final = 1000
WARN_TOKENS: Final = 500
MAX_STORE_TOKENS: Final = 10_000
MAX_KEY: Final = 64
HISTORY_KEPT: Final = 3
KEY: Final = re.compile(r"[a-z0-9_]+")
LIFECYCLE: Final = ("create_session", "archive_session", "delete_session")
WRITES: Final = ("write", "delete", "snapshot")

LIBERTIES: tuple[Liberty, ...] = (
    Liberty(
        what="Token counts round up: value_size_tokens is ceil(len(value) / 4), 0 for an empty value.",
        allowed_by="8.2 'Approximate: `len(value) / 4`. Good enough for budgeting decisions.' "
        "(registry shared-context/8.2/approximate-token-count, reading 'ceil(len(value) / 4)')",
    ),
    Liberty(
        what="A value of 4001 to 4003 characters counts as 1001 tokens and is refused with VALUE_TOO_LARGE.",
        allowed_by="4.1 '(approximately 750 words / 4000 characters)' "
        "(registry shared-context/4.1/value-limit-boundary, second reading)",
    ),
    Liberty(
        what="The store total (STORE_FULL and total_size_tokens) is ceil(characters of all values / 4), "
        "not the sum of the per-value counts.",
        allowed_by="8.2 'The 1000-token write limit and 10,000-token store limit can use approximate counting.' "
        "(registry shared-context/8.2/limits-approximate-counting, second reading)",
    ),
    Liberty(
        what="A key written again after its delete continues its version count (the deleted version + 1), "
        "remembered durably, instead of starting again at 1.",
        allowed_by="2.3 'version: integer # monotonic, increments on every write to this key' "
        "(registry shared-context/3.3/rewrite-after-delete-version-one, second reading)",
    ),
    Liberty(
        what="An archived session refuses every tool call: writes, deletes and snapshots with SESSION_ARCHIVED, reads, "
        "list_keys and the read extensions with SESSION_NOT_FOUND (the session is closed).",
        allowed_by="4.5 'It does NOT survive: Session closure/archival' with 5 'SESSION_NOT_FOUND session_id is invalid "
        "or closed' (registry shared-context/4.5/not-survive-archival, second reading)",
    ),
    Liberty(
        what="The session is checked before the request: a call on an archived session is SESSION_ARCHIVED even when "
        "its value is too large or its key invalid, and a call on an unknown session is SESSION_NOT_FOUND first.",
        allowed_by="5: the error table lists VALUE_TOO_LARGE, INVALID_KEY, SESSION_NOT_FOUND and SESSION_ARCHIVED "
        "without ranking them",
    ),
    Liberty(
        what="A write is checked for the store total first, then the value's size, then the key (the reference: key, "
        "value, store): a write that would overfill the store is STORE_FULL even when its value is too large or its "
        "key invalid, and an over-long value under an invalid key is VALUE_TOO_LARGE.",
        allowed_by="5: 'STORE_FULL write would exceed 10,000 token total limit', 'VALUE_TOO_LARGE write value exceeds "
        "1000 token limit' and 'INVALID_KEY key does not match [a-z0-9_]+' are not ranked",
    ),
    Liberty(
        what="Read and delete of a malformed or over-long key answer KEY_NOT_FOUND (no such key can exist).",
        allowed_by="5 'KEY_NOT_FOUND read/delete on nonexistent key' "
        "(registry shared-context/5/invalid-key-on-read-delete, second reading)",
    ),
    Liberty(
        what="Fields a request does not define (written_by, version, session_id, ...) are ignored, never refused.",
        allowed_by="3.3 'Agents cannot spoof this.' (registry shared-context/3.3/extra-request-fields, second reading)",
    ),
    Liberty(
        what="create_session of an id in use is a no-op that succeeds; the session keeps its entries.",
        allowed_by="2.1 'Sessions are identified by a unique `session_id`.' "
        "(registry shared-context/2.1/session-id-unique, second reading)",
    ),
    Liberty(
        what="The id of a deleted session is never given out again: create_session of it is refused, and it stays "
        "SESSION_NOT_FOUND.",
        allowed_by="2.1 'Sessions are identified by a unique `session_id`.' with 4.5 'It does NOT survive: ... Explicit "
        "session deletion' (shared-context/4.5/not-survive-deletion: a refused creation keeps the session gone)",
    ),
    Liberty(
        what="Errors the spec does not define carry codes of the twin's own: an unknown action, a missing or "
        "mistyped field and a non-string key are INVALID_REQUEST (not the origin's INVALID_ACTION, not INVALID_KEY); "
        "a reused session id is SESSION_ID_RETIRED; an unknown snapshot is NO_SUCH_SNAPSHOT.",
        allowed_by="5 'All errors return the error code and a human-readable message.': the table defines codes for "
        "six conditions only",
    ),
    Liberty(
        what="Timestamps are written with a +00:00 offset and millisecond precision instead of a Z suffix.",
        allowed_by="2.3 'written_at: datetime # UTC timestamp' (any ISO 8601 form in UTC)",
    ),
    Liberty(
        what="list_keys lists keys newest write first; read_batch entries come in key order; read_history gives the "
        "newest version first.",
        allowed_by="3.1 'Returns all keys with metadata.' and 7.3 'Returns all historical values for a key.': no order is given",
    ),
    Liberty(
        what="Responses carry fields the spec does not define: list_keys its session_id and limits and each item its "
        "created_at; read value_size_tokens; write value_size_tokens and previous_version; delete deleted_at; "
        "lifecycle answers created/created_at.",
        allowed_by="3.1-3.4: the response examples do not close the shapes",
    ),
    Liberty(
        what="An optional field is sent as null when it does not apply: write's warning when there is none, "
        "previous_version of a new key.",
        allowed_by="4.1 'Implementation may return a warning at 800 tokens' (a may: the field is optional)",
    ),
    Liberty(
        what="The write warning starts at 500 tokens (6.2's '~500 tokens' discipline), not only at 800.",
        allowed_by="4.1 'Implementation may return a warning at 800 tokens': nothing forbids a warning below 800",
    ),
    Liberty(
        what="read_batch fails as a whole with KEY_NOT_FOUND when a listed key does not exist, so its answer has no "
        "'missing' list; an empty list of keys is an empty batch.",
        allowed_by="7.4 'keys': [...] (registry shared-context/7.4/read-batch-missing-key, first reading)",
    ),
    Liberty(
        what="read_history keeps only the last 3 versions of a key.",
        allowed_by="7.3 'Consider retaining only last N versions.' "
        "(registry shared-context/7.3/read-history-returns-history, second reading)",
    ),
    Liberty(
        what="A snapshot taken again under a label it already has replaces the earlier one.",
        allowed_by="7.6 'Freeze the entire shared context at a point in time': nothing says labels are unique",
    ),
    Liberty(
        what="create_session takes any config (or none) and ignores it; lifecycle calls ignore fields they do not use.",
        allowed_by="8.4 'create_session(session_id, config?) → empty store': config is not defined",
    ),
)


def now() -> str:
    """The current UTC time, ISO 8601 with an offset."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def tokens(length: int) -> int:
    """Approximate tokens of `length` characters: len / 4, rounded up."""
    return math.ceil(length / 4)


class Store:
    """One JSON document per session id under a folder; every change is written whole, atomically and synced."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def path(self, session_id: str) -> Path:
        """Where one session's document lives (the id hashed: ids are any text)."""
        digest = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()
        return self.folder / f"{digest}.json"

    def load(self, session_id: str) -> Json | None:
        """A session's document, or None when it never existed."""
        try:
            text = self.path(session_id).read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        document: Json = json.loads(text)
        return document

    def save(self, session_id: str, document: Json) -> None:
        """Replace a session's document atomically."""
        target = self.path(session_id)
        handle, temporary = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(document, out, ensure_ascii=True)
                out.flush()
                os.fsync(out.fileno())
            Path(temporary).replace(target)
        finally:
            Path(temporary).unlink(missing_ok=True)


class Twin(ProtocolTwin):
    """The shared_context tool and the session lifecycle operations."""

    spec: ClassVar[str] = "shared-context"
    version: ClassVar[str] = "0.1.0-draft"
    features: ClassVar[tuple[str, ...]] = ("read_batch", "read_history", "snapshot", "write_warning")

    def __init__(self) -> None:
        self.store: Store | None = None

    def open(self, state_dir: Path, options: Json) -> None:  # noqa: ARG002 - the spec has no start options
        """Keep the sessions under the state folder."""
        self.store = Store(state_dir / "shared-context-twin")

    def call(self, op: str, args: Any, context: Json) -> Json:
        """Carry out one operation."""
        if op == "shared_context":
            return self.tool(context.get("session_id"), context.get("participant"), args)
        if op in LIFECYCLE:
            session_id = args.get("session_id") if isinstance(args, dict) else None
            if not isinstance(session_id, str) or not session_id:
                raise Refusal("INVALID_REQUEST", f"{op} needs a session_id: a non-empty string")
            return dict(getattr(self, op)(session_id))
        raise Refusal("UNKNOWN_OP", f"shared-context has no operation {op!r}")

    def _store(self) -> Store:
        if self.store is None:
            raise RuntimeError("the twin was called before start")
        return self.store

    # --- the session lifecycle (8.4) -----------------------------------------------------------

    def create_session(self, session_id: str) -> Json:
        """An empty active session; an id in use is left as it is, a deleted one is never reused."""
        document = self._store().load(session_id)
        if document is not None and document["state"] == "deleted":
            raise Refusal("SESSION_ID_RETIRED", f"session id {session_id!r} belonged to a deleted session; pick a new one")
        if document is not None:
            return {"session_id": session_id, "created": False}
        created = now()
        fresh = {"session_id": session_id, "state": "active", "created_at": created, "entries": {}, "retired_versions": {}}
        self._store().save(session_id, fresh | {"history": {}, "snapshots": {}})
        return {"session_id": session_id, "state": "active", "created": True, "created_at": created}

    def archive_session(self, session_id: str) -> Json:
        """Make a session read-only; archiving it again changes nothing."""
        document = self._live(session_id)
        document["state"] = "archived"
        self._store().save(session_id, document)
        return {"session_id": session_id, "state": "archived"}

    def delete_session(self, session_id: str) -> Json:
        """Drop everything a session holds; only a marker that its id was used stays."""
        self._live(session_id)
        self._store().save(session_id, {"session_id": session_id, "state": "deleted", "deleted_at": now()})
        return {"session_id": session_id, "deleted": True}

    def _live(self, session_id: object) -> Json:
        document = self._store().load(session_id) if isinstance(session_id, str) and session_id else None
        if document is None or document["state"] == "deleted":
            raise Refusal("SESSION_NOT_FOUND", f"there is no session {session_id!r}: never created, or deleted")
        return document

    # --- the tool (3) --------------------------------------------------------------------------

    def tool(self, session_id: object, participant: object, request: object) -> Json:
        """One shared_context call: the session first, then the request."""
        document = self._live(session_id)
        if document["state"] == "archived":
            if request_field(request, "action") in WRITES:
                raise Refusal("SESSION_ARCHIVED", f"session {session_id!r} is archived and read-only")
            raise Refusal("SESSION_NOT_FOUND", f"session {session_id!r} is closed: its context did not survive archival")
        if not isinstance(request, dict):
            raise Refusal("INVALID_REQUEST", "the request must be a JSON object with an 'action'")
        action = request.get("action")
        handler = self.ACTIONS.get(action) if isinstance(action, str) else None
        if handler is None:
            raise Refusal("INVALID_REQUEST", f"unknown action {action!r}; use list_keys, read, write or delete")
        answer: Json = handler(self, document, participant, request)
        return answer

    def list_keys(self, document: Json, _participant: object, _request: Json) -> Json:
        """Every key with its metadata, newest write first, and no value."""
        entries = sorted(document["entries"].items(), key=lambda item: item[1]["written_at"], reverse=True)
        keys = [
            {
                "key": key,
                "written_by": entry["written_by"],
                "written_at": entry["written_at"],
                "version": entry["version"],
                "value_size_tokens": tokens(len(entry["value"])),
                "created_at": entry["created_at"],
            }
            for key, entry in entries
        ]
        limits = {"max_value_tokens": MAX_VALUE_TOKENS, "max_store_tokens": MAX_STORE_TOKENS}
        return {"keys": keys, "total_size_tokens": store_tokens(document), "session_id": document["session_id"]} | {
            "limits": limits
        }

    def read(self, document: Json, _participant: object, request: Json) -> Json:
        """One key's value and metadata."""
        key = text_field(request, "key")
        entry = document["entries"].get(key)
        if entry is None:
            raise Refusal("KEY_NOT_FOUND", f"no key {key!r} in this session; list_keys shows what there is")
        return public(key, entry) | {"value_size_tokens": tokens(len(entry["value"]))}

    def write(self, document: Json, participant: object, request: Json) -> Json:
        """Create or overwrite a key; the writer is the caller the system names."""
        if not isinstance(participant, str) or not participant:
            raise Refusal("INVALID_REQUEST", "the call names no participant, so nobody could be recorded as the writer")
        value = request.get("value")
        key = text_field(request, "key")
        if not isinstance(value, str):
            raise Refusal("INVALID_REQUEST", "value must be a string: serialize structured data first")
        total = store_tokens(document, {key: value})
        if total > MAX_STORE_TOKENS:
            raise Refusal("STORE_FULL", f"the store would hold about {total} tokens, over {MAX_STORE_TOKENS}: delete some")
        size = tokens(len(value))
        if size > MAX_VALUE_TOKENS:
            raise Refusal("VALUE_TOO_LARGE", f"the value is about {size} tokens, over the {MAX_VALUE_TOKENS} allowed")
        check_key(key)
        entries = document["entries"]
        old = entries.get(key)
        retired = document["retired_versions"]
        version = old["version"] + 1 if old else retired.pop(key, 0) + 1
        written_at = now()
        created_at = old["created_at"] if old else written_at
        entries[key] = {"value": value, "written_by": participant, "written_at": written_at, "version": version}
        entries[key]["created_at"] = created_at
        kept = document["history"].setdefault(key, [])
        kept.append(public(key, entries[key]))
        del kept[:-HISTORY_KEPT]
        self._store().save(document["session_id"], document)
        answer = {"key": key, "version": version, "written_by": participant, "written_at": written_at}
        warning = f"the value is about {size} tokens (limit {MAX_VALUE_TOKENS}): distill it" if size >= WARN_TOKENS else None
        return answer | {"value_size_tokens": size, "previous_version": old["version"] if old else None, "warning": warning}

    def delete(self, document: Json, _participant: object, request: Json) -> Json:
        """Remove a key; its version count is remembered for a later write of it."""
        key = text_field(request, "key")
        old = document["entries"].pop(key, None)
        if old is None:
            raise Refusal("KEY_NOT_FOUND", f"no key {key!r} in this session, so nothing was deleted")
        document["retired_versions"][key] = old["version"]
        document["history"].pop(key, None)
        self._store().save(document["session_id"], document)
        return {"deleted": key, "previous_version": old["version"], "deleted_at": now()}

    # --- extensions (7) ------------------------------------------------------------------------

    def read_batch(self, document: Json, _participant: object, request: Json) -> Json:
        """Several keys at once; any missing key fails the whole batch."""
        keys = request.get("keys")
        if not isinstance(keys, list) or not all(isinstance(key, str) for key in keys):
            raise Refusal("INVALID_REQUEST", "keys must be a list of key strings")
        missing = sorted({key for key in keys if key not in document["entries"]})
        if missing:
            raise Refusal("KEY_NOT_FOUND", f"no key(s) {', '.join(map(repr, missing))} in this session")
        return {"entries": [public(key, document["entries"][key]) for key in sorted(set(keys))]}

    def read_history(self, document: Json, _participant: object, request: Json) -> Json:
        """The retained versions of a key, newest first, only those asked for when a list is given."""
        key = text_field(request, "key")
        wanted = request.get("versions")
        if wanted is not None and not (
            isinstance(wanted, list) and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in wanted)
        ):
            raise Refusal("INVALID_REQUEST", "versions must be a list of positive integers")
        if key not in document["entries"]:
            raise Refusal("KEY_NOT_FOUND", f"no key {key!r} in this session")
        kept = document["history"].get(key, [])
        chosen = [entry for entry in reversed(kept) if wanted is None or entry["version"] in wanted]
        return {"key": key, "versions": chosen, "retained": HISTORY_KEPT}

    def snapshot(self, document: Json, _participant: object, request: Json) -> Json:
        """Freeze the whole store under a label; the same label again replaces the earlier snapshot."""
        label = request.get("label")
        if not isinstance(label, str) or not label:
            raise Refusal("INVALID_REQUEST", "label must be a non-empty string")
        taken_at = now()
        frozen = [public(key, entry) for key, entry in sorted(document["entries"].items())]
        document["snapshots"][label] = {"taken_at": taken_at, "entries": frozen}
        self._store().save(document["session_id"], document)
        return {"label": label, "taken_at": taken_at, "key_count": len(frozen)}

    def read_snapshot(self, document: Json, _participant: object, request: Json) -> Json:
        """A snapshot as it was taken."""
        label = request.get("label")
        if not isinstance(label, str) or not label:
            raise Refusal("INVALID_REQUEST", "label must be a non-empty string")
        found = document["snapshots"].get(label)
        if found is None:
            raise Refusal("NO_SUCH_SNAPSHOT", f"no snapshot labelled {label!r} in this session")
        return {"label": label, "taken_at": found["taken_at"], "entries": found["entries"]}

    ACTIONS: ClassVar[dict[str, Any]] = {
        "list_keys": list_keys,
        "read": read,
        "write": write,
        "delete": delete,
        "read_batch": read_batch,
        "read_history": read_history,
        "snapshot": snapshot,
        "read_snapshot": read_snapshot,
    }


def request_field(request: object, name: str) -> object:
    """A field of a request that may not be an object."""
    return request.get(name) if isinstance(request, dict) else None


def text_field(request: Json, name: str) -> str:
    """A field that must be a string; a read or delete of a malformed key finds nothing."""
    found = request.get(name)
    if not isinstance(found, str):
        raise Refusal("INVALID_REQUEST", f"{request.get('action')} needs a '{name}' string")
    if request.get("action") in ("read", "delete", "read_history") and not valid_key(found):
        raise Refusal("KEY_NOT_FOUND", f"no key {found[:80]!r} can exist: keys match [a-z0-9_]+, at most {MAX_KEY} long")
    return found


def valid_key(key: str) -> bool:
    """Whether `key` follows 4.3."""
    return len(key) <= MAX_KEY and KEY.fullmatch(key) is not None


def check_key(key: str) -> None:
    """Refuse a key outside 4.3 with INVALID_KEY."""
    if not valid_key(key):
        raise Refusal("INVALID_KEY", f"key {key[:80]!r} must match [a-z0-9_]+ and be at most {MAX_KEY} characters")


def store_tokens(document: Json, replaced: dict[str, str] | None = None) -> int:
    """The store's approximate total: all values' characters together, over 4 rounded up."""
    values = {key: entry["value"] for key, entry in document["entries"].items()} | (replaced or {})
    return tokens(sum(len(value) for value in values.values()))


def public(key: str, entry: Json) -> Json:
    """An entry as read answers it."""
    return {
        "key": key,
        "value": entry["value"],
        "written_by": entry["written_by"],
        "written_at": entry["written_at"],
        "version": entry["version"],
    }
