"""A child process that breaks the adapter protocol in one chosen way; the harness must survive it.

Run as ``python tests/faulty_child.py MODE``; every mode answers ``start`` like the reference unless it says otherwise.
"""

from __future__ import annotations

import json
import sys
import time

from ctxconform.reference import Reference


def _answer(reference: Reference, message: dict[str, object], mode: str, calls: int) -> str | None:
    reply = reference.handle(message)
    if message["type"] != "call":
        return json.dumps(reply)
    if mode == "hang":
        time.sleep(3600)
    if mode == "crash-after-1" and calls > 1:
        sys.exit(7)
    if mode == "garbage":
        return "this is not json"
    if mode == "wrong-seq":
        return json.dumps({**reply, "seq": int(reply["seq"]) + 100})
    if mode == "not-a-reply":
        return json.dumps({"type": "reply", "seq": reply["seq"]})
    if mode == "raises":
        return json.dumps({"type": "reply", "seq": reply["seq"], "errored": {"message": "boom", "traceback": "..."}})
    return json.dumps(reply)


def main(mode: str) -> None:
    """Serve the protocol on stdin/stdout, broken as `mode` says."""
    if mode == "crash-at-start":
        sys.stderr.write("cannot find my configuration\n")
        sys.exit(3)
    reference, calls = Reference(store_url="memory:"), 0
    for line in sys.stdin:
        message = json.loads(line)
        calls += message["type"] == "call"
        answer = _answer(reference, message, mode, calls)
        sys.stdout.write(f"{answer}\n")
        sys.stdout.flush()
        if message["type"] == "stop":
            return


if __name__ == "__main__":
    main(sys.argv[1])
