"""Mutants that break section 2.2 of shared-context, Participants."""

from __future__ import annotations

from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.shared_context import SharedContext
from ctxconform.reference.shared_context.mutants._base import CATALOGUE, Json, current_entry, request_field


@CATALOGUE.mutant(
    "shared-context/2.2/equal-access",
    "shared-context/5/session-archived",
)
class OnlyWriterOrOrchestratorDeletes(SharedContext):
    """The reference, except that a subagent may only delete keys it wrote itself."""

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        deleting = request_field(request, "action") == "delete"
        old = current_entry(self, session_id, request_field(request, "key")) if deleting else None
        if old is not None and participant not in ("orchestrator", old.written_by):
            raise SpecError(
                "INVALID_REQUEST", f"{old.key!r} was written by {old.written_by}; only it or the orchestrator may delete it"
            )
        return super().handle(session_id, participant, request)
