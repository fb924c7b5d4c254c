"""Mutants that break section 8.1 of shared-context, Storage Backend."""

from __future__ import annotations

from ctxconform.reference.shared_context import Entry, SharedContext, Store
from ctxconform.reference.shared_context.mutants._base import CATALOGUE, Json, Tracking, remove_entry, request_field


@CATALOGUE.mutant("shared-context/8.1/durable-across-restarts")
class VersionCountersInMemory(SharedContext):
    """The reference, except that versions are counted in memory, so after a restart a key's next write is version 1."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._versions: dict[tuple[str, str], int] = {}

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        result = super().handle(session_id, participant, request)
        if request_field(request, "action") == "delete":
            self._versions.pop((str(session_id), result["deleted"]), None)
        return result

    def delete_session(self, session_id: object) -> Json:
        self._versions = {k: v for k, v in self._versions.items() if k[0] != session_id}
        return super().delete_session(session_id)

    def entry_version(self, sid: str, key: str, old: Entry | None) -> int:  # noqa: ARG002 - the stored version is ignored
        self._versions[(sid, key)] = self._versions.get((sid, key), 0) + 1
        return self._versions[(sid, key)]


@CATALOGUE.mutant("shared-context/8.1/per-session-isolation")
class DeleteReachesEverySession(Tracking):
    """The reference, except that deleting a key also deletes it in the other sessions."""

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        result = super().handle(session_id, participant, request)
        if request_field(request, "action") == "delete":
            with self.store.transaction() as tx:  # DELETE ... WHERE key = ?, without the session
                for other in self.known - {str(session_id)}:
                    remove_entry(tx, other, result["deleted"])
        return result
