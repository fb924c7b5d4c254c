"""The baseline the shared-context stores are measured against: one JSON file per session, rewritten on every write.

It is what a first implementation often does, made crash-safe the simple way: write a temporary file and rename
it over the old one, which survives a killed process; with `fsync`, the file is synced before the rename, which
survives a power loss too.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ctxconform.reference.shared_context import MemoryStore, Transaction

__all__ = ["NaiveJsonStore"]

_MUTATIONS = frozenset({"create_session", "set_state", "drop_session", "put", "remove", "put_snapshot"})


class NaiveJsonStore:
    """A store that keeps sessions in memory and rewrites a session's whole JSON file after each change to it."""

    def __init__(self, folder: Path, *, fsync: bool = True) -> None:
        self.folder = folder
        self.fsync = fsync
        folder.mkdir(parents=True, exist_ok=True)
        self._memory = MemoryStore()

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """One atomic step; the sessions it changed are written out before it ends."""
        with self._memory.transaction() as inner:
            recording = _Recording(inner)
            yield recording
            for session_id in recording.changed:
                self._rewrite(session_id, inner)

    def close(self) -> None:
        """Nothing to release: every change is already on disk."""

    def _rewrite(self, session_id: str, transaction: Transaction) -> None:
        path = self.folder / f"{session_id}.json"
        session = transaction.session(session_id)
        if session is None:
            path.unlink(missing_ok=True)
            return
        entries = [transaction.entry(session_id, meta.key) for meta in transaction.metadata(session_id)]
        document = {"session": asdict(session), "entries": [asdict(entry) for entry in entries if entry is not None]}
        temporary = path.with_suffix(".tmp")
        with temporary.open("w", encoding="utf-8") as out:
            json.dump(document, out)
            if self.fsync:
                out.flush()
                os.fsync(out.fileno())
        temporary.replace(path)


class _Recording:
    """Passes every call to the transaction, noting the sessions the mutating ones change."""

    def __init__(self, inner: Transaction) -> None:
        self._inner = inner
        self.changed: set[str] = set()

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._inner, name)
        if name not in _MUTATIONS:
            return method

        def mutate(session_id: str, *args: Any) -> Any:
            self.changed.add(session_id)
            return method(session_id, *args)

        return mutate
