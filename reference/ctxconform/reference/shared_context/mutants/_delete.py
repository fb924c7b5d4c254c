"""Mutants that break section 3.4 of shared-context, delete."""

from __future__ import annotations

from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.shared_context import SharedContext, Store
from ctxconform.reference.shared_context.mutants._base import CATALOGUE, Json, Reshaped, request_field


@CATALOGUE.mutant("shared-context/3.4/request-and-response-shape")
class DeleteAnswersKeyField(Reshaped):
    """The reference, except that delete names the removed key in a "key" field instead of "deleted"."""

    action = "delete"

    def reshape(self, sid: str, result: Json) -> Json:  # noqa: ARG002 - the result alone changes
        return {"key": result["deleted"], "previous_version": result["previous_version"]}


@CATALOGUE.mutant(
    "shared-context/3.4/removes-key",
    "shared-context/3.1/returns-all-keys",
)
class DeletedKeysStillListed(SharedContext):
    """The reference, except that list_keys still lists deleted keys until they are written again."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        # Deleted keys are marked instead of removed, and list_keys does not filter the marks out.
        self._tombstones: dict[str, dict[str, Json]] = {}

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        action, sid, key = request_field(request, "action"), str(session_id), request_field(request, "key")
        listed = super().handle(session_id, participant, {"action": "list_keys"}) if action == "delete" else None
        result = super().handle(session_id, participant, request)
        marks = self._tombstones.setdefault(sid, {})
        if listed is not None:
            marks[key] = next(item for item in listed["keys"] if item["key"] == key)
        elif action == "write":
            marks.pop(key, None)
        elif action == "list_keys":
            shown = {item["key"]: item for item in [*marks.values(), *result["keys"]]}
            result = {**result, "keys": [shown[k] for k in sorted(shown)]}
        return result


@CATALOGUE.mutant("shared-context/3.4/previous-version")
class PreviousVersionOffByOne(Reshaped):
    """The reference, except that delete's previous_version is one more than the key's last version."""

    action = "delete"

    def reshape(self, sid: str, result: Json) -> Json:  # noqa: ARG002 - the result alone changes
        return {**result, "previous_version": result["previous_version"] + 1}


@CATALOGUE.mutant(
    "shared-context/3.4/key-not-found",
    "shared-context/5/key-not-found",
)
class DeleteOfMissingKeySucceeds(SharedContext):
    """The reference, except that deleting a missing key succeeds with previous_version 0."""

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        try:
            return super().handle(session_id, participant, request)
        except SpecError as error:
            if request_field(request, "action") != "delete" or error.code != "KEY_NOT_FOUND":
                raise
            return {"deleted": request_field(request, "key"), "previous_version": 0}
