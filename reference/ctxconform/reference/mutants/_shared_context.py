"""Mutants of the shared-context reference."""

from __future__ import annotations

import contextlib
import copy
import json
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import Any, ClassVar, Final

from ctxconform.reference._implementation import Reference
from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.mutants._catalogue import Mutant, mutant
from ctxconform.reference.shared_context import (
    MAX_KEY_LENGTH,
    MAX_STORE_TOKENS,
    Entry,
    MemoryStore,
    Metadata,
    Session,
    SharedContext,
    Store,
    Transaction,
    check_key,
    estimate_tokens,
    utc_now,
)
from ctxconform.reference.shared_context._model import SessionState

__all__ = ["MUTANTS"]

MUTANTS: list[Mutant] = []

Json = dict[str, Any]


class _NoIncrement(SharedContext):
    def next_version(self, old: Entry | None) -> int:  # noqa: ARG002 - ignoring the old version is the mutation
        return 1


class _LongKeys(SharedContext):
    def check_key(self, key: object) -> str:
        if isinstance(key, str) and re.fullmatch(r"[a-z0-9_]{65,80}", key):
            return key
        if isinstance(key, str) and not key:
            raise SpecError("INVALID_KEY", "empty key")
        return check_key(key)


@mutant(
    "shared-context/3.3/version-increments",
    "shared-context/2.3/version-monotonic",
    catalogue=MUTANTS,
)
def versions_do_not_increment() -> Reference:
    """The reference, except that overwriting a key keeps version 1."""
    return Reference(shared_context=_NoIncrement)


@mutant(
    "shared-context/4.3/key-max-length",
    "shared-context/5/invalid-key-on-write",
    catalogue=MUTANTS,
)
def accepts_long_keys() -> Reference:
    """The reference, except that write accepts keys of up to 80 characters."""
    return Reference(shared_context=_LongKeys)


# --- helpers ------------------------------------------------------------------------------------


def _field(request: object, name: str) -> Any:
    """A field of a request, or None when the request is not an object or lacks it."""
    return request.get(name) if isinstance(request, dict) else None


def _session(service: SharedContext, sid: object) -> Session | None:
    """The session a call names, or None."""
    if not isinstance(sid, str):
        return None
    with service.store.transaction() as tx:
        return tx.session(sid)


def _current(service: SharedContext, sid: object, key: object) -> Entry | None:
    """The entry a well-formed call would touch, or None when there is no such session or key."""
    if not isinstance(key, str) or _session(service, sid) is None:
        return None
    with service.store.transaction() as tx:
        return tx.entry(str(sid), key)


def _remove(tx: Transaction, sid: str, key: str) -> None:
    """Remove an entry straight from the store, keeping the session's total right."""
    session, old = tx.session(sid), tx.entry(sid, key)
    if session is not None and old is not None:
        tx.remove(sid, key, session.total_tokens - old.tokens)


def _with(service: Callable[[Store], SharedContext]) -> Reference:
    """The reference with another shared-context service."""
    return Reference(shared_context=service)


# --- bases: a hook after a successful call, and errors answered with another code ---------------


class _Reshaped(SharedContext):
    """Passes the result of one action through `reshape`."""

    action: ClassVar[str] = ""

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        result = super().handle(session_id, participant, request)
        return self.reshape(str(session_id), result) if _field(request, "action") == self.action else result

    def reshape(self, sid: str, result: Json) -> Json:  # noqa: ARG002 - subclasses use what they need
        return result


class _Recoded(SharedContext):
    """Answers some error codes of some actions with another code."""

    actions: ClassVar[frozenset[str]] = frozenset()
    codes: ClassVar[dict[str, str]] = {}

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        try:
            return super().handle(session_id, participant, request)
        except SpecError as error:
            if _field(request, "action") in self.actions and error.code in self.codes:
                raise SpecError(self.codes[error.code], error.message) from None
            raise


class _Tracking(SharedContext):
    """Remembers the sessions created through this process."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self.known: set[str] = set()

    def create_session(self, session_id: object, config: object = None) -> Json:
        result = super().create_session(session_id, config)
        self.known.add(str(session_id))
        return result


# --- response shapes (3.1-3.4) --------------------------------------------------------------------


class _ListWithoutWrittenAt(_Reshaped):
    action = "list_keys"

    def reshape(self, sid: str, result: Json) -> Json:  # noqa: ARG002 - the items alone change
        return {**result, "keys": [{k: v for k, v in item.items() if k != "written_at"} for item in result["keys"]]}


class _ReadWithoutKey(_Reshaped):
    action = "read"

    def reshape(self, sid: str, result: Json) -> Json:  # noqa: ARG002 - the result alone changes
        return {k: v for k, v in result.items() if k != "key"}


class _WriteWithoutWrittenAt(_Reshaped):
    action = "write"

    def reshape(self, sid: str, result: Json) -> Json:  # noqa: ARG002 - the result alone changes
        return {k: v for k, v in result.items() if k != "written_at"}


class _DeleteAnswersKey(_Reshaped):
    action = "delete"

    def reshape(self, sid: str, result: Json) -> Json:  # noqa: ARG002 - the result alone changes
        return {"key": result["deleted"], "previous_version": result["previous_version"]}


class _PreviousVersionPlusOne(_Reshaped):
    action = "delete"

    def reshape(self, sid: str, result: Json) -> Json:  # noqa: ARG002 - the result alone changes
        return {**result, "previous_version": result["previous_version"] + 1}


# --- list_keys (3.1) ----------------------------------------------------------------------------


class _ListPreviews(_Reshaped):
    action = "list_keys"

    def reshape(self, sid: str, result: Json) -> Json:
        with self.store.transaction() as tx:
            values = {item["key"]: getattr(tx.entry(sid, item["key"]), "value", "") for item in result["keys"]}
        return {**result, "keys": [{**item, "preview": values[item["key"]][:40]} for item in result["keys"]]}


class _FloatTokens(_Reshaped):
    action = "list_keys"

    def reshape(self, sid: str, result: Json) -> Json:
        with self.store.transaction() as tx:
            sizes = {item["key"]: len(getattr(tx.entry(sid, item["key"]), "value", "")) / 4 for item in result["keys"]}
        return {**result, "keys": [{**item, "value_size_tokens": sizes[item["key"]]} for item in result["keys"]]}


class _FirstWriteMetadata(_Reshaped):
    action = "list_keys"

    def reshape(self, sid: str, result: Json) -> Json:
        with self.store.transaction() as tx:
            first = {item["key"]: tx.history(sid, item["key"])[0] for item in result["keys"]}
        return {**result, "keys": [{**item, **_created(first[item["key"]])} for item in result["keys"]]}


def _created(entry: Entry) -> Json:
    """The metadata of the version a list_keys item was created with."""
    return {"written_by": entry.written_by, "written_at": entry.written_at, "version": entry.version}


class _CachedListings(SharedContext):
    """Keeps each participant's last listing until that participant writes or deletes."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._listings: dict[tuple[str, str], Json] = {}

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        action, caller = _field(request, "action"), (str(session_id), str(participant))
        if action == "list_keys" and caller in self._listings:
            return copy.deepcopy(self._listings[caller])
        result = super().handle(session_id, participant, request)
        if action == "list_keys":
            self._listings[caller] = copy.deepcopy(result)
        elif action in ("write", "delete"):
            self._listings.pop(caller, None)
        return result

    def delete_session(self, session_id: object) -> Json:
        self._listings = {k: v for k, v in self._listings.items() if k[0] != session_id}
        return super().delete_session(session_id)


# --- read (3.2) ---------------------------------------------------------------------------------


class _CachedReads(SharedContext):
    """Answers a read from a cache that a delete clears but a write does not."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._reads: dict[tuple[str, str], Json] = {}

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        action, slot = _field(request, "action"), (str(session_id), str(_field(request, "key")))
        if action == "read" and slot in self._reads:
            return copy.deepcopy(self._reads[slot])
        result = super().handle(session_id, participant, request)
        if action == "read":
            self._reads[slot] = copy.deepcopy(result)
        elif action == "delete":
            self._reads.pop(slot, None)
        return result

    def delete_session(self, session_id: object) -> Json:
        self._reads = {k: v for k, v in self._reads.items() if k[0] != session_id}
        return super().delete_session(session_id)


class _EmptyForMissing(SharedContext):
    def handle(self, session_id: object, participant: object, request: object) -> Json:
        try:
            return super().handle(session_id, participant, request)
        except SpecError as error:
            if _field(request, "action") != "read" or error.code != "KEY_NOT_FOUND":
                raise
            key = _field(request, "key")
            return {"key": key, "value": "", "written_by": str(participant), "written_at": utc_now(), "version": 0}


class _MissingIsInvalid(_Recoded):
    actions = frozenset({"read", "delete"})
    codes: ClassVar[dict[str, str]] = {"KEY_NOT_FOUND": "INVALID_KEY"}


# --- write (2.3, 3.3) ---------------------------------------------------------------------------


class _KeepsOldValue(SharedContext):
    def handle(self, session_id: object, participant: object, request: object) -> Json:
        value = _field(request, "value")
        old = _current(self, session_id, _field(request, "key")) if _field(request, "action") == "write" else None
        if old is not None and isinstance(value, str) and estimate_tokens(value) <= self.max_value_tokens:
            request = {**_as_dict(request), "value": old.value}  # the UPDATE sets the metadata but forgets the value
        return super().handle(session_id, participant, request)


def _as_dict(request: object) -> Json:
    """A request known to be an object."""
    assert isinstance(request, dict)
    return request


class _SkipsUnchanged(SharedContext):
    def handle(self, session_id: object, participant: object, request: object) -> Json:
        old = _current(self, session_id, _field(request, "key")) if _field(request, "action") == "write" else None
        session = _session(self, session_id)
        if old is not None and old.value == _field(request, "value") and session is not None and session.state == "active":
            return {"key": old.key, "version": old.version, "written_by": old.written_by, "written_at": old.written_at}
        return super().handle(session_id, participant, request)


class _CreatorStaysWriter(SharedContext):
    def handle(self, session_id: object, participant: object, request: object) -> Json:
        old = _current(self, session_id, _field(request, "key")) if _field(request, "action") == "write" else None
        return super().handle(session_id, participant if old is None else old.written_by, request)


class _TrustsBodyWriter(SharedContext):
    def handle(self, session_id: object, participant: object, request: object) -> Json:
        claimed = _field(request, "written_by")
        if _field(request, "action") == "write" and isinstance(claimed, str) and claimed:
            request = {k: v for k, v in _as_dict(request).items() if k != "written_by"}
            participant = claimed
        return super().handle(session_id, participant, request)


class _SerializesValues(SharedContext):
    def handle(self, session_id: object, participant: object, request: object) -> Json:
        value = _field(request, "value")
        if _field(request, "action") == "write" and value is not None and not isinstance(value, str):
            request = {**_as_dict(request), "value": json.dumps(value)}
        return super().handle(session_id, participant, request)


def _naive_now() -> str:
    """The local time without a time zone, as datetime.now().isoformat() gives it."""
    return datetime.now().isoformat(timespec="microseconds")  # noqa: DTZ005 - the missing time zone is the mutation


class _WritesWithoutDelete(SharedContext):
    def handle(self, session_id: object, participant: object, request: object) -> Json:
        if _field(request, "action") == "delete":
            raise SpecError("INVALID_ACTION", "unknown action 'delete'; expected one of list_keys, read, write")
        return super().handle(session_id, participant, request)


# --- versions (2.3, 3.3, 8.1) -------------------------------------------------------------------


class _SessionRevisions(SharedContext):
    """Versions come from one counter per session."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._revisions: dict[str, int] = {}

    def entry_version(self, sid: str, key: str, old: Entry | None) -> int:  # noqa: ARG002 - one counter for every key
        self._revisions[sid] = max(self._revisions.get(sid, 0), old.version if old else 0) + 1
        return self._revisions[sid]


class _VersionsSurviveDelete(SharedContext):
    """Remembers the version a key had when it was deleted, and continues from it."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._deleted: dict[tuple[str, str], int] = {}

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        result = super().handle(session_id, participant, request)
        if _field(request, "action") == "delete":
            self._deleted[(str(session_id), result["deleted"])] = result["previous_version"]
        return result

    def entry_version(self, sid: str, key: str, old: Entry | None) -> int:
        if old is None and (sid, key) in self._deleted:
            return self._deleted.pop((sid, key)) + 1
        return super().entry_version(sid, key, old)


class _VersionsInMemory(SharedContext):
    """Counts versions in a dict of this process, so a restart counts from 1 again."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._versions: dict[tuple[str, str], int] = {}

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        result = super().handle(session_id, participant, request)
        if _field(request, "action") == "delete":
            self._versions.pop((str(session_id), result["deleted"]), None)
        return result

    def delete_session(self, session_id: object) -> Json:
        self._versions = {k: v for k, v in self._versions.items() if k[0] != session_id}
        return super().delete_session(session_id)

    def entry_version(self, sid: str, key: str, old: Entry | None) -> int:  # noqa: ARG002 - the stored version is ignored
        self._versions[(sid, key)] = self._versions.get((sid, key), 0) + 1
        return self._versions[(sid, key)]


# --- delete (3.4) -------------------------------------------------------------------------------


class _IdempotentDelete(SharedContext):
    def handle(self, session_id: object, participant: object, request: object) -> Json:
        try:
            return super().handle(session_id, participant, request)
        except SpecError as error:
            if _field(request, "action") != "delete" or error.code != "KEY_NOT_FOUND":
                raise
            return {"deleted": _field(request, "key"), "previous_version": 0}


class _SoftDelete(SharedContext):
    """Marks deleted keys instead of removing them, and list_keys does not filter the marks out."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._tombstones: dict[str, dict[str, Json]] = {}

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        action, sid, key = _field(request, "action"), str(session_id), _field(request, "key")
        listed = super().handle(session_id, participant, {"action": "list_keys"}) if action == "delete" else None
        result = super().handle(session_id, participant, request)
        marks = self._tombstones.setdefault(sid, {})
        if listed is not None:
            marks[key] = next(item for item in listed["keys"] if item["key"] == key)
        elif action == "write":
            marks.pop(key, None)
        elif action == "list_keys":
            shown = {item["key"]: item for item in [*marks.values(), *result["keys"]]}
            result = {**result, "keys": [shown[k] for k in sorted(shown)]}
        return result


# --- keys (2.4, 4.3, 5) -------------------------------------------------------------------------


class _LetterFirstKeys(SharedContext):
    def check_key(self, key: object) -> str:
        if isinstance(key, str) and re.match(r"[0-9_]", key):
            raise SpecError("INVALID_KEY", f"key {key!r} must start with a letter")
        return check_key(key)


class _CaseInsensitiveKeys(SharedContext):
    def check_key(self, key: object) -> str:
        if isinstance(key, str) and re.fullmatch(r"[a-z0-9_]{1,64}", key, re.IGNORECASE):
            return key
        return check_key(key)


class _PrefixedKeys(SharedContext):
    def check_key(self, key: object) -> str:
        if isinstance(key, str) and len(key) <= MAX_KEY_LENGTH and re.fullmatch(r"[a-z0-9_]+:[a-z0-9_]+", key):
            return key
        return check_key(key)


class _InvalidKeyIsInvalidRequest(_Recoded):
    actions = frozenset({"write"})
    codes: ClassVar[dict[str, str]] = {"INVALID_KEY": "INVALID_REQUEST"}


# --- limits (4.1, 4.2, 5) -----------------------------------------------------------------------


class _BinaryThousandValues(SharedContext):
    max_value_tokens = 1024


class _TooLargeIsStoreFull(_Recoded):
    actions = frozenset({"write"})
    codes: ClassVar[dict[str, str]] = {"VALUE_TOO_LARGE": "STORE_FULL"}


class _StoreFullIsTooLarge(_Recoded):
    actions = frozenset({"write"})
    codes: ClassVar[dict[str, str]] = {"STORE_FULL": "VALUE_TOO_LARGE"}


class _StoreLimit(SharedContext):
    """Replaces the reference's store-limit check with `refuses`, asked for each otherwise valid write."""

    max_store_tokens = sys.maxsize

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        if _field(request, "action") == "write":
            self._check_limit(session_id, _field(request, "key"), _field(request, "value"))
        return super().handle(session_id, participant, request)

    def _check_limit(self, sid: object, key: object, value: object) -> None:
        session = _session(self, sid)
        if session is None or session.state != "active" or not isinstance(value, str) or not _valid_key(key):
            return
        tokens = estimate_tokens(value)
        old = _current(self, sid, key)
        total = session.total_tokens - (old.tokens if old else 0) + tokens
        if tokens <= self.max_value_tokens and self.refuses(session, total):
            raise SpecError("STORE_FULL", f"the store would hold {total} tokens; the limit is {MAX_STORE_TOKENS}")

    def refuses(self, session: Session, total: int) -> bool:
        """Whether a write taking `session` to `total` tokens is refused."""
        raise NotImplementedError


def _valid_key(key: object) -> bool:
    """Whether the reference accepts the key."""
    try:
        check_key(key)
    except SpecError:
        return False
    return True


class _RefusesOnlyWhenFull(_StoreLimit):
    def refuses(self, session: Session, total: int) -> bool:  # noqa: ARG002 - the new total is what it forgets
        return session.total_tokens >= MAX_STORE_TOKENS


class _SharedBudget(_Tracking, _StoreLimit):
    def refuses(self, session: Session, total: int) -> bool:
        others = (_session(self, sid) for sid in self.known - {session.session_id})
        return total + sum(other.total_tokens for other in others if other is not None) > MAX_STORE_TOKENS


# --- participants and concurrency (2.2, 4.4) ------------------------------------------------------


class _OwnersDelete(SharedContext):
    def handle(self, session_id: object, participant: object, request: object) -> Json:
        old = _current(self, session_id, _field(request, "key")) if _field(request, "action") == "delete" else None
        if old is not None and participant not in ("orchestrator", old.written_by):
            raise SpecError(
                "INVALID_REQUEST", f"{old.key!r} was written by {old.written_by}; only it or the orchestrator may delete it"
            )
        return super().handle(session_id, participant, request)


class _RefusesStaleWrites(SharedContext):
    """Remembers the version each participant last saw of each key, and refuses a write when it has changed since."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._seen: dict[tuple[str, str, str], int] = {}

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        action, seen = _field(request, "action"), (str(session_id), str(_field(request, "key")), str(participant))
        if action == "write" and seen in self._seen:
            current = _current(self, session_id, seen[1])
            if current is None or current.version != self._seen[seen]:
                raise SpecError("INVALID_REQUEST", f"{seen[1]!r} changed since you saw version {self._seen[seen]}: read it again")
        result = super().handle(session_id, participant, request)
        if action in ("read", "write"):
            self._seen[seen] = result["version"]
        elif action == "delete":
            self._seen = {k: v for k, v in self._seen.items() if k[:2] != seen[:2]}
        return result


# --- sessions (2.1, 5, 8.1, 8.4) ----------------------------------------------------------------


class _DeletesEverywhere(_Tracking):
    def handle(self, session_id: object, participant: object, request: object) -> Json:
        result = super().handle(session_id, participant, request)
        if _field(request, "action") == "delete":
            with self.store.transaction() as tx:  # DELETE ... WHERE key = ?, without the session
                for other in self.known - {str(session_id)}:
                    _remove(tx, other, result["deleted"])
        return result


class _CreatesOnWrite(SharedContext):
    def handle(self, session_id: object, participant: object, request: object) -> Json:
        if _field(request, "action") == "write" and isinstance(session_id, str) and _session(self, session_id) is None:
            with contextlib.suppress(SpecError):
                self.create_session(session_id)
        return super().handle(session_id, participant, request)


class _ArchivedIsNotFound(_Recoded):
    actions = frozenset({"write", "delete"})
    codes: ClassVar[dict[str, str]] = {"SESSION_ARCHIVED": "SESSION_NOT_FOUND"}


class _ArchiveAllowsDeletes(SharedContext):
    def handle(self, session_id: object, participant: object, request: object) -> Json:
        session = _session(self, session_id)
        if _field(request, "action") != "delete" or session is None or session.state != "archived":
            return super().handle(session_id, participant, request)
        key = self.check_key(_field(request, "key"))
        with self.store.transaction() as tx:
            old = tx.entry(session.session_id, key)
            if old is None:
                raise SpecError("KEY_NOT_FOUND", f"no key {key!r} in this session")
            _remove(tx, session.session_id, key)
        return {"deleted": key, "previous_version": old.version}


class _KeepsArchivedSessions(SharedContext):
    def delete_session(self, session_id: object) -> Json:
        session = _session(self, session_id)
        if session is not None and session.state == "archived":
            raise SpecError("SESSION_ARCHIVED", f"session {session.session_id!r} is archived and retained for audit")
        return super().delete_session(session_id)


class _SeedsNamespace(SharedContext):
    def create_session(self, session_id: object, config: object = None) -> Json:
        result = super().create_session(session_id, config)
        self.handle(session_id, "system", {"action": "write", "key": "current_phase", "value": "created"})
        return result


class _ToolArchives(SharedContext):
    def handle(self, session_id: object, participant: object, request: object) -> Json:
        if _field(request, "action") == "archive_session":
            return self.archive_session(session_id)
        return super().handle(session_id, participant, request)


class _LingeringEntries(SharedContext):
    """delete_session forgets the session but not its entries, which a session of the same id finds again."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._orphans: dict[str, list[Entry]] = {}

    def delete_session(self, session_id: object) -> Json:
        if _session(self, session_id) is not None:
            with self.store.transaction() as tx:
                found = (tx.entry(str(session_id), meta.key) for meta in tx.metadata(str(session_id)))
                self._orphans[str(session_id)] = [entry for entry in found if entry is not None]
        return super().delete_session(session_id)

    def create_session(self, session_id: object, config: object = None) -> Json:
        result = super().create_session(session_id, config)
        total = 0
        with self.store.transaction() as tx:
            for entry in self._orphans.pop(str(session_id), []):
                total += entry.tokens
                tx.put(str(session_id), entry, total, self._history_depth)
        return result


# --- durability (4.5, 8.1) ----------------------------------------------------------------------


def _in_memory(store: Store) -> SharedContext:
    """The reference over a dict instead of the durable store it was given."""
    store.close()
    return SharedContext(MemoryStore())


class _TxProxy:
    """A transaction that passes every call on to the store's own; variants override some."""

    def __init__(self, inner: Transaction, since: str, created: set[str]) -> None:
        self.inner, self.since, self.created = inner, since, created

    def session(self, session_id: str) -> Session | None:
        return self.inner.session(session_id)

    def create_session(self, session_id: str) -> None:
        self.created.add(session_id)
        self.inner.create_session(session_id)

    def set_state(self, session_id: str, state: SessionState) -> None:
        self.inner.set_state(session_id, state)

    def drop_session(self, session_id: str) -> None:
        self.inner.drop_session(session_id)

    def entry(self, session_id: str, key: str) -> Entry | None:
        return self.inner.entry(session_id, key)

    def metadata(self, session_id: str) -> list[Metadata]:
        return self.inner.metadata(session_id)

    def put(self, session_id: str, entry: Entry, total_tokens: int, keep_history: int) -> None:
        self.inner.put(session_id, entry, total_tokens, keep_history)

    def remove(self, session_id: str, key: str, total_tokens: int) -> None:
        self.inner.remove(session_id, key, total_tokens)

    def history(self, session_id: str, key: str) -> list[Entry]:
        return self.inner.history(session_id, key)

    def put_snapshot(self, session_id: str, label: str, taken_at: str) -> int:
        return self.inner.put_snapshot(session_id, label, taken_at)

    def snapshot(self, session_id: str, label: str) -> tuple[str, list[Entry]] | None:
        return self.inner.snapshot(session_id, label)


class _ProxyStore:
    """A store whose transactions are wrapped in a `_TxProxy` subclass that knows when this process started."""

    def __init__(self, inner: Store, proxy: type[_TxProxy]) -> None:
        self.inner, self.proxy, self.since, self.created = inner, proxy, utc_now(), set[str]()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """Wrap one of the store's transactions."""
        with self.inner.transaction() as tx:
            yield self.proxy(tx, self.since, self.created)

    def close(self) -> None:
        """Close the store."""
        self.inner.close()


class _EntriesOfThisProcess(_TxProxy):
    """Sessions are durable, entries are not: what was written before this process started is gone."""

    def entry(self, session_id: str, key: str) -> Entry | None:
        found = self.inner.entry(session_id, key)
        return found if found is not None and found.written_at >= self.since else None

    def metadata(self, session_id: str) -> list[Metadata]:
        return [meta for meta in self.inner.metadata(session_id) if meta.written_at >= self.since]

    def history(self, session_id: str, key: str) -> list[Entry]:
        return [entry for entry in self.inner.history(session_id, key) if entry.written_at >= self.since]


class _ArchivedAtRestart(_TxProxy):
    """Every session this process did not create counts as archived: a restart closes them all."""

    def session(self, session_id: str) -> Session | None:
        found = self.inner.session(session_id)
        return replace(found, state="archived") if found is not None and session_id not in self.created else found


class _SubagentScratch(SharedContext):
    """Clears what subagents wrote once the orchestrator writes again, as if their work ended with them."""

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        result = super().handle(session_id, participant, request)
        if _field(request, "action") == "write" and participant == "orchestrator":
            with self.store.transaction() as tx:
                for meta in tx.metadata(str(session_id)):
                    if meta.written_by.startswith("subagent:"):
                        _remove(tx, str(session_id), meta.key)
        return result


class _RecentKeysOnly(SharedContext):
    """Keeps only the 32 most recently written keys of a session, like a cache."""

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        result = super().handle(session_id, participant, request)
        if _field(request, "action") == "write":
            with self.store.transaction() as tx:
                metadata = sorted(tx.metadata(str(session_id)), key=lambda meta: meta.written_at)
                for meta in metadata[: max(0, len(metadata) - _KEPT_KEYS)]:
                    _remove(tx, str(session_id), meta.key)
        return result


_KEPT_KEYS: Final = 32


# --- errors (5) ---------------------------------------------------------------------------------


class _MessageIsCode(SharedContext):
    def handle(self, session_id: object, participant: object, request: object) -> Json:
        try:
            return super().handle(session_id, participant, request)
        except SpecError as error:
            raise SpecError(error.code, error.code) from None


# --- the mutants ----------------------------------------------------------------------------------


@mutant("shared-context/2.1/one-store-per-session", catalogue=MUTANTS)
def sessions_share_one_token_budget() -> Reference:
    """The reference, except that the 10,000-token limit counts the values of every session together."""
    return _with(_SharedBudget)


@mutant(
    "shared-context/2.2/equal-access",
    "shared-context/5/session-archived",
    catalogue=MUTANTS,
)
def only_writer_or_orchestrator_deletes() -> Reference:
    """The reference, except that a subagent may only delete keys it wrote itself."""
    return _with(_OwnersDelete)


@mutant("shared-context/2.3/value-is-text", catalogue=MUTANTS)
def serializes_non_text_values() -> Reference:
    """The reference, except that a value that is not a string is stored as its JSON text instead of refused."""
    return _with(_SerializesValues)


@mutant(
    "shared-context/2.3/written-at-utc",
    "shared-context/3.2/request-and-response-shape",
    "shared-context/3.3/request-and-response-shape",
    "shared-context/7.6/snapshot",
    catalogue=MUTANTS,
)
def timestamps_without_time_zone() -> Reference:
    """The reference, except that written_at is the local time without a time zone."""
    return _with(partial(SharedContext, clock=_naive_now))


@mutant(
    "shared-context/2.3/version-monotonic",
    "shared-context/3.3/version-increments",
    catalogue=MUTANTS,
)
def unchanged_rewrite_keeps_version() -> Reference:
    """The reference, except that rewriting a key with its current value is skipped and keeps the version."""
    return _with(_SkipsUnchanged)


@mutant(
    "shared-context/2.4/ad-hoc-keys-permitted",
    "shared-context/4.3/key-pattern",
    "shared-context/4.3/key-max-length",
    catalogue=MUTANTS,
)
def keys_must_start_with_a_letter() -> Reference:
    """The reference, except that keys starting with a digit or an underscore are refused."""
    return _with(_LetterFirstKeys)


@mutant(
    "shared-context/3/four-operations",
    "shared-context/3.4/request-and-response-shape",
    "shared-context/3.4/removes-key",
    "shared-context/3.4/previous-version",
    "shared-context/5/key-not-found",
    "shared-context/5/invalid-key-on-read-delete",
    "shared-context/5/session-not-found",
    "shared-context/5/session-archived",
    "shared-context/8.4/delete-session-gone",
    catalogue=MUTANTS,
)
def no_delete_action() -> Reference:
    """The reference, except that the tool has no delete action."""
    return _with(_WritesWithoutDelete)


@mutant("shared-context/3/synchronous", catalogue=MUTANTS)
def listing_cached_per_participant() -> Reference:
    """The reference, except that list_keys repeats a participant's last listing until that participant writes or deletes."""
    return _with(_CachedListings)


@mutant("shared-context/3.1/request-and-response-shape", catalogue=MUTANTS)
def list_keys_without_written_at() -> Reference:
    """The reference, except that list_keys items leave out written_at."""
    return _with(_ListWithoutWrittenAt)


@mutant("shared-context/3.1/returns-all-keys", catalogue=MUTANTS)
def list_keys_shows_creation_metadata() -> Reference:
    """The reference, except that list_keys shows the written_by, written_at and version of a key's first write."""
    return _with(_FirstWriteMetadata)


@mutant("shared-context/3.1/no-values", catalogue=MUTANTS)
def list_keys_previews_values() -> Reference:
    """The reference, except that list_keys items carry a preview of the value's first 40 characters."""
    return _with(_ListPreviews)


@mutant(
    "shared-context/3.1/value-size-tokens-field",
    "shared-context/3.1/request-and-response-shape",
    "shared-context/8.2/approximate-token-count",
    catalogue=MUTANTS,
)
def value_size_tokens_as_float() -> Reference:
    """The reference, except that value_size_tokens is len(value) / 4 as a float."""
    return _with(_FloatTokens)


@mutant("shared-context/3.2/request-and-response-shape", catalogue=MUTANTS)
def read_without_key() -> Reference:
    """The reference, except that read leaves the key out of its answer."""
    return _with(_ReadWithoutKey)


@mutant(
    "shared-context/3.2/returns-value",
    "shared-context/3/synchronous",
    catalogue=MUTANTS,
)
def read_cache_not_cleared_by_write() -> Reference:
    """The reference, except that read answers from a cache that an overwrite does not clear."""
    return _with(_CachedReads)


@mutant(
    "shared-context/3.2/key-not-found",
    "shared-context/5/key-not-found",
    catalogue=MUTANTS,
)
def missing_key_reads_as_empty() -> Reference:
    """The reference, except that reading a missing key answers an empty value at version 0."""
    return _with(_EmptyForMissing)


@mutant("shared-context/3.3/request-and-response-shape", catalogue=MUTANTS)
def write_without_written_at() -> Reference:
    """The reference, except that write leaves written_at out of its answer."""
    return _with(_WriteWithoutWrittenAt)


@mutant(
    "shared-context/3.3/creates-or-overwrites",
    "shared-context/3.2/returns-value",
    "shared-context/4.4/last-write-wins",
    "shared-context/3/synchronous",
    "shared-context/7.3/read-history-returns-history",
    catalogue=MUTANTS,
)
def overwrite_keeps_old_value() -> Reference:
    """The reference, except that overwriting a key updates its metadata but keeps the old value."""
    return _with(_KeepsOldValue)


@mutant(
    "shared-context/3.3/create-version-one",
    "shared-context/3.3/rewrite-after-delete-version-one",
    catalogue=MUTANTS,
)
def versions_count_session_writes() -> Reference:
    """The reference, except that versions come from one counter per session, so a new key may start above 1."""
    return _with(_SessionRevisions)


@mutant("shared-context/3.3/rewrite-after-delete-version-one", catalogue=MUTANTS)
def rewrite_continues_deleted_version() -> Reference:
    """The reference, except that a key written again after its delete continues from its old version."""
    return _with(_VersionsSurviveDelete)


@mutant("shared-context/3.3/written-by-system-set", catalogue=MUTANTS)
def written_by_stays_the_creator() -> Reference:
    """The reference, except that an overwrite keeps the written_by of the key's creator."""
    return _with(_CreatorStaysWriter)


@mutant("shared-context/3.3/written-by-not-spoofable", catalogue=MUTANTS)
def written_by_taken_from_the_body() -> Reference:
    """The reference, except that a written_by field in a write request is recorded as the writer."""
    return _with(_TrustsBodyWriter)


@mutant("shared-context/3.4/request-and-response-shape", catalogue=MUTANTS)
def delete_answers_key_field() -> Reference:
    """The reference, except that delete names the removed key in a "key" field instead of "deleted"."""
    return _with(_DeleteAnswersKey)


@mutant(
    "shared-context/3.4/removes-key",
    "shared-context/3.1/returns-all-keys",
    catalogue=MUTANTS,
)
def deleted_keys_still_listed() -> Reference:
    """The reference, except that list_keys still lists deleted keys until they are written again."""
    return _with(_SoftDelete)


@mutant("shared-context/3.4/previous-version", catalogue=MUTANTS)
def previous_version_off_by_one() -> Reference:
    """The reference, except that delete's previous_version is one more than the key's last version."""
    return _with(_PreviousVersionPlusOne)


@mutant(
    "shared-context/3.4/key-not-found",
    "shared-context/5/key-not-found",
    catalogue=MUTANTS,
)
def delete_of_missing_key_succeeds() -> Reference:
    """The reference, except that deleting a missing key succeeds with previous_version 0."""
    return _with(_IdempotentDelete)


@mutant("shared-context/4.1/value-size-limit", catalogue=MUTANTS)
def value_limit_is_1024_tokens() -> Reference:
    """The reference, except that values of up to 1024 tokens are accepted."""
    return _with(_BinaryThousandValues)


@mutant(
    "shared-context/4.2/store-size-limit",
    "shared-context/8.2/limits-approximate-counting",
    catalogue=MUTANTS,
)
def store_limit_checked_before_write() -> Reference:
    """The reference, except that a write is refused only when the store is already full, so it may overfill it."""
    return _with(_RefusesOnlyWhenFull)


@mutant(
    "shared-context/4.3/key-pattern",
    "shared-context/5/invalid-key-on-write",
    catalogue=MUTANTS,
)
def uppercase_keys_accepted() -> Reference:
    """The reference, except that the key pattern is matched case-insensitively."""
    return _with(_CaseInsensitiveKeys)


@mutant(
    "shared-context/4.3/no-separators",
    "shared-context/4.3/key-pattern",
    "shared-context/5/invalid-key-on-write",
    catalogue=MUTANTS,
)
def colon_prefixed_keys_accepted() -> Reference:
    """The reference, except that keys with one namespace prefix such as inv:findings are accepted."""
    return _with(_PrefixedKeys)


@mutant(
    "shared-context/4.4/last-write-wins",
    "shared-context/5/session-not-found",
    "shared-context/8.4/delete-session-gone",
    "shared-context/3.3/creates-or-overwrites",
    catalogue=MUTANTS,
)
def stale_writes_refused() -> Reference:
    """The reference, except that a write is refused when the key changed since the writer last read or wrote it."""
    return _with(_RefusesStaleWrites)


@mutant("shared-context/4.5/persists-session-lifetime", catalogue=MUTANTS)
def evicts_all_but_32_recent_keys() -> Reference:
    """The reference, except that a session keeps only its 32 most recently written keys."""
    return _with(_RecentKeysOnly)


@mutant("shared-context/4.5/survives-subagent-completion", catalogue=MUTANTS)
def orchestrator_write_clears_subagent_keys() -> Reference:
    """The reference, except that an orchestrator write removes every key that subagents wrote."""
    return _with(_SubagentScratch)


@mutant(
    "shared-context/4.5/survives-conversation-boundaries",
    "shared-context/8.1/durable-across-restarts",
    catalogue=MUTANTS,
)
def restart_archives_sessions() -> Reference:
    """The reference, except that a restart archives every session, as if the conversation had closed it."""
    return _with(lambda store: SharedContext(_ProxyStore(store, _ArchivedAtRestart)))


@mutant(
    "shared-context/4.5/survives-orchestrator-restart",
    "shared-context/4.5/durable-storage",
    "shared-context/4.5/persists-session-lifetime",
    "shared-context/4.5/survives-conversation-boundaries",
    "shared-context/8.1/durable-across-restarts",
    catalogue=MUTANTS,
)
def restart_loses_entries() -> Reference:
    """The reference, except that sessions survive a restart but their entries do not."""
    return _with(lambda store: SharedContext(_ProxyStore(store, _EntriesOfThisProcess)))


@mutant(
    "shared-context/4.5/durable-storage",
    "shared-context/4.5/persists-session-lifetime",
    "shared-context/4.5/survives-conversation-boundaries",
    "shared-context/4.5/survives-orchestrator-restart",
    "shared-context/8.1/durable-across-restarts",
    catalogue=MUTANTS,
)
def keeps_sessions_in_memory() -> Reference:
    """The reference, except that it keeps everything in memory instead of the durable store."""
    return _with(_in_memory)


@mutant("shared-context/4.5/not-survive-deletion", catalogue=MUTANTS)
def deleted_session_entries_linger() -> Reference:
    """The reference, except that delete_session leaves the entries behind for a session created with the same id."""
    return _with(_LingeringEntries)


@mutant(
    "shared-context/5/key-not-found",
    "shared-context/5/error-code-and-message",
    catalogue=MUTANTS,
)
def missing_key_is_invalid_key() -> Reference:
    """The reference, except that read and delete of a missing key answer INVALID_KEY."""
    return _with(_MissingIsInvalid)


@mutant(
    "shared-context/5/value-too-large",
    "shared-context/5/error-code-and-message",
    catalogue=MUTANTS,
)
def too_large_value_is_store_full() -> Reference:
    """The reference, except that a value over 1000 tokens is refused with STORE_FULL."""
    return _with(_TooLargeIsStoreFull)


@mutant(
    "shared-context/5/store-full",
    "shared-context/5/error-code-and-message",
    catalogue=MUTANTS,
)
def store_full_is_value_too_large() -> Reference:
    """The reference, except that a write past the store limit is refused with VALUE_TOO_LARGE."""
    return _with(_StoreFullIsTooLarge)


@mutant(
    "shared-context/5/invalid-key-on-write",
    "shared-context/5/error-code-and-message",
    catalogue=MUTANTS,
)
def invalid_key_on_write_is_invalid_request() -> Reference:
    """The reference, except that a write with a malformed key is refused with INVALID_REQUEST."""
    return _with(_InvalidKeyIsInvalidRequest)


@mutant(
    "shared-context/5/session-not-found",
    "shared-context/8.4/delete-session-gone",
    catalogue=MUTANTS,
)
def write_creates_unknown_session() -> Reference:
    """The reference, except that a write to an unknown session creates it."""
    return _with(_CreatesOnWrite)


@mutant(
    "shared-context/5/session-archived",
    "shared-context/5/error-code-and-message",
    catalogue=MUTANTS,
)
def archived_session_is_not_found() -> Reference:
    """The reference, except that writes and deletes on an archived session answer SESSION_NOT_FOUND."""
    return _with(_ArchivedIsNotFound)


@mutant("shared-context/5/error-code-and-message", catalogue=MUTANTS)
def error_message_repeats_code() -> Reference:
    """The reference, except that every tool error's message only repeats its code."""
    return _with(_MessageIsCode)


@mutant("shared-context/8.1/durable-across-restarts", catalogue=MUTANTS)
def version_counters_in_memory() -> Reference:
    """The reference, except that versions are counted in memory, so after a restart a key's next write is version 1."""
    return _with(_VersionsInMemory)


@mutant("shared-context/8.1/per-session-isolation", catalogue=MUTANTS)
def delete_reaches_every_session() -> Reference:
    """The reference, except that deleting a key also deletes it in the other sessions."""
    return _with(_DeletesEverywhere)


@mutant("shared-context/8.4/create-empty-store", catalogue=MUTANTS)
def new_session_seeds_current_phase() -> Reference:
    """The reference, except that create_session writes a current_phase key into the new store."""
    return _with(_SeedsNamespace)


@mutant(
    "shared-context/8.4/archive-read-only",
    "shared-context/5/session-archived",
    catalogue=MUTANTS,
)
def archived_session_allows_deletes() -> Reference:
    """The reference, except that deletes still work on an archived session."""
    return _with(_ArchiveAllowsDeletes)


@mutant("shared-context/8.4/delete-session-gone", catalogue=MUTANTS)
def archived_session_cannot_be_deleted() -> Reference:
    """The reference, except that delete_session refuses an archived session."""
    return _with(_KeepsArchivedSessions)


@mutant("shared-context/8.4/lifecycle-not-agent-facing", catalogue=MUTANTS)
def tool_archives_session() -> Reference:
    """The reference, except that the tool accepts an archive_session action on the caller's session."""
    return _with(_ToolArchives)
