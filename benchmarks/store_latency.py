"""shared-context stores with a nearly full session: write, read and list_keys p50/p99, against a naive JSON-file store.

The SQLite stores' writes are set beside their floor, measured in the same run: a plain INSERT of a value of the
same size into a WAL-mode SQLite file with the same synchronous setting, one transaction per row.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from measure import percentile, redis_url, scratch, timed_calls
from naive_store import NaiveJsonStore

from ctxconform.conformance.report._bench import Figure, figure
from ctxconform.reference.shared_context import MAX_STORE_TOKENS, SharedContext, Store, open_store

SECTION = "shared-context stores"
KEYS = 12
VALUE = "v" * 3000  # 750 tokens: twelve of them fill the session to 90% of its limit
# Two durability classes: sqlite and naive-json sync every write to disk (they survive a power loss);
# sqlite-normal and naive-json-nosync survive a killed process only. redis: appendonly, appendfsync always.
KINDS = ("sqlite", "naive-json", "sqlite-normal", "naive-json-nosync", "redis")
PAIRS = (("naive-json", "sqlite", "synced"), ("naive-json-nosync", "sqlite-normal", "kill-safe"))
GOAL_RATIO = 10.0
FLOORS = {"sqlite": "FULL", "sqlite-normal": "NORMAL"}  # store kind: the synchronous setting of its raw append
RAW = "raw sqlite WAL append"


@contextmanager
def opened(kind: str) -> Iterator[Store | None]:
    """A fresh store of one kind (None when it cannot run here: no redis-server)."""
    folder = scratch()
    try:
        if kind == "redis":
            with redis_url() as url:
                yield None if url is None else open_store(url)
        elif kind.startswith("sqlite"):
            yield open_store(f"sqlite:///{folder}/bench.db" + ("?synchronous=normal" if kind == "sqlite-normal" else ""))
        else:
            yield NaiveJsonStore(folder, fsync=kind == "naive-json")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def operations(store: Store) -> dict[str, Callable[[], object]]:
    """A nearly full session, and one call per operation: overwrite a key (same size), read one, list them."""
    service = SharedContext(store)
    service.create_session("bench")
    for n in range(KEYS):
        service.handle("bench", "orchestrator", {"action": "write", "key": f"k{n}", "value": VALUE})
    assert KEYS * len(VALUE) // 4 > 0.85 * MAX_STORE_TOKENS
    turn = iter(range(10**9))
    return {
        "write": lambda: service.handle(
            "bench", "orchestrator", {"action": "write", "key": f"k{next(turn) % KEYS}", "value": VALUE}
        ),
        "read": lambda: service.handle("bench", "orchestrator", {"action": "read", "key": "k3"}),
        "list_keys": lambda: service.handle("bench", "orchestrator", {"action": "list_keys"}),
    }


def raw_appends(synchronous: str, calls: int) -> list[float]:
    """Seconds per plain INSERT of one VALUE into a fresh WAL-mode SQLite file, each its own transaction."""
    folder = scratch()
    db = sqlite3.connect(folder / "raw.db", isolation_level=None)  # autocommit: every INSERT commits
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={synchronous}")
        db.execute("CREATE TABLE log (value TEXT NOT NULL)")
        append = lambda: db.execute("INSERT INTO log (value) VALUES (?)", (VALUE,))  # noqa: E731
        timed_calls(append, KEYS)  # as many rows as the stores' session holds before they are timed
        return timed_calls(append, calls)
    finally:
        db.close()
        shutil.rmtree(folder, ignore_errors=True)


def figures(rounds: int, calls: int) -> list[Figure]:
    """p50 and p99 (ms) per store and operation, the raw SQLite floors, and the naive store's times over SQLite's."""
    samples: dict[str, list[float]] = {}
    missing = set()
    for _ in range(rounds):  # floors and stores take turns, so a slow spell of the machine hits all alike
        for synchronous in FLOORS.values():
            _add(samples, RAW, raw_appends(synchronous, calls), f" ({synchronous})")
        for kind in KINDS:
            with opened(kind) as store:
                if store is None:
                    missing.add(kind)
                    continue
                for op, call in operations(store).items():
                    _add(samples, f"{kind} {op}", timed_calls(call, calls))
                store.close()
    found = [figure(SECTION, name, "ms", values) for name, values in samples.items()]
    found += [_missing(kind) for kind in sorted(missing)]
    return _ratios(_beside_floors(found))


def _add(samples: dict[str, list[float]], name: str, times: list[float], suffix: str = "") -> None:
    """Record one run's p50 and p99 in milliseconds, as 'NAME p50SUFFIX' and 'NAME p99SUFFIX'."""
    for p in (50, 99):
        samples.setdefault(f"{name} p{p}{suffix}", []).append(percentile(times, p) * 1e3)


def _beside_floors(found: list[Figure]) -> list[Figure]:
    """Each SQLite store's write p50 and p99 with its ratio to the raw append of the same synchronous setting."""
    floors = {f"{kind} write p{p}": f"{RAW} p{p} ({synchronous})" for kind, synchronous in FLOORS.items() for p in (50, 99)}
    medians = {f.name: f.median for f in found}
    out = []
    for item in found:
        floor = floors.get(item.name, "")
        if item.median and medians.get(floor):
            item = item.model_copy(update={"ratio": item.median / medians[floor], "ratio_to": floor})
        elif item.name.startswith(RAW):
            item = item.model_copy(update={"note": "floor of the SQLite stores' writes: one INSERT per transaction"})
        out.append(item)
    return out


def _ratios(found: list[Figure]) -> list[Figure]:
    """For each durability class, the naive store's write and read p50 over SQLite's, each with its goal."""
    medians = {f.name: f.median for f in found if f.median}
    for naive, sqlite, durability in PAIRS:
        for op in ("write", "read"):
            name, base = f"{naive} {op} p50", f"{sqlite} {op} p50"
            if name not in medians or base not in medians:
                continue
            ratio = figure(SECTION, f"{name} / {base}", "x", [medians[name] / medians[base]])
            # The naive store's cost over SQLite's: SQLite's margin, so higher is better.
            extra: dict[str, object] = {
                "ratio": ratio.median,
                "ratio_to": base,
                "note": _NOTES[durability, op],
                "better": "higher",
            }
            goal = GOAL_RATIO if op == "write" and durability == "kill-safe" else 1.0 if op == "read" else None
            if goal is not None:
                extra |= {"goal": f">= {goal:g}x", "goal_met": ratio.median >= goal}
            found.append(ratio.model_copy(update=extra))
    return found


_READ_NOTE = "both answer from memory; SQLite first reads whether any process committed (the WAL-index header, one pread)"
_NOTES = {
    ("synced", "write"): "both sync every write (survive a power loss): one fsync each dominates both",
    ("kill-safe", "write"): "both survive a killed process: SQLite appends a WAL frame, the naive store rewrites the "
    "session's file",
    ("synced", "read"): _READ_NOTE,
    ("kill-safe", "read"): _READ_NOTE,
}


def _missing(kind: str) -> Figure:
    return Figure(
        section=SECTION,
        name=f"{kind} write p50",
        unit="ms",
        median=0,
        spread=0,
        runs=1,
        note="not measured: redis-server is not installed",
    )
