"""read_context's time against notes.md and log.jsonl sizes: the curve must stay flat.

Run: python benchmarks/bench_read_context.py [--max-size-mib 1024] [--repeat 25]
Prints, per size, the cold first call (which counts the notes' lines once) and the median and spread of
warm calls (head + tail + appended bytes only), with the ratio to an empty workspace.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from ctxconform.conformance.report._bench import Figure, figure
from ctxconform.reference.read_context import ReadContext

SECTION = "read-context"

LINE = "Adjusted the white balance on the diver's fins; the reef behind stays cool and slightly underexposed.\n"
LOG = json.dumps({"timestamp": "2026-04-29T10:00:00Z", "op": "snapshot", "hash": "ab" * 20, "label": "before"}) + "\n"


def fill(path: Path, line: str, size: int) -> None:
    """Write `line` repeatedly until the file holds about `size` bytes."""
    block = line * max(1, (1 << 20) // len(line))
    with path.open("w", encoding="utf-8") as out:
        written = 0
        while written < size:
            piece = block if size - written >= len(block) else line * max(1, (size - written) // len(line))
            out.write(piece)
            written += len(piece)


def timed(service: ReadContext, image: str, repeat: int) -> tuple[float, list[float]]:
    """Cold time, then the times of `repeat` warm calls, in milliseconds."""
    started = time.perf_counter()
    service.read_context(image)
    cold = (time.perf_counter() - started) * 1e3
    warm = []
    for _ in range(repeat):
        started = time.perf_counter()
        service.read_context(image)
        warm.append((time.perf_counter() - started) * 1e3)
    return cold, warm


def figures(max_size_mib: int, repeat: int) -> list[Figure]:
    """Warm read_context time per size of notes.md and log.jsonl (each), with its ratio to the 1 KiB workspace."""
    sizes = sorted({1 << 10, 1 << 20, 64 << 20, max_size_mib << 20})
    found = []
    with tempfile.TemporaryDirectory(prefix="ctxconform-bench-") as folder:
        root = Path(folder)
        for size in sizes:
            image = f"img-{size}"
            (root / image).mkdir()
            fill(root / image / "notes.md", LINE, size)
            fill(root / image / "log.jsonl", LOG, size)
            cold, warm = timed(ReadContext(root, root / "tastes"), image, repeat)
            found.append(figure(SECTION, f"notes+log {_size(size)} each", "ms", warm, note=f"cold first call {cold:.1f} ms"))
            shutil.rmtree(root / image)  # a GiB pair at a time is enough disk
    base = found[0]
    ratios = {"ratio_to": base.name, "goal": "flat: <= 2x the 1 KiB time"}
    return [
        base,
        *(
            f.model_copy(update={**ratios, "ratio": f.median / base.median, "goal_met": f.median <= 2 * base.median})
            for f in found[1:]
        ),
    ]


def _size(size: int) -> str:
    return f"{size >> 30} GiB" if size >= 1 << 30 else f"{size >> 20} MiB" if size >= 1 << 20 else f"{size >> 10} KiB"


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-size-mib", type=int, default=1024)
    parser.add_argument("--repeat", type=int, default=25)
    options = parser.parse_args()
    sizes = [0, 1 << 10, 1 << 20, 64 << 20, options.max_size_mib << 20]
    with tempfile.TemporaryDirectory(prefix="ctxconform-bench-") as folder:
        root = Path(folder)
        print(f"{'notes+log size':>16} {'cold ms':>10} {'warm median ms':>15} {'spread ms':>10} {'ratio':>7}")
        baseline = None
        for size in sorted(set(sizes)):
            image = f"img-{size}"
            (root / image).mkdir()
            if size:
                fill(root / image / "notes.md", LINE, size)
                fill(root / image / "log.jsonl", LOG, size)
            cold, warm = timed(ReadContext(root, root / "tastes"), image, options.repeat)
            median, spread = statistics.median(warm), max(warm) - min(warm)
            baseline = baseline or median
            print(f"{size:>16,} {cold:>10.2f} {median:>15.3f} {spread:>10.3f} {median / baseline:>7.2f}")


if __name__ == "__main__":
    main()
