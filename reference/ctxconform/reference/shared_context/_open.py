"""Opening a store from a URL: `sqlite:///path`, `sqlite:relative/path`, `memory:` or `redis://host:port/db`."""

from __future__ import annotations

import importlib
from pathlib import Path

from ctxconform.reference.exceptions import StoreError
from ctxconform.reference.shared_context._sqlite import SQLiteStore
from ctxconform.reference.shared_context._store import MemoryStore, Store

__all__ = ["open_store"]

_REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


def open_store(url: str) -> Store:
    """Open the store a URL names; raise StoreError for a URL this reference does not know or cannot reach."""
    if url == "memory:":
        return MemoryStore()
    if url.startswith("sqlite:///"):
        return SQLiteStore(Path("/" + url.removeprefix("sqlite:///").lstrip("/")))
    if url.startswith("sqlite:"):
        return SQLiteStore(Path(url.removeprefix("sqlite:")))
    if url.startswith(_REDIS_SCHEMES):
        # Imported on first use: the redis client takes most of a second to import, and most runs never need it.
        redis_store: type[Store] = importlib.import_module("ctxconform.reference.shared_context._redis").RedisStore
        return redis_store(url)  # type: ignore[call-arg]
    raise StoreError(
        url,
        "unknown store URL; use sqlite:///absolute/path.db, sqlite:relative/path.db, memory:,"
        " redis://host:port/db, rediss://host:port/db or unix:///path/redis.sock?db=0",
    )
