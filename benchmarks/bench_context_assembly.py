"""Context assembly's time against path length, per strategy: the curve must be linear.

Run: python benchmarks/bench_context_assembly.py [--sizes 1000 10000 100000 1000000]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from ctxconform.reference.context_assembly import assemble


def request(length: int, strategy: str) -> dict[str, Any]:
    """A linear dialogue of `length` nodes, alternating authors, that overflows the limit."""
    nodes = [
        {"id": f"n{i}", "authorType": "human" if i % 2 == 0 else "model", "content": f"turn {i}: " + "x" * 60}
        for i in range(length)
    ]
    edges = [
        {"target": f"n{i}", "sources": [{"nodeId": f"n{i - 1}", "role": "primary"}], "edgeType": "continuation"}
        for i in range(1, length)
    ]
    settings = {"truncationStrategy": strategy, "minimumRecentNodes": 4, "tokenBuffer": 1024}
    limit = 128_000 if strategy != "stopAtLimit" else 10**9
    return {
        "tree": {"mode": "dialogue", "nodes": nodes, "edges": edges},
        "path": [f"n{i}" for i in range(length)],
        "settings": settings,
        "modelContextLimit": limit,
    }


def main() -> None:
    """Measure and print the table (median of 3 runs per cell)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000, 1_000_000])
    sizes = parser.parse_args().sizes
    print(f"{'strategy':<16} " + " ".join(f"{n:>12,}" for n in sizes) + f" {'ratio last/prev':>16}")
    for strategy in ("truncateMiddle", "rollingWindow", "stopAtLimit"):
        times = []
        for size in sizes:
            built = request(size, strategy)
            runs = []
            for _ in range(3):
                started = time.perf_counter()
                assemble(built)
                runs.append(time.perf_counter() - started)
            times.append(sorted(runs)[1])
        ratio = times[-1] / times[-2] if len(times) > 1 else 1.0
        print(f"{strategy:<16} " + " ".join(f"{t * 1e3:>10.1f}ms" for t in times) + f" {ratio:>16.2f}")


if __name__ == "__main__":
    main()
