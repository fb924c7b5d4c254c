"""Mutants that break section 4.4 of shared-context, Concurrency."""

from __future__ import annotations

from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.shared_context import SharedContext, Store
from ctxconform.reference.shared_context.mutants._base import CATALOGUE, Json, current_entry, request_field


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
