"""What the mutants of several sections share: the catalogue, looks at the store, and bases for common mutations."""

from __future__ import annotations

import sys
from typing import Any, ClassVar

from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.mutants import Catalogue
from ctxconform.reference.shared_context import (
    MAX_STORE_TOKENS,
    Entry,
    Session,
    SharedContext,
    SharedContextFactory,
    Store,
    Transaction,
    check_key,
    estimate_tokens,
)

__all__ = [
    "CATALOGUE",
    "Json",
    "Reshaped",
    "StoreLimit",
    "Tracking",
    "as_dict",
    "current_entry",
    "remove_entry",
    "request_field",
    "session_of",
]

Json = dict[str, Any]

CATALOGUE = Catalogue("shared-context", adopt=lambda service: SharedContextFactory(service=service))
"""The mutants of shared-context; each mutated class is the service the handler factory opens over the run's store."""


def request_field(request: object, name: str) -> Any:
    """A field of a request, or None when the request is not an object or lacks it."""
    return request.get(name) if isinstance(request, dict) else None


def as_dict(request: object) -> Json:
    """A request known to be an object."""
    assert isinstance(request, dict)
    return request


def session_of(service: SharedContext, sid: object) -> Session | None:
    """The session a call names, or None."""
    if not isinstance(sid, str):
        return None
    with service.store.transaction() as tx:
        return tx.session(sid)


def current_entry(service: SharedContext, sid: object, key: object) -> Entry | None:
    """The entry a well-formed call would touch, or None when there is no such session or key."""
    if not isinstance(key, str) or session_of(service, sid) is None:
        return None
    with service.store.transaction() as tx:
        return tx.entry(str(sid), key)


def remove_entry(tx: Transaction, sid: str, key: str) -> None:
    """Remove an entry straight from the store, keeping the session's total right."""
    session, old = tx.session(sid), tx.entry(sid, key)
    if session is not None and old is not None:
        tx.remove(sid, key, session.total_tokens - old.tokens)


class Reshaped(SharedContext):
    """Passes the result of one action through `reshape`."""

    action: ClassVar[str] = ""

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        """Carry out the call as the reference does, and reshape the result of `action`."""
        result = super().handle(session_id, participant, request)
        return self.reshape(str(session_id), result) if request_field(request, "action") == self.action else result

    def reshape(self, sid: str, result: Json) -> Json:  # noqa: ARG002 - subclasses use what they need
        """The result a successful `action` in session `sid` answers instead of `result`."""
        return result


class Tracking(SharedContext):
    """Remembers the sessions created through this process."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self.known: set[str] = set()

    def create_session(self, session_id: object, config: object = None) -> Json:
        """Create the session as the reference does, and remember it."""
        result = super().create_session(session_id, config)
        self.known.add(str(session_id))
        return result


class StoreLimit(SharedContext):
    """Replaces the reference's store-limit check with `refuses`, asked for each otherwise valid write."""

    max_store_tokens = sys.maxsize

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        """Refuse a write that `refuses`, then carry out the call as the reference does without its own limit."""
        if request_field(request, "action") == "write":
            self._check_limit(session_id, request_field(request, "key"), request_field(request, "value"))
        return super().handle(session_id, participant, request)

    def _check_limit(self, sid: object, key: object, value: object) -> None:
        session = session_of(self, sid)
        if session is None or session.state != "active" or not isinstance(value, str) or not _valid_key(key):
            return
        tokens = estimate_tokens(value)
        old = current_entry(self, sid, key)
        total = session.total_tokens - (old.tokens if old else 0) + tokens
        if tokens <= self.max_value_tokens and self.refuses(session, total):
            raise SpecError("STORE_FULL", f"the store would hold {total} tokens; the limit is {MAX_STORE_TOKENS}")

    def refuses(self, session: Session, total: int) -> bool:
        """Whether a write taking `session` to `total` tokens is refused."""
        raise NotImplementedError


def _valid_key(key: object) -> bool:
    """Whether the reference accepts the key."""
    try:
        check_key(key)
    except SpecError:
        return False
    return True
