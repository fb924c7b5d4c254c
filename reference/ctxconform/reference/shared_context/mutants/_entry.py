"""Mutants that break section 2.3 of shared-context, Entry."""

from __future__ import annotations

import json
from datetime import datetime

from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.shared_context import SharedContext, Store
from ctxconform.reference.shared_context.mutants._base import CATALOGUE, Json, as_dict, current_entry, request_field, session_of


@CATALOGUE.mutant("shared-context/2.3/value-is-text")
class SerializesNonTextValues(SharedContext):
    """The reference, except that a value that is not a string is stored as its JSON text instead of refused."""

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        value = request_field(request, "value")
        if request_field(request, "action") == "write" and value is not None and not isinstance(value, str):
            request = {**as_dict(request), "value": json.dumps(value)}
        return super().handle(session_id, participant, request)


@CATALOGUE.mutant(
    "shared-context/2.3/written-at-utc",
    "shared-context/3.2/request-and-response-shape",
    "shared-context/3.3/request-and-response-shape",
    "shared-context/7.6/snapshot",
)
class TimestampsWithoutTimeZone(SharedContext):
    """The reference, except that written_at is the local time without a time zone."""

    def __init__(self, store: Store) -> None:
        super().__init__(store, clock=self.naive_now)

    @staticmethod
    def naive_now() -> str:
        """The local time without a time zone, as datetime.now().isoformat() gives it."""
        return datetime.now().isoformat(timespec="microseconds")  # noqa: DTZ005 - the missing time zone is the mutation


@CATALOGUE.mutant(
    "shared-context/2.3/version-monotonic",
    "shared-context/3.3/version-increments",
)
class UnchangedRewriteKeepsVersion(SharedContext):
    """The reference, except that rewriting a key with its current value is skipped and keeps the version."""

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        writing = request_field(request, "action") == "write"
        old = current_entry(self, session_id, request_field(request, "key")) if writing else None
        session = session_of(self, session_id)
        if old is not None and old.value == request_field(request, "value") and session is not None and session.state == "active":
            return {"key": old.key, "version": old.version, "written_by": old.written_by, "written_at": old.written_at}
        return super().handle(session_id, participant, request)


@CATALOGUE.mutant(
    "shared-context/2.3/value-is-text",
    "shared-context/3.2/returns-value",
    "shared-context/4.1/value-size-limit",
    "shared-context/5/value-too-large",
    edge="degenerate",
)
class ValuesStoredStripped(SharedContext):
    """The reference, except that a value is stored with the white space around it stripped.

    The value is stripped before it is counted, so a value over the limit by its blank padding is taken, not refused.
    """

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        value = request_field(request, "value")
        if request_field(request, "action") == "write" and isinstance(value, str):
            request = {**as_dict(request), "value": value.strip()}
        return super().handle(session_id, participant, request)


@CATALOGUE.mutant("shared-context/2.3/value-is-text", "shared-context/3.3/creates-or-overwrites", edge="degenerate")
class EmptyValueTakenAsMissing(SharedContext):
    """The reference, except that an empty value is taken for a missing one (`if not request.get("value")`) and refused."""

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        if request_field(request, "action") == "write" and not request_field(request, "value"):
            raise SpecError("INVALID_REQUEST", "write needs a 'value'")
        return super().handle(session_id, participant, request)
