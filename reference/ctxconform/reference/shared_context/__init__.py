"""The reference implementation of Shared Context 0.1.0-draft."""

from __future__ import annotations

from ctxconform.reference.shared_context._handler import (
    HANDLER_FACTORY,
    SPEC_ID,
    SPEC_VERSION,
    SharedContextFactory,
    SharedContextHandler,
)
from ctxconform.reference.shared_context._keys import check_key
from ctxconform.reference.shared_context._model import Entry, Metadata, Session, SessionState
from ctxconform.reference.shared_context._open import open_store
from ctxconform.reference.shared_context._service import SharedContext, utc_now
from ctxconform.reference.shared_context._sqlite import SQLiteStore
from ctxconform.reference.shared_context._store import MemoryStore, Store, Transaction
from ctxconform.reference.shared_context._tokens import (
    MAX_KEY_LENGTH,
    MAX_STORE_TOKENS,
    MAX_VALUE_TOKENS,
    WARN_VALUE_TOKENS,
    estimate_tokens,
)

__all__ = [
    "HANDLER_FACTORY",
    "MAX_KEY_LENGTH",
    "MAX_STORE_TOKENS",
    "MAX_VALUE_TOKENS",
    "SPEC_ID",
    "SPEC_VERSION",
    "WARN_VALUE_TOKENS",
    "Entry",
    "MemoryStore",
    "Metadata",
    "SQLiteStore",
    "Session",
    "SessionState",
    "SharedContext",
    "SharedContextFactory",
    "SharedContextHandler",
    "Store",
    "Transaction",
    "check_key",
    "estimate_tokens",
    "open_store",
    "utc_now",
]
