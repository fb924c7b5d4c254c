"""Mutants that break section 5 of shared-context, Error Handling."""

from __future__ import annotations

import contextlib
from typing import ClassVar

from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.shared_context import SharedContext
from ctxconform.reference.shared_context.mutants._base import CATALOGUE, Json, request_field, session_of


class _Recoded(SharedContext):
    """Answers some error codes of some actions with another code."""

    actions: ClassVar[frozenset[str]] = frozenset()
    codes: ClassVar[dict[str, str]] = {}

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        try:
            return super().handle(session_id, participant, request)
        except SpecError as error:
            if request_field(request, "action") in self.actions and error.code in self.codes:
                raise SpecError(self.codes[error.code], error.message) from None
            raise


@CATALOGUE.mutant(
    "shared-context/5/key-not-found",
    "shared-context/5/error-code-and-message",
)
class MissingKeyIsInvalidKey(_Recoded):
    """The reference, except that read and delete of a missing key answer INVALID_KEY."""

    actions = frozenset({"read", "delete"})
    codes: ClassVar[dict[str, str]] = {"KEY_NOT_FOUND": "INVALID_KEY"}


@CATALOGUE.mutant(
    "shared-context/5/value-too-large",
    "shared-context/5/error-code-and-message",
)
class TooLargeValueIsStoreFull(_Recoded):
    """The reference, except that a value over 1000 tokens is refused with STORE_FULL."""

    actions = frozenset({"write"})
    codes: ClassVar[dict[str, str]] = {"VALUE_TOO_LARGE": "STORE_FULL"}


@CATALOGUE.mutant(
    "shared-context/5/store-full",
    "shared-context/5/error-code-and-message",
)
class StoreFullIsValueTooLarge(_Recoded):
    """The reference, except that a write past the store limit is refused with VALUE_TOO_LARGE."""

    actions = frozenset({"write"})
    codes: ClassVar[dict[str, str]] = {"STORE_FULL": "VALUE_TOO_LARGE"}


@CATALOGUE.mutant(
    "shared-context/5/invalid-key-on-write",
    "shared-context/5/error-code-and-message",
)
class InvalidKeyOnWriteIsInvalidRequest(_Recoded):
    """The reference, except that a write with a malformed key is refused with INVALID_REQUEST."""

    actions = frozenset({"write"})
    codes: ClassVar[dict[str, str]] = {"INVALID_KEY": "INVALID_REQUEST"}


@CATALOGUE.mutant(
    "shared-context/5/session-not-found",
    "shared-context/8.4/delete-session-gone",
)
class WriteCreatesUnknownSession(SharedContext):
    """The reference, except that a write to an unknown session creates it."""

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        if request_field(request, "action") == "write" and isinstance(session_id, str) and session_of(self, session_id) is None:
            with contextlib.suppress(SpecError):
                self.create_session(session_id)
        return super().handle(session_id, participant, request)


@CATALOGUE.mutant(
    "shared-context/5/session-archived",
    "shared-context/5/error-code-and-message",
)
class ArchivedSessionIsNotFound(_Recoded):
    """The reference, except that writes and deletes on an archived session answer SESSION_NOT_FOUND."""

    actions = frozenset({"write", "delete"})
    codes: ClassVar[dict[str, str]] = {"SESSION_ARCHIVED": "SESSION_NOT_FOUND"}


@CATALOGUE.mutant("shared-context/5/error-code-and-message")
class ErrorMessageRepeatsCode(SharedContext):
    """The reference, except that every tool error's message only repeats its code."""

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        try:
            return super().handle(session_id, participant, request)
        except SpecError as error:
            raise SpecError(error.code, error.code) from None


@CATALOGUE.mutant("shared-context/5/error-code-and-message", edge="wrong-types")
class SessionIdStringified(SharedContext):
    """The reference, except that lifecycle operations take str(session_id), so a null id names the session "None"."""

    def create_session(self, session_id: object, config: object = None) -> Json:
        return super().create_session(str(session_id), config)

    def archive_session(self, session_id: object) -> Json:
        return super().archive_session(str(session_id))

    def delete_session(self, session_id: object) -> Json:
        return super().delete_session(str(session_id))
