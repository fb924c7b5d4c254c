"""Per-call overhead of each transport: p50 and p99 round trip of a trivial call.

The call is list_keys of an empty session in the memory store, as the participant `system` (over mcp+stdio the
same server then answers it), so what is measured is the transport and the harness, not a disk.
"""

from __future__ import annotations

import os
import shutil

from measure import PYTHON, percentile, scratch, timed_calls

from ctxconform.conformance import connect, parse_adapter
from ctxconform.conformance.judge._specs import start_options
from ctxconform.conformance.report._bench import Figure, figure

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


def figures(rounds: int, calls: int) -> list[Figure]:
    """p50 and p99 per transport in microseconds, each the median over `rounds` runs of `calls` calls."""
    p50s: dict[str, list[float]] = {name: [] for name in ADAPTERS}
    p99s: dict[str, list[float]] = {name: [] for name in ADAPTERS}
    for _ in range(rounds):  # transports take turns, so a slow spell of the machine hits all alike
        for name, adapter in ADAPTERS.items():
            times = round_trips(adapter, calls)
            p50s[name].append(percentile(times, 50) * 1e6)
            p99s[name].append(percentile(times, 99) * 1e6)
    base = figure(SECTION, "in-process p50", "us", p50s["in-process"])
    found = []
    for name in ADAPTERS:
        p50 = figure(SECTION, f"{name} p50", "us", p50s[name])
        extra = {"ratio": p50.median / base.median, "ratio_to": "in-process p50"}
        if name == "stdio":
            extra |= {"goal": f"< {STDIO_GOAL_US:g} us", "goal_met": p50.median < STDIO_GOAL_US}
        found += [p50.model_copy(update=extra), figure(SECTION, f"{name} p99", "us", p99s[name])]
    return found
