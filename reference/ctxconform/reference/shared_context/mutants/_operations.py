"""Mutants that break section 3 of shared-context, Operations."""

from __future__ import annotations

import copy

from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.shared_context import SharedContext, Store
from ctxconform.reference.shared_context.mutants._base import CATALOGUE, Json, request_field


@CATALOGUE.mutant(
    "shared-context/3/four-operations",
    "shared-context/3.4/request-and-response-shape",
    "shared-context/3.4/removes-key",
    "shared-context/3.4/previous-version",
    "shared-context/5/key-not-found",
    "shared-context/5/invalid-key-on-read-delete",
    "shared-context/5/session-not-found",
    "shared-context/5/session-archived",
    "shared-context/8.4/delete-session-gone",
)
class NoDeleteAction(SharedContext):
    """The reference, except that the tool has no delete action."""

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        if request_field(request, "action") == "delete":
            raise SpecError("INVALID_ACTION", "unknown action 'delete'; expected one of list_keys, read, write")
        return super().handle(session_id, participant, request)


@CATALOGUE.mutant("shared-context/3/synchronous")
class ListingCachedPerParticipant(SharedContext):
    """The reference, except that list_keys repeats a participant's last listing until that participant writes or deletes."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._listings: dict[tuple[str, str], Json] = {}

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        action, caller = request_field(request, "action"), (str(session_id), str(participant))
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
