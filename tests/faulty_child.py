"""A child process that breaks the adapter protocol in one chosen way; the harness must survive it.

Run as ``python tests/faulty_child.py MODE``; every mode answers ``start`` like the reference unless it says otherwise.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
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


# How each mode answers a call, given the reference's reply and the number of calls so far.
CALL_ANSWERS: dict[str, Callable[[Json, int], str]] = {
    "hang": lambda _reply, _calls: _stall(),
    "half-line": lambda _reply, _calls: _stall('{"type":"reply","se'),
    "crash-after-1": _crash_after_first,
    "garbage": lambda _reply, _calls: "this is not json",
    "wrong-seq": lambda reply, _calls: json.dumps({**reply, "seq": int(reply["seq"]) + 100}),
    "not-a-reply": lambda reply, _calls: json.dumps({"type": "reply", "seq": reply["seq"]}),
    "raises": lambda reply, _calls: json.dumps({"type": "reply", "seq": reply["seq"], "errored": {"message": "boom"}}),
    "flood-stderr": _flood_stderr,
    "huge": lambda reply, _calls: json.dumps({**reply, "result": {**reply["result"], "padding": "x" * 50_000_000}}),
}


def main(mode: str) -> None:
    """Serve the protocol on stdin/stdout, broken as `mode` says."""
    if mode == "crash-at-start":
        sys.stderr.write("cannot find my configuration\n")
        sys.exit(3)
    if mode == "slow-start":
        time.sleep(2)
    reference, calls = Reference(store_url="memory:"), 0
    for line in sys.stdin:
        message = json.loads(line)
        if mode == "ignores-stop" and message["type"] == "stop":
            _stall()
        reply = reference.handle(message)
        calls += message["type"] == "call"
        answer = CALL_ANSWERS.get(mode, lambda r, _c: json.dumps(r)) if message["type"] == "call" else None
        sys.stdout.write(f"{answer(reply, calls) if answer else json.dumps(reply)}\n")
        sys.stdout.flush()
        if message["type"] == "stop":
            return


if __name__ == "__main__":
    main(sys.argv[1])
