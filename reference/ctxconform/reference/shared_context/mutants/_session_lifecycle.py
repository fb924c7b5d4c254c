"""Mutants that break section 8.4 of shared-context, Session Lifecycle."""

from __future__ import annotations

from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.shared_context import SharedContext
from ctxconform.reference.shared_context.mutants._base import CATALOGUE, Json, remove_entry, request_field, session_of


@CATALOGUE.mutant("shared-context/8.4/create-empty-store")
class NewSessionSeedsCurrentPhase(SharedContext):
    """The reference, except that create_session writes a current_phase key into the new store."""

    def create_session(self, session_id: object, config: object = None) -> Json:
        result = super().create_session(session_id, config)
        self.handle(session_id, "system", {"action": "write", "key": "current_phase", "value": "created"})
        return result


@CATALOGUE.mutant(
    "shared-context/8.4/archive-read-only",
    "shared-context/5/session-archived",
)
class ArchivedSessionAllowsDeletes(SharedContext):
    """The reference, except that deletes still work on an archived session."""

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        session = session_of(self, session_id)
        if request_field(request, "action") != "delete" or session is None or session.state != "archived":
            return super().handle(session_id, participant, request)
        key = self.check_key(request_field(request, "key"))
        with self.store.transaction() as tx:
            old = tx.entry(session.session_id, key)
            if old is None:
                raise SpecError("KEY_NOT_FOUND", f"no key {key!r} in this session")
            remove_entry(tx, session.session_id, key)
        return {"deleted": key, "previous_version": old.version}


@CATALOGUE.mutant("shared-context/8.4/delete-session-gone")
class ArchivedSessionCannotBeDeleted(SharedContext):
    """The reference, except that delete_session refuses an archived session."""

    def delete_session(self, session_id: object) -> Json:
        session = session_of(self, session_id)
        if session is not None and session.state == "archived":
            raise SpecError("SESSION_ARCHIVED", f"session {session.session_id!r} is archived and retained for audit")
        return super().delete_session(session_id)


@CATALOGUE.mutant("shared-context/8.4/lifecycle-not-agent-facing")
class ToolArchivesSession(SharedContext):
    """The reference, except that the tool accepts an archive_session action on the caller's session."""

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        if request_field(request, "action") == "archive_session":
            return self.archive_session(session_id)
        return super().handle(session_id, participant, request)
