"""What the benchmarks share: percentiles, timed calls, scratch folders and a redis-server of their own."""

from __future__ import annotations

import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

__all__ = ["PYTHON", "percentile", "redis_url", "scratch", "timed_calls"]

PYTHON = sys.executable


def percentile(samples: Sequence[float], p: int) -> float:
    """The p-th percentile (1-99) of the samples."""
    return statistics.quantiles(samples, n=100)[p - 1] if len(samples) > 1 else samples[0]


def timed_calls(call: Callable[[], object], count: int) -> list[float]:
    """Seconds each of `count` calls of `call()` took."""
    times = []
    for _ in range(count):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return times


@contextmanager
def redis_url() -> Iterator[str | None]:
    """A redis-server on a free loopback port (append-only, fsync always), or None when none is installed."""
    binary = shutil.which("redis-server")
    if binary is None:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="ctxconform-bench-redis-") as folder:
        port = _free_port()
        args = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes"]
        args += ["--appendfsync", "always", "--dir", folder]
        process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # noqa: S603
        try:
            _wait_for_port(port)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            process.terminate()
            process.wait(timeout=10)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_for_port(port: int) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"redis-server did not listen on port {port}")


def scratch() -> Path:
    """A fresh temporary folder (the caller removes it)."""
    return Path(tempfile.mkdtemp(prefix="ctxconform-bench-"))
