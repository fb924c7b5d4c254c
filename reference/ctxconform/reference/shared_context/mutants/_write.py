"""Mutants that break section 3.3 of shared-context, write."""

from __future__ import annotations

from ctxconform.reference.shared_context import Entry, SharedContext, Store, estimate_tokens
from ctxconform.reference.shared_context.mutants._base import CATALOGUE, Json, Reshaped, as_dict, current_entry, request_field


@CATALOGUE.mutant(
    "shared-context/3.3/version-increments",
    "shared-context/2.3/version-monotonic",
)
class VersionsDoNotIncrement(SharedContext):
    """The reference, except that overwriting a key keeps version 1."""

    def next_version(self, old: Entry | None) -> int:  # noqa: ARG002 - ignoring the old version is the mutation
        return 1


@CATALOGUE.mutant("shared-context/3.3/request-and-response-shape")
class WriteWithoutWrittenAt(Reshaped):
    """The reference, except that write leaves written_at out of its answer."""

    action = "write"

    def reshape(self, sid: str, result: Json) -> Json:  # noqa: ARG002 - the result alone changes
        return {k: v for k, v in result.items() if k != "written_at"}


@CATALOGUE.mutant(
    "shared-context/3.3/creates-or-overwrites",
    "shared-context/3.2/returns-value",
    "shared-context/4.4/last-write-wins",
    "shared-context/3/synchronous",
    "shared-context/7.3/read-history-returns-history",
)
class OverwriteKeepsOldValue(SharedContext):
    """The reference, except that overwriting a key updates its metadata but keeps the old value."""

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        value = request_field(request, "value")
        writing = request_field(request, "action") == "write"
        old = current_entry(self, session_id, request_field(request, "key")) if writing else None
        if old is not None and isinstance(value, str) and estimate_tokens(value) <= self.max_value_tokens:
            request = {**as_dict(request), "value": old.value}  # the UPDATE sets the metadata but forgets the value
        return super().handle(session_id, participant, request)


@CATALOGUE.mutant(
    "shared-context/3.3/create-version-one",
    "shared-context/3.3/rewrite-after-delete-version-one",
)
class VersionsCountSessionWrites(SharedContext):
    """The reference, except that versions come from one counter per session, so a new key may start above 1."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._revisions: dict[str, int] = {}

    def entry_version(self, sid: str, key: str, old: Entry | None) -> int:  # noqa: ARG002 - one counter for every key
        self._revisions[sid] = max(self._revisions.get(sid, 0), old.version if old else 0) + 1
        return self._revisions[sid]


@CATALOGUE.mutant("shared-context/3.3/rewrite-after-delete-version-one")
class RewriteContinuesDeletedVersion(SharedContext):
    """The reference, except that a key written again after its delete continues from its old version."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._deleted: dict[tuple[str, str], int] = {}

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        result = super().handle(session_id, participant, request)
        if request_field(request, "action") == "delete":
            self._deleted[(str(session_id), result["deleted"])] = result["previous_version"]
        return result

    def entry_version(self, sid: str, key: str, old: Entry | None) -> int:
        if old is None and (sid, key) in self._deleted:
            return self._deleted.pop((sid, key)) + 1
        return super().entry_version(sid, key, old)


@CATALOGUE.mutant("shared-context/3.3/written-by-system-set")
class WrittenByStaysTheCreator(SharedContext):
    """The reference, except that an overwrite keeps the written_by of the key's creator."""

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        writing = request_field(request, "action") == "write"
        old = current_entry(self, session_id, request_field(request, "key")) if writing else None
        return super().handle(session_id, participant if old is None else old.written_by, request)


@CATALOGUE.mutant("shared-context/3.3/written-by-not-spoofable")
class WrittenByTakenFromTheBody(SharedContext):
    """The reference, except that a written_by field in a write request is recorded as the writer."""

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        claimed = request_field(request, "written_by")
        if request_field(request, "action") == "write" and isinstance(claimed, str) and claimed:
            request = {k: v for k, v in as_dict(request).items() if k != "written_by"}
            participant = claimed
        return super().handle(session_id, participant, request)


@CATALOGUE.mutant("shared-context/3.3/written-by-system-set", edge="identifiers")
class ParticipantTidiedIntoWrittenBy(SharedContext):
    """The reference, except that the participant identity is stripped and control characters dropped before it is recorded."""

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        if isinstance(participant, str) and participant.strip():
            participant = "".join(c for c in participant.strip() if c.isprintable())
        return super().handle(session_id, participant, request)
