"""Context assembly's time against path length, per strategy: the curve must be linear.

Run: python benchmarks/bench_context_assembly.py [--sizes 1000 10000 100000 1000000] [--repeat 5]
Prints, per strategy and path length, the median and spread (max - min) of `repeat` calls, the time per node,
and the ratio of each length's median to the previous one's (10x the nodes should cost about 10x the time).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from typing import Any

from ctxconform.conformance.report._bench import Figure, figure
from ctxconform.reference.context_assembly import assemble

SECTION = "context-assembly"

STRATEGIES = ("truncateMiddle", "rollingWindow", "stopAtLimit")


def request(length: int, strategy: str) -> dict[str, Any]:
    """A linear dialogue of `length` nodes, alternating authors; it overflows the limit except under stopAtLimit."""
    nodes = [
        {"id": f"n{i}", "authorType": "human" if i % 2 == 0 else "model", "content": f"turn {i}: " + "x" * 60}
        for i in range(length)
    ]
    edges = [
        {"target": f"n{i}", "sources": [{"nodeId": f"n{i - 1}", "role": "primary"}], "edgeType": "continuation"}
        for i in range(1, length)
    ]
    settings = {"truncationStrategy": strategy, "minimumRecentNodes": 4, "tokenBuffer": 1024}
    # stopAtLimit refuses an overflow after estimating everything; a limit that fits measures the whole assembly.
    limit = 128_000 if strategy != "stopAtLimit" else 10**9
    return {
        "tree": {"mode": "dialogue", "nodes": nodes, "edges": edges},
        "path": [f"n{i}" for i in range(length)],
        "settings": settings,
        "modelContextLimit": limit,
    }


def measure(requests: dict[int, dict[str, Any]], repeat: int) -> dict[int, list[float]]:
    """Seconds per call for each size; the sizes take turns in every round, so a slow spell of the machine hits all alike."""
    runs: dict[int, list[float]] = {size: [] for size in requests}
    for _ in range(repeat):
        for size, built in requests.items():
            gc.collect()  # garbage of the previous call is not charged to this one
            started = time.perf_counter()
            assemble(built)
            runs[size].append(time.perf_counter() - started)
    return runs


def figures(sizes: list[int], repeat: int) -> list[Figure]:
    """Per strategy and path length: ms per call, with the ratio of microseconds per node to the smallest length's."""
    found = []
    for strategy in STRATEGIES:
        runs = measure({size: request(size, strategy) for size in sorted(sizes)}, repeat)
        first = None
        for size, times in runs.items():
            item = figure(SECTION, f"{strategy} {size:,} nodes", "ms", [t * 1e3 for t in times])
            per_node = item.median / size
            first = first or per_node
            goal = {"goal": "linear: us/node within 2x of the smallest length's", "goal_met": per_node <= 2 * first}
            note = f"{per_node * 1e3:.2f} us/node"
            found.append(
                item.model_copy(
                    update={"ratio": per_node / first, "ratio_to": f"{strategy} per node at {min(sizes):,}", "note": note, **goal}
                )
            )
    return found


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    print(f"{'strategy':<15} {'nodes':>10} {'median ms':>11} {'spread ms':>10} {'µs/node':>8} {'ratio to previous':>18}")
    for strategy in STRATEGIES:
        runs = measure({size: request(size, strategy) for size in sorted(options.sizes)}, options.repeat)
        previous = None
        for size, times in runs.items():
            median, spread = statistics.median(times), max(times) - min(times)
            ratio = f"{median / previous:.2f}" if previous else "-"
            per_node = median / size * 1e6
            print(f"{strategy:<15} {size:>10,} {median * 1e3:>11.1f} {spread * 1e3:>10.1f} {per_node:>8.2f} {ratio:>18}")
            previous = median


if __name__ == "__main__":
    main()
