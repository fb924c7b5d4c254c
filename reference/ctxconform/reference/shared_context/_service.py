"""The shared_context tool and the session lifecycle operations (spec sections 3, 4, 5, 7 and 8.4)."""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import UTC, datetime
from typing import Any, Final

from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.shared_context._keys import check_key
from ctxconform.reference.shared_context._model import Entry, Metadata, Session
from ctxconform.reference.shared_context._store import ReadConflict, Store, Transaction, reading_step
from ctxconform.reference.shared_context._tokens import (
    MAX_STORE_TOKENS,
    MAX_VALUE_TOKENS,
    WARN_VALUE_TOKENS,
    estimate_tokens,
)

__all__ = ["SharedContext", "utc_now"]

Json = dict[str, Any]

log = logging.getLogger("ctxconform.reference.shared_context")
_HELD = threading.local()  # `lines`: the audit lines of a batch running on this thread, written once it is kept

# Which fields each action takes besides "action", and which of them are required.
_FIELDS: Final[dict[str, tuple[frozenset[str], frozenset[str]]]] = {
    "list_keys": (frozenset(), frozenset()),
    "read": (frozenset({"key"}), frozenset({"key"})),
    "write": (frozenset({"key", "value"}), frozenset({"key", "value"})),
    "delete": (frozenset({"key"}), frozenset({"key"})),
    "read_batch": (frozenset({"keys"}), frozenset({"keys"})),
    "read_history": (frozenset({"key", "versions"}), frozenset({"key"})),
    "snapshot": (frozenset({"label"}), frozenset({"label"})),
    "read_snapshot": (frozenset({"label"}), frozenset({"label"})),
}
MAX_SESSION_ID: Final = 256
_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")
MAX_BATCH: Final = 100


def utc_now() -> str:
    """Return the current UTC time as ISO 8601 with a Z suffix."""
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


class SharedContext:
    """Per-session key-value working memory over a store."""

    max_value_tokens: int = MAX_VALUE_TOKENS
    """The most tokens one value may hold (4.1): the point a variant overrides to move the value limit."""
    max_store_tokens: int = MAX_STORE_TOKENS
    """The most tokens a session's values may hold together (4.2): the point a variant overrides to move the store limit."""
    history_depth: int
    """How many versions of each key the store keeps for read_history: the point a variant reads when it puts entries back."""

    def __init__(self, store: Store, *, clock: Callable[[], str] = utc_now, history_depth: int = 10) -> None:
        self.store = store
        self._clock = clock
        self.history_depth = history_depth

    def create_session(self, session_id: object, config: object = None) -> Json:
        """Create an empty active session; refuse an id that is already taken."""
        if not isinstance(session_id, str) or not 0 < len(session_id) <= MAX_SESSION_ID:
            raise SpecError("INVALID_REQUEST", f"session_id must be a non-empty string of at most {MAX_SESSION_ID} characters")
        sid = _unicode(session_id, "session_id")
        if config is not None and not isinstance(config, dict):
            raise SpecError("INVALID_REQUEST", "config must be an object when given")
        with self.store.transaction() as tx:
            if tx.session(sid) is not None:
                raise SpecError("SESSION_EXISTS", f"session {sid!r} already exists; use another session_id")
            tx.create_session(sid)
        return {"session_id": sid, "state": "active"}

    def archive_session(self, session_id: object) -> Json:
        """Make a session read-only; it stays readable for audit."""
        sid = _session_id(session_id)
        with self.store.transaction() as tx:
            _existing(tx, sid)
            tx.set_state(sid, "archived")
        return {"session_id": sid, "state": "archived"}

    def delete_session(self, session_id: object) -> Json:
        """Remove a session and everything it holds."""
        sid = _session_id(session_id)
        with self.store.transaction() as tx:
            _existing(tx, sid)
            tx.drop_session(sid)
        return {"session_id": sid, "deleted": True}

    @property
    def batches(self) -> bool:
        """Whether the store can run a batch: operations on one thread sharing one commit (see `batch`)."""
        return hasattr(self.store, "batch")

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Let the calling thread's operations in the block share one commit at its end, when the store can.

        The answers of the block's operations may be told only once it has ended without raising (a StoreError
        means none of their changes were kept); their audit lines are written then too, and never otherwise.
        """
        opener: Callable[[], AbstractContextManager[None]] = getattr(self.store, "batch", nullcontext)
        held: list[str] = []
        _HELD.lines = held
        try:
            with opener():
                yield
        finally:
            del _HELD.lines
        for line in held:
            log.info(line)

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        """Carry out one shared_context tool call on behalf of a participant."""
        action, fields = _parse(request)
        sid = _session_id(session_id)
        if action == "write":
            return self._write(sid, _participant(participant), self.check_key(fields["key"]), fields["value"])
        if action == "delete":
            return self._delete(sid, _participant(participant), self.check_key(fields["key"]))
        if action == "snapshot":
            return self._snapshot(sid, _label(fields["label"]))
        fields = {**fields, **self._checked_keys(fields)}
        try:
            with reading_step(self.store) as tx:
                return _answer(tx, action, sid, fields)
        except ReadConflict:  # another process committed mid-read: read again where no commit can interleave
            with self.store.transaction() as tx:
                return _answer(tx, action, sid, fields)

    def _checked_keys(self, fields: Mapping[str, Any]) -> Json:
        checked: Json = {}
        if "key" in fields:
            checked["key"] = self.check_key(fields["key"])
        if isinstance(fields.get("keys"), list):
            checked["keys"] = list(dict.fromkeys(self.check_key(key) for key in fields["keys"]))
        return checked

    def check_key(self, key: object) -> str:
        """Return a key that follows the naming rules of 4.3, or raise INVALID_KEY."""
        return check_key(key)

    def value_fits(self, value: str) -> bool:
        """Whether a value is within the value limit of 4.1: the point a variant overrides to count or compare otherwise."""
        return estimate_tokens(value) <= self.max_value_tokens

    def next_version(self, old: Entry | None) -> int:
        """Return the version a write gives: 1 for a new key, one more than before for an existing one."""
        return 1 if old is None else old.version + 1

    def entry_version(self, sid: str, key: str, old: Entry | None) -> int:  # noqa: ARG002 - variants look at the key
        """Return the version a write of `key` in session `sid` gives; the reference looks at the old entry only."""
        return self.next_version(old)

    def _write(self, sid: str, participant: str, key: str, value: object) -> Json:
        if not isinstance(value, str):
            raise SpecError("INVALID_REQUEST", f"value must be a string, got {type(value).__name__}; serialize structured data")
        _unicode(value, "value")
        tokens = estimate_tokens(value)
        if not self.value_fits(value):
            raise SpecError(
                "VALUE_TOO_LARGE", f"value is about {tokens} tokens; the limit is {self.max_value_tokens}: distill it"
            )
        with self.store.transaction() as tx:
            session = _writable(tx, sid)
            old = tx.entry(sid, key)
            total = session.total_tokens - (old.tokens if old else 0) + tokens
            if total > self.max_store_tokens:
                raise SpecError(
                    "STORE_FULL", f"the store would hold {total} tokens; the limit is {self.max_store_tokens}: delete keys first"
                )
            entry = Entry(key, participant, self._clock(), self.entry_version(sid, key, old), tokens, value)
            tx.put(sid, entry, total, self.history_depth)
        _audit("write", sid, entry)
        result: Json = {"key": key, "version": entry.version, "written_by": participant, "written_at": entry.written_at}
        if tokens >= WARN_VALUE_TOKENS:
            result["warning"] = f"value is about {tokens} tokens, close to the {MAX_VALUE_TOKENS}-token limit: distill it"
        return result

    def _delete(self, sid: str, participant: str, key: str) -> Json:
        with self.store.transaction() as tx:
            session = _writable(tx, sid)
            old = _entry(tx, sid, key)
            tx.remove(sid, key, session.total_tokens - old.tokens)
        _audit("delete", sid, Entry(key, participant, self._clock(), old.version, old.tokens, ""))
        return {"deleted": key, "previous_version": old.version}

    def _snapshot(self, sid: str, label: str) -> Json:
        with self.store.transaction() as tx:
            _writable(tx, sid)
            if tx.snapshot(sid, label) is not None:
                raise SpecError(
                    "SNAPSHOT_EXISTS", f"a snapshot labelled {label!r:.100} exists and is never replaced; choose another label"
                )
            taken_at = self._clock()
            count = tx.put_snapshot(sid, label, taken_at)
        return {"label": label, "taken_at": taken_at, "key_count": count}


def _parse(request: object) -> tuple[str, Mapping[str, Any]]:
    if not isinstance(request, dict):
        raise SpecError("INVALID_REQUEST", "the request must be a JSON object with an 'action'")
    action = request.get("action")
    if not isinstance(action, str) or action not in _FIELDS:
        raise SpecError("INVALID_ACTION", f"unknown action {action!r:.100}; expected one of {', '.join(_FIELDS)}")
    allowed, required = _FIELDS[action]
    extra = set(request) - allowed - {"action"}
    if extra:
        raise SpecError("INVALID_REQUEST", f"{action} takes no field(s) {', '.join(sorted(map(str, extra)))}")
    missing = required - set(request)
    if missing == {"key"}:
        raise SpecError("INVALID_KEY", f"{action} needs a 'key'")
    if missing:
        raise SpecError("INVALID_REQUEST", f"{action} needs the field(s) {', '.join(sorted(missing))}")
    return action, request


def _session_id(session_id: object) -> str:
    if not isinstance(session_id, str) or not 0 < len(session_id) <= MAX_SESSION_ID:
        raise SpecError("SESSION_NOT_FOUND", f"session_id must be a non-empty string of at most {MAX_SESSION_ID} characters")
    return _unicode(session_id, "session_id")


def _participant(participant: object) -> str:
    if not isinstance(participant, str) or not participant:
        raise SpecError("INVALID_REQUEST", "the call carries no participant identity; the system must set one")
    return _unicode(participant, "the participant identity")


def _label(label: object) -> str:
    if not isinstance(label, str) or not label:
        raise SpecError("INVALID_REQUEST", "label must be a non-empty string")
    return _unicode(label, "label")


def _unicode(text: str, name: str) -> str:
    # A lone surrogate is not a character: no store can keep it as text, so it is refused before any store sees it.
    # ASCII text holds none, and saying so costs nothing: the regular expression is a sixth of a kill-safe write.
    if not text.isascii() and _LONE_SURROGATE.search(text):
        raise SpecError("INVALID_REQUEST", f"{name} holds an unpaired surrogate (\\ud800-\\udfff); send valid Unicode text")
    return text


def _answer(tx: Transaction, action: str, sid: str, fields: Mapping[str, Any]) -> Json:
    _existing(tx, sid)
    return _READS[action](tx, sid, fields)


def _existing(tx: Transaction, sid: str) -> Session:
    session = tx.session(sid)
    if session is None:
        raise SpecError("SESSION_NOT_FOUND", f"no session {sid!r}; it was never created or has been deleted")
    return session


def _writable(tx: Transaction, sid: str) -> Session:
    session = _existing(tx, sid)
    if session.state == "archived":
        raise SpecError("SESSION_ARCHIVED", f"session {sid!r} is archived and read-only")
    return session


def _entry(tx: Transaction, sid: str, key: str) -> Entry:
    entry = tx.entry(sid, key)
    if entry is None:
        raise SpecError("KEY_NOT_FOUND", f"no key {key!r} in this session; call list_keys to see what exists")
    return entry


def _metadata(meta: Metadata) -> Json:
    return {
        "key": meta.key,
        "written_by": meta.written_by,
        "written_at": meta.written_at,
        "version": meta.version,
        "value_size_tokens": meta.tokens,
    }


def _entry_json(entry: Entry) -> Json:
    return {
        "key": entry.key,
        "value": entry.value,
        "written_by": entry.written_by,
        "written_at": entry.written_at,
        "version": entry.version,
    }


def _list_keys(tx: Transaction, sid: str, _fields: Mapping[str, Any]) -> Json:
    metadata = tx.metadata(sid)
    return {"keys": [_metadata(meta) for meta in metadata], "total_size_tokens": sum(m.tokens for m in metadata)}


def _read(tx: Transaction, sid: str, fields: Mapping[str, Any]) -> Json:
    return _entry_json(_entry(tx, sid, fields["key"]))


def _read_batch(tx: Transaction, sid: str, fields: Mapping[str, Any]) -> Json:
    keys = fields["keys"]
    if not isinstance(keys, list) or not 0 < len(keys) <= MAX_BATCH:
        raise SpecError("INVALID_REQUEST", f"keys must be a list of 1 to {MAX_BATCH} keys")
    entries, missing = [], []
    for key in keys:
        entry = tx.entry(sid, key)
        if entry is None:
            missing.append(key)
        else:
            entries.append(_entry_json(entry))
    return {"entries": entries, "missing": missing}


def _read_history(tx: Transaction, sid: str, fields: Mapping[str, Any]) -> Json:
    key = fields["key"]
    wanted = fields.get("versions")
    if wanted is not None and not (isinstance(wanted, list) and all(_is_version(v) for v in wanted)):
        raise SpecError("INVALID_REQUEST", "versions must be a list of positive integers")
    history = tx.history(sid, key)
    if not history:
        raise SpecError("KEY_NOT_FOUND", f"no key {key!r} in this session")
    chosen = [e for e in history if wanted is None or e.version in wanted]
    return {"key": key, "versions": [{**_entry_json(e)} for e in chosen]}


def _read_snapshot(tx: Transaction, sid: str, fields: Mapping[str, Any]) -> Json:
    label = _label(fields["label"])
    found = tx.snapshot(sid, label)
    if found is None:
        raise SpecError("SNAPSHOT_NOT_FOUND", f"no snapshot labelled {label!r:.100} in this session")
    taken_at, entries = found
    return {"label": label, "taken_at": taken_at, "entries": [_entry_json(e) for e in entries]}


def _is_version(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _audit(event: str, sid: str, entry: Entry) -> None:
    if not log.isEnabledFor(logging.INFO):  # the servers log; a store used in-process need not build the line
        return
    # Keys and metadata only: values may hold distilled but sensitive content (spec 8.5).
    record = {
        "event": event,
        "session_id": sid,
        "key": entry.key,
        "written_by": entry.written_by,
        "timestamp": entry.written_at,
        "value_size_tokens": entry.tokens,
        "version": entry.version,
    }
    line = json.dumps(record, sort_keys=True)
    held: list[str] | None = getattr(_HELD, "lines", None)
    if held is None:
        log.info(line)
    else:
        held.append(line)


_READS: Final[dict[str, Callable[[Transaction, str, Mapping[str, Any]], Json]]] = {
    "list_keys": _list_keys,
    "read": _read,
    "read_batch": _read_batch,
    "read_history": _read_history,
    "read_snapshot": _read_snapshot,
}
