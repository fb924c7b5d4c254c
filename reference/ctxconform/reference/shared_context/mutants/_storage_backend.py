"""Mutants that break section 8.1 of shared-context, Storage Backend."""

from __future__ import annotations

import contextlib
import os
import unicodedata
from pathlib import Path

from ctxconform.reference.shared_context import Entry, SharedContext, Store
from ctxconform.reference.shared_context.mutants._base import CATALOGUE, Json, Tracking, remove_entry, request_field


@CATALOGUE.mutant(
    "shared-context/8.1/durable-across-restarts",
    "shared-context/3.3/version-increments",
    "shared-context/2.3/version-monotonic",
)
class VersionCountersInMemory(SharedContext):
    """The reference, except that versions are counted in memory, so after a restart a key's next write is version 1.

    A key that exists is then overwritten at version 1 instead of one more than its version (3.3), which goes back
    (2.3): after a restart, or in a second instance on the same state, whose counters start again too.
    """

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


class RenamedSessions(SharedContext):
    """Keeps each session under `store_id(session_id)` instead of the id itself; the answers still name the id."""

    def store_id(self, session_id: object) -> object:
        """The name the session is kept under."""
        return session_id

    def create_session(self, session_id: object, config: object = None) -> Json:
        return {**super().create_session(self.store_id(session_id), config), "session_id": session_id}

    def archive_session(self, session_id: object) -> Json:
        return {**super().archive_session(self.store_id(session_id)), "session_id": session_id}

    def delete_session(self, session_id: object) -> Json:
        return {**super().delete_session(self.store_id(session_id)), "session_id": session_id}

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        return super().handle(self.store_id(session_id), participant, request)


@CATALOGUE.mutant("shared-context/8.1/per-session-isolation", "shared-context/5/error-code-and-message", edge="identifiers")
class SessionIdsJoinedIntoPaths(RenamedSessions):
    """The reference, except that each session is the file state_dir/<session_id>.json, so `./x` is `x` and `../x` is outside.

    An id with a NUL byte makes no path at all: creating that session fails without an error code and message.
    """

    def store_id(self, session_id: object) -> object:
        return os.path.normpath(f"{session_id}.json") if isinstance(session_id, str) and session_id else session_id

    def create_session(self, session_id: object, config: object = None) -> Json:
        result = super().create_session(session_id, config)
        state = Path(getattr(self.store, "path", "")).parent
        target = state / str(self.store_id(session_id))
        # The file lands where the joined path points; only one level out is written, never elsewhere on the machine.
        if state != Path() and target.resolve().is_relative_to(state.resolve().parent):
            with contextlib.suppress(OSError):
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text("{}", encoding="utf-8")
        return result


@CATALOGUE.mutant("shared-context/8.1/per-session-isolation", edge="identifiers")
class SessionIdsMatchedCaseInsensitively(RenamedSessions):
    """The reference, except that sessions are kept in a map keyed by the casefolded session_id."""

    def store_id(self, session_id: object) -> object:
        return session_id.casefold() if isinstance(session_id, str) else session_id


@CATALOGUE.mutant("shared-context/8.1/per-session-isolation", edge="identifiers")
class SessionIdsNormalizedToNfc(RenamedSessions):
    """The reference, except that sessions are kept in a map keyed by the NFC normal form of the session_id."""

    def store_id(self, session_id: object) -> object:
        return unicodedata.normalize("NFC", session_id) if isinstance(session_id, str) else session_id
