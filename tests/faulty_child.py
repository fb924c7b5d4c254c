"""A child process that breaks the adapter protocol in one chosen way; the harness must survive it.

Run as ``python tests/faulty_child.py PLAN``. A plan is a comma-separated list of faults and flags: a fault name alone
(``hang``) breaks every call, ``NAME@N`` breaks the N-th call only (counted across restarts); the flags are
``crash-at-start``, ``slow-start``, ``ignores-stop`` and ``off-schema-session`` (create_session answers a result its
schema refuses). The child keeps everything in memory, so a restart forgets
all state: tests after a restart pass only if the harness sets their fixtures up again. When ``FAULTY_CHILD_PIDS``
names a file, each child appends its process id to it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from ctxconform.reference import Reference

Json = dict[str, Any]


def _stall(partial: str = "") -> NoReturn:
    sys.stdout.write(partial)
    sys.stdout.flush()
    time.sleep(3600)
    raise SystemExit(0)


def _crash_after_first(reply: Json, calls: int) -> str:
    if calls > 1:
        sys.exit(7)
    return json.dumps(reply)


def _flood_stderr(reply: Json, _calls: int) -> str:
    sys.stderr.write("noise " * 2_000_000)  # 12 MB, far beyond any pipe buffer
    sys.stderr.flush()
    return json.dumps(reply)


def _huge(reply: Json, _calls: int) -> str:
    padding = "x" * 50_000_000  # 50 MB, under the 64 MiB line cap
    if "error" in reply:
        return json.dumps({**reply, "error": {**reply["error"], "message": padding}})
    return json.dumps({**reply, "result": {**reply["result"], "padding": padding}})


def _huge_off_schema(reply: Json, _calls: int) -> str:
    """A 50 MB string where every result is an object; sessions are still created, so tests reach their checks."""
    if isinstance(reply.get("result"), dict) and "session_id" in reply["result"]:
        return json.dumps(reply)
    return json.dumps({"type": "reply", "seq": reply["seq"], "result": "x" * 50_000_000})


def _deep(reply: Json, _calls: int) -> str:
    # Written by hand: json.dumps itself cannot nest 5,000 levels.
    return f'{{"type":"reply","seq":{reply["seq"]},"result":{{"keys":{"[" * 5000}{"]" * 5000}}}}}'


# How each mode answers a call, given the reference's reply and the number of calls so far.
CALL_ANSWERS: dict[str, Callable[[Json, int], str]] = {
    "hang": lambda _reply, _calls: _stall(),
    "half-line": lambda _reply, _calls: _stall('{"type":"reply","se'),
    "crash": lambda _reply, _calls: sys.exit(7),
    "crash-after-1": _crash_after_first,
    "garbage": lambda _reply, _calls: "this is not json",
    "wrong-seq": lambda reply, _calls: json.dumps({**reply, "seq": int(reply["seq"]) + 100}),
    "not-a-reply": lambda reply, _calls: json.dumps({"type": "reply", "seq": reply["seq"]}),
    "raises": lambda reply, _calls: json.dumps({"type": "reply", "seq": reply["seq"], "errored": {"message": "boom"}}),
    "flood-stderr": _flood_stderr,
    "huge": _huge,
    "huge-off-schema": _huge_off_schema,
    "deep": _deep,
}


def _schedule(plan: str) -> tuple[set[str], dict[int, str], str | None]:
    """Split a plan into flags, faults on numbered calls, and a fault on every call."""
    flags, numbered, every = set(), {}, None
    for part in filter(None, plan.split(",")):
        name, _, at = part.partition("@")
        if at:
            numbered[int(at)] = name
        elif name in CALL_ANSWERS:
            every = name
        else:
            flags.add(name)
    return flags, numbered, every


def _count_call(state_dir: Path) -> int:
    """Count calls across restarts, in the state directory the harness keeps."""
    counter = state_dir / "faulty-child-calls"
    calls = int(counter.read_text() if counter.exists() else "0") + 1
    counter.write_text(str(calls))
    return calls


def _off_schema(message: Json, reply: Json) -> Json:
    """A create_session reply whose result its schema refuses."""
    if message["type"] == "call" and message["op"] == "create_session" and "result" in reply:
        return {**reply, "result": {"state": "archived", "session": 42}}
    return reply


def _answer(message: Json, reply: Json, state_dir: Path, numbered: dict[int, str], every: str | None) -> str:
    if message["type"] != "call":
        return json.dumps(reply)
    calls = _count_call(state_dir)
    fault = numbered.get(calls, every)
    return CALL_ANSWERS[fault](reply, calls) if fault else json.dumps(reply)


def _single_instance(started: Json) -> Json:
    """Declare single_instance for every spec: the state is in this process's memory, so a second one cannot share it."""
    specs = {name: {**entry, "features": [*entry["features"], "single_instance"]} for name, entry in started["specs"].items()}
    return {**started, "specs": specs}


def main(plan: str) -> None:
    """Serve the protocol on stdin/stdout, broken as `plan` says."""
    flags, numbered, every = _schedule(plan)
    if os.environ.get("FAULTY_CHILD_PIDS"):
        with Path(os.environ["FAULTY_CHILD_PIDS"]).open("a", encoding="utf-8") as pids:
            pids.write(f"{os.getpid()}\n")
    if "crash-at-start" in flags:
        sys.stderr.write("cannot find my configuration\n")
        sys.exit(3)
    if "slow-start" in flags:
        time.sleep(2)
    reference, state_dir = Reference(store_url="memory:"), Path()
    for line in sys.stdin:
        message = json.loads(line)
        if "ignores-stop" in flags and message["type"] == "stop":
            _stall()
        reply = reference.handle(message)
        reply = _single_instance(reply) if message["type"] == "start" else reply
        reply = _off_schema(message, reply) if "off-schema-session" in flags else reply
        state_dir = Path(message["state_dir"]) if message["type"] == "start" else state_dir
        sys.stdout.write(f"{_answer(message, reply, state_dir, numbered, every)}\n")
        sys.stdout.flush()
        if message["type"] == "stop":
            return


if __name__ == "__main__":
    main(sys.argv[1])
