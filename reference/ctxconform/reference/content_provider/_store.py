"""The persistence interface (spec 6.2): save(sessionId, provider) / load(sessionId), and an in-memory store."""

from __future__ import annotations

import json
import threading
from typing import Protocol

from ctxconform.reference.content_provider._codec import from_document, to_document
from ctxconform.reference.content_provider._model import ContentProvider

__all__ = ["MemoryProviderStore", "ProviderStore", "decode", "encode"]


class ProviderStore(Protocol):
    """Where providers are persisted between requests, by session id."""

    def save(self, session_id: str, provider: ContentProvider) -> None:
        """Persist a copy of the provider under the session id, replacing an earlier one."""

    def load(self, session_id: str) -> ContentProvider | None:
        """Rehydrate the provider persisted under the session id, or None."""

    def close(self) -> None:
        """Release the store's resources."""


def encode(provider: ContentProvider) -> str:
    """The provider as the JSON text a store keeps (ASCII, so any store can hold it)."""
    return json.dumps(to_document(provider), separators=(",", ":"))


def decode(text: str) -> ContentProvider:
    """A provider read back from the JSON text a store kept."""
    return from_document(json.loads(text))


class MemoryProviderStore:
    """Serialized providers in a dict: a save is a copy, as on disk, but nothing survives the process; for tests."""

    def __init__(self) -> None:
        self._documents: dict[str, str] = {}
        self._lock = threading.Lock()

    def save(self, session_id: str, provider: ContentProvider) -> None:
        """Keep a serialized copy."""
        with self._lock:
            self._documents[session_id] = encode(provider)

    def load(self, session_id: str) -> ContentProvider | None:
        """Read a copy back."""
        with self._lock:
            text = self._documents.get(session_id)
        return None if text is None else decode(text)

    def close(self) -> None:
        """Forget everything."""
        self._documents.clear()
