"""Mutants that break section 3.2 of shared-context, read."""

from __future__ import annotations

import copy

from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.shared_context import Entry, SharedContext, Store, utc_now
from ctxconform.reference.shared_context.mutants._base import (
    CATALOGUE,
    Json,
    Reshaped,
    current_entry,
    request_field,
    session_of,
)


@CATALOGUE.mutant("shared-context/3.2/request-and-response-shape")
class ReadWithoutKey(Reshaped):
    """The reference, except that read leaves the key out of its answer."""

    action = "read"

    def reshape(self, sid: str, result: Json) -> Json:  # noqa: ARG002 - the result alone changes
        return {k: v for k, v in result.items() if k != "key"}


@CATALOGUE.mutant(
    "shared-context/3.2/returns-value",
    "shared-context/3/synchronous",
)
class ReadCacheNotClearedByWrite(SharedContext):
    """The reference, except that read answers from a cache that an overwrite does not clear."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._reads: dict[tuple[str, str], Json] = {}

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        action, slot = request_field(request, "action"), (str(session_id), str(request_field(request, "key")))
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


@CATALOGUE.mutant(
    "shared-context/3.2/key-not-found",
    "shared-context/5/key-not-found",
)
class MissingKeyReadsAsEmpty(SharedContext):
    """The reference, except that reading a missing key answers an empty value at version 0."""

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        try:
            return super().handle(session_id, participant, request)
        except SpecError as error:
            if request_field(request, "action") != "read" or error.code != "KEY_NOT_FOUND":
                raise
            key = request_field(request, "key")
            return {"key": key, "value": "", "written_by": str(participant), "written_at": utc_now(), "version": 0}


@CATALOGUE.mutant("shared-context/3.2/key-not-found", "shared-context/5/key-not-found", edge="identifiers")
class MissingKeysLookedUpAsAttributes(SharedContext):
    """The reference, except that a missing key is looked up with getattr on the entry class, so `__class__` exists."""

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        key = request_field(request, "key")
        reading = request_field(request, "action") == "read" and isinstance(key, str) and session_of(self, session_id)
        if reading and current_entry(self, session_id, key) is None and hasattr(Entry, str(key)):
            value = str(getattr(Entry, str(key)))
            return {"key": key, "value": value, "written_by": "system", "written_at": utc_now(), "version": 1}
        return super().handle(session_id, participant, request)
