"""Mutants that break section 4.5 of shared-context, Durability."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import replace
from typing import ClassVar

from ctxconform.reference.shared_context import (
    Entry,
    MemoryStore,
    Metadata,
    Session,
    SessionState,
    SharedContext,
    Store,
    Transaction,
    utc_now,
)
from ctxconform.reference.shared_context.mutants._base import CATALOGUE, Json, remove_entry, request_field, session_of


@CATALOGUE.mutant("shared-context/4.5/persists-session-lifetime", name="evicts_all_but_32_recent_keys")
class EvictsAllBut32RecentKeys(SharedContext):
    """The reference, except that a session keeps only its 32 most recently written keys."""

    kept: ClassVar[int] = 32

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        result = super().handle(session_id, participant, request)
        if request_field(request, "action") == "write":
            with self.store.transaction() as tx:
                metadata = sorted(tx.metadata(str(session_id)), key=lambda meta: meta.written_at)
                for meta in metadata[: max(0, len(metadata) - self.kept)]:
                    remove_entry(tx, str(session_id), meta.key)
        return result


@CATALOGUE.mutant("shared-context/4.5/survives-subagent-completion")
class OrchestratorWriteClearsSubagentKeys(SharedContext):
    """The reference, except that an orchestrator write removes every key that subagents wrote."""

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        result = super().handle(session_id, participant, request)
        if request_field(request, "action") == "write" and participant == "orchestrator":
            with self.store.transaction() as tx:
                for meta in tx.metadata(str(session_id)):
                    if meta.written_by.startswith("subagent:"):
                        remove_entry(tx, str(session_id), meta.key)
        return result


class _TxProxy:
    """A transaction that passes every call on to the store's own; the restart mutants override some."""

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


@CATALOGUE.mutant(
    "shared-context/4.5/survives-conversation-boundaries",
    "shared-context/8.1/durable-across-restarts",
)
class RestartArchivesSessions(SharedContext):
    """The reference, except that a restart archives every session, as if the conversation had closed it."""

    class Proxy(_TxProxy):
        """Every session this process did not create counts as archived: a restart closes them all."""

        def session(self, session_id: str) -> Session | None:
            found = self.inner.session(session_id)
            return replace(found, state="archived") if found is not None and session_id not in self.created else found

    def __init__(self, store: Store) -> None:
        super().__init__(_ProxyStore(store, self.Proxy))


@CATALOGUE.mutant(
    "shared-context/4.5/survives-orchestrator-restart",
    "shared-context/4.5/durable-storage",
    "shared-context/4.5/persists-session-lifetime",
    "shared-context/4.5/survives-conversation-boundaries",
    "shared-context/8.1/durable-across-restarts",
)
class RestartLosesEntries(SharedContext):
    """The reference, except that sessions survive a restart but their entries do not."""

    class Proxy(_TxProxy):
        """Sessions are durable, entries are not: what was written before this process started is gone."""

        def entry(self, session_id: str, key: str) -> Entry | None:
            found = self.inner.entry(session_id, key)
            return found if found is not None and found.written_at >= self.since else None

        def metadata(self, session_id: str) -> list[Metadata]:
            return [meta for meta in self.inner.metadata(session_id) if meta.written_at >= self.since]

        def history(self, session_id: str, key: str) -> list[Entry]:
            return [entry for entry in self.inner.history(session_id, key) if entry.written_at >= self.since]

    def __init__(self, store: Store) -> None:
        super().__init__(_ProxyStore(store, self.Proxy))


@CATALOGUE.mutant(
    "shared-context/4.5/durable-storage",
    "shared-context/4.5/persists-session-lifetime",
    "shared-context/4.5/survives-conversation-boundaries",
    "shared-context/4.5/survives-orchestrator-restart",
    "shared-context/8.1/durable-across-restarts",
)
class KeepsSessionsInMemory(SharedContext):
    """The reference, except that it keeps everything in memory instead of the durable store."""

    def __init__(self, store: Store) -> None:
        store.close()  # a dict instead of the durable store it was given
        super().__init__(MemoryStore())


@CATALOGUE.mutant("shared-context/4.5/not-survive-deletion")
class DeletedSessionEntriesLinger(SharedContext):
    """The reference, except that delete_session leaves the entries behind for a session created with the same id."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._orphans: dict[str, list[Entry]] = {}

    def delete_session(self, session_id: object) -> Json:
        if session_of(self, session_id) is not None:
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
                tx.put(str(session_id), entry, total, self.history_depth)
        return result
