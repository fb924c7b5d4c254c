"""Opening a store from a URL: `sqlite:///path`, `sqlite:relative/path` or `memory:`."""

from __future__ import annotations

from pathlib import Path

from ctxconform.reference.exceptions import StoreError
from ctxconform.reference.shared_context._sqlite import SQLiteStore
from ctxconform.reference.shared_context._store import MemoryStore, Store

__all__ = ["open_store"]


def open_store(url: str) -> Store:
    """Open the store a URL names; raise StoreError for a URL this reference does not know."""
    if url == "memory:":
        return MemoryStore()
    if url.startswith("sqlite:///"):
        return SQLiteStore(Path("/" + url.removeprefix("sqlite:///").lstrip("/")))
    if url.startswith("sqlite:"):
        return SQLiteStore(Path(url.removeprefix("sqlite:")))
    raise StoreError(url, "unknown store URL; use sqlite:///absolute/path.db, sqlite:relative/path.db or memory:")
