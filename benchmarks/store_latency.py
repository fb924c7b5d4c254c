"""shared-context stores with a nearly full session: write, read and list_keys p50/p99, against a naive JSON-file store."""

from __future__ import annotations

import shutil
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
"""The kill-safe write goal: SQLite at least this many times faster than the naive store; reads: no slower."""


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


def figures(rounds: int, calls: int) -> list[Figure]:
    """p50 and p99 (ms) per store and operation, and the naive store's write and read times over SQLite's."""
    samples: dict[tuple[str, str, int], list[float]] = {}
    missing = set()
    for _ in range(rounds):
        for kind in KINDS:
            with opened(kind) as store:
                if store is None:
                    missing.add(kind)
                    continue
                for op, call in operations(store).items():
                    times = timed_calls(call, calls)
                    for p in (50, 99):
                        samples.setdefault((kind, op, p), []).append(percentile(times, p) * 1e3)
                store.close()
    found = [figure(SECTION, f"{kind} {op} p{p}", "ms", values) for (kind, op, p), values in samples.items()]
    found += [_missing(kind) for kind in sorted(missing)]
    return _ratios(found)


def _ratios(found: list[Figure]) -> list[Figure]:
    """For each durability class, the naive store's write and read p50 over SQLite's, each with its goal."""
    medians = {f.name: f.median for f in found if f.median}
    for naive, sqlite, durability in PAIRS:
        for op in ("write", "read"):
            name, base = f"{naive} {op} p50", f"{sqlite} {op} p50"
            if name not in medians or base not in medians:
                continue
            ratio = figure(SECTION, f"{name} / {base}", "x", [medians[name] / medians[base]])
            extra: dict[str, object] = {"ratio_to": base, "note": _NOTES[durability, op]}
            goal = GOAL_RATIO if op == "write" and durability == "kill-safe" else 1.0 if op == "read" else None
            if goal is not None:
                extra |= {"goal": f">= {goal:g}x", "goal_met": ratio.median >= goal}
            found.append(ratio.model_copy(update=extra))
    return found


_READ_NOTE = "both answer from memory; SQLite first asks the file whether another process committed (data_version)"
_NOTES = {
    ("synced", "write"): "both sync every write (survive a power loss): one fsync each dominates both",
    (
        "kill-safe",
        "write",
    ): "both survive a killed process: SQLite appends a WAL frame, the naive store rewrites the session's file",
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
