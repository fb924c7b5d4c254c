"""Mutants that break section 4.4 of shared-context, Concurrency."""

from __future__ import annotations

from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.shared_context import Entry, SharedContext, Store
from ctxconform.reference.shared_context.mutants._base import (
    CATALOGUE,
    Json,
    current_entry,
    remove_entry,
    request_field,
    session_of,
)


@CATALOGUE.mutant(
    "shared-context/4.4/last-write-wins",
    "shared-context/5/session-not-found",
    "shared-context/8.4/delete-session-gone",
    "shared-context/3.3/creates-or-overwrites",
)
class StaleWritesRefused(SharedContext):
    """The reference, except that a write is refused when the key changed since the writer last read or wrote it."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        # The version each participant last saw of each key.
        self._seen: dict[tuple[str, str, str], int] = {}

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        action, seen = request_field(request, "action"), (str(session_id), str(request_field(request, "key")), str(participant))
        if action == "write" and seen in self._seen:
            current = current_entry(self, session_id, seen[1])
            if current is None or current.version != self._seen[seen]:
                raise SpecError("INVALID_REQUEST", f"{seen[1]!r} changed since you saw version {self._seen[seen]}: read it again")
        result = super().handle(session_id, participant, request)
        if action in ("read", "write"):
            self._seen[seen] = result["version"]
        elif action == "delete":
            self._seen = {k: v for k, v in self._seen.items() if k[:2] != seen[:2]}
        return result


@CATALOGUE.mutant("shared-context/4.4/last-write-wins", "shared-context/3/synchronous", edge="two-writers")
class WholeSessionWrittenBack(SharedContext):
    """The reference, except that each process loads a session whole on first use and writes it back whole on every write."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._loaded: dict[str, dict[str, Entry]] = {}

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        action, sid = request_field(request, "action"), str(session_id)
        if sid not in self._loaded and session_of(self, session_id) is not None:
            with self.store.transaction() as tx:
                self._loaded[sid] = {meta.key: entry for meta in tx.metadata(sid) if (entry := tx.entry(sid, meta.key))}
        result = super().handle(session_id, participant, request)
        if action in ("write", "delete") and sid in self._loaded:
            self._write_back(sid, result)
        return result

    def delete_session(self, session_id: object) -> Json:
        self._loaded.pop(str(session_id), None)
        return super().delete_session(session_id)

    def _write_back(self, sid: str, result: Json) -> None:
        loaded = self._loaded[sid]
        with self.store.transaction() as tx:
            if "deleted" in result:
                loaded.pop(result["deleted"], None)
            elif (written := tx.entry(sid, result["key"])) is not None:
                loaded[written.key] = written
            for meta in tx.metadata(sid):
                if meta.key not in loaded:
                    remove_entry(tx, sid, meta.key)
            for key, entry in loaded.items():
                old, session = tx.entry(sid, key), tx.session(sid)
                if old != entry and session is not None:
                    tx.put(sid, entry, session.total_tokens - (old.tokens if old else 0) + entry.tokens, self.history_depth)
