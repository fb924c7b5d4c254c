"""Opening a store from a URL: `sqlite:///path`, `sqlite:relative/path`, `memory:` or `redis://host:port/db`.

A SQLite URL may end in `?synchronous=normal`: commits then survive a killed process but not a power loss, and
cost no fsync each (the default, `full`, survives both).
"""

from __future__ import annotations

import importlib
from pathlib import Path

from ctxconform.reference._sqlite import SYNCHRONOUS
from ctxconform.reference.exceptions import StoreError
from ctxconform.reference.shared_context._sqlite import SQLiteStore
from ctxconform.reference.shared_context._store import MemoryStore, Store

__all__ = ["open_store"]

_REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


def open_store(url: str) -> Store:
    """Open the store a URL names; raise StoreError for a URL this reference does not know or cannot reach."""
    if url == "memory:":
        return MemoryStore()
    if url.startswith("sqlite:"):
        return _sqlite(url)
    if url.startswith(_REDIS_SCHEMES):
        # Imported on first use: the redis client takes most of a second to import, and most runs never need it.
        redis_store: type[Store] = importlib.import_module("ctxconform.reference.shared_context._redis").RedisStore
        return redis_store(url)  # type: ignore[call-arg]
    raise StoreError(
        url,
        "unknown store URL; use sqlite:///absolute/path.db, sqlite:relative/path.db, memory:,"
        " redis://host:port/db, rediss://host:port/db or unix:///path/redis.sock?db=0",
    )


def _sqlite(url: str) -> SQLiteStore:
    """`sqlite:///absolute` or `sqlite:relative`, with an optional `?synchronous=full|normal`."""
    location, _, query = url.removeprefix("sqlite:").partition("?")
    option, _, value = query.partition("=")
    if query and (option != "synchronous" or value.upper() not in SYNCHRONOUS):
        raise StoreError(url, "the only SQLite option is ?synchronous=full (the default) or ?synchronous=normal")
    path = Path("/" + location.removeprefix("//").lstrip("/")) if location.startswith("//") else Path(location)
    return SQLiteStore(path, value or "FULL")
