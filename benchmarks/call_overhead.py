"""Per-call overhead of each transport: p50 and p99 round trip of a trivial call, each beside its floor.

The call is list_keys of an empty session in the memory store, as the participant `system` (over mcp+stdio the
same server then answers it), so what is measured is the transport and the harness, not a disk. The floor of the
pipe transports is a bare pipe echo measured in the same run: a child that writes each line of the same call
straight back, framed as the stdio transport frames it, with no protocol behind it.
"""

from __future__ import annotations

import functools
import os
import shutil
from collections.abc import Callable

from measure import PYTHON, percentile, scratch, timed_calls

from ctxconform.conformance import connect, parse_adapter
from ctxconform.conformance.judge._specs import start_options
from ctxconform.conformance.report._bench import Figure, figure
from ctxconform.conformance.transports._stdio import StdioTransport

SECTION = "transport call overhead"
SC = "shared-context"
ADAPTERS = {
    "in-process": "reference",
    "stdio": f"stdio:{PYTHON} -m ctxconform.reference.stdio --store memory:",
    "http": f"http+serve:{PYTHON} -m ctxconform.reference.shared_context.http --store memory: --port 0",
    "mcp+http": f"mcp+http+serve:{PYTHON} -m ctxconform.reference.mcp --http --store memory:",
    "mcp+stdio": f"mcp+stdio:{PYTHON} -m ctxconform.reference.mcp --store memory:",
}
STDIO_GOAL_US = 60.0
STDIO_FLOOR_GOAL = 2.5  # stdio p50 over pipe echo p50: what the protocol and the harness may add to the pipe
# The reference stdio server's own loop, without parsing or answering: text lines in, the same line out, flushed.
ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line)\n    sys.stdout.flush()\n"
PIPE_ECHO = "pipe echo"
# What each transport is set beside: the pipe transports beside the pipe echo, the rest (and the echo) in-process.
FLOORS = {PIPE_ECHO: "in-process", "stdio": PIPE_ECHO, "mcp+stdio": PIPE_ECHO}


def round_trips(adapter: str, calls: int) -> list[float]:
    """Seconds per list_keys call over one started implementation, after a warm-up."""
    previous = os.environ.get("CTXCONFORM_STORE")
    os.environ["CTXCONFORM_STORE"] = "memory:"  # the in-process reference's store
    state = scratch()
    implementation = connect(parse_adapter(adapter), state, timeout=10, options=start_options(state))
    try:
        implementation.start()
        implementation.call(SC, "create_session", {"session_id": "bench"}, {"participant": "system"})
        context = {"session_id": "bench", "participant": "system"}
        call = lambda: implementation.call(SC, "shared_context", {"action": "list_keys"}, context)  # noqa: E731
        timed_calls(call, 50)
        return timed_calls(call, calls)
    finally:
        implementation.stop()
        shutil.rmtree(state, ignore_errors=True)
        os.environ.pop("CTXCONFORM_STORE")
        if previous is not None:
            os.environ["CTXCONFORM_STORE"] = previous


def pipe_echoes(calls: int) -> list[float]:
    """Seconds per line echoed by a bare child process, sent and read back as the stdio transport does, after a warm-up."""
    transport = StdioTransport([PYTHON, "-c", ECHO])
    transport.open()
    try:
        call = {"type": "call", "seq": 1, "spec": SC, "op": "shared_context", "args": {"action": "list_keys"}}
        call["context"] = {"session_id": "bench", "participant": "system"}
        echo = lambda: transport.exchange(call, 10)  # noqa: E731
        timed_calls(echo, 50)
        return timed_calls(echo, calls)
    finally:
        transport.close(2.0)


def figures(rounds: int, calls: int) -> list[Figure]:
    """p50 and p99 per transport and of the pipe echo in microseconds, each over `rounds` runs of `calls` calls."""
    timers: dict[str, Callable[[int], list[float]]] = {name: functools.partial(round_trips, a) for name, a in ADAPTERS.items()}
    timers = {"in-process": timers.pop("in-process"), PIPE_ECHO: pipe_echoes, **timers}  # the floor beside stdio
    samples: dict[tuple[str, int], list[float]] = {}
    for _ in range(rounds):  # transports take turns, so a slow spell of the machine hits all alike
        for name, timer in timers.items():
            times = timer(calls)
            for p in (50, 99):
                samples.setdefault((name, p), []).append(percentile(times, p) * 1e6)
    found = {(name, p): figure(SECTION, f"{name} p{p}", "us", values) for (name, p), values in samples.items()}
    return [_beside_floor(found, name, p) for name, p in found]


def _beside_floor(found: dict[tuple[str, int], Figure], name: str, p: int) -> Figure:
    """A transport's figure with its ratio to the same percentile of its floor, and stdio's goals on p50."""
    item, floor = found[name, p], found[FLOORS.get(name, "in-process"), p]
    extra: dict[str, object] = {"ratio": item.median / floor.median, "ratio_to": floor.name}
    if name == PIPE_ECHO:
        extra["note"] = "floor of the pipe transports: a child echoing each line, no protocol"
    if name == "stdio" and p == 50:  # noqa: PLR2004 - the goals are on the median
        over_floor = item.median / floor.median
        extra["goal"] = f"< {STDIO_GOAL_US:g} us and <= {STDIO_FLOOR_GOAL:g}x {floor.name}"
        extra["goal_met"] = item.median < STDIO_GOAL_US and over_floor <= STDIO_FLOOR_GOAL
    return item.model_copy(update=extra)
