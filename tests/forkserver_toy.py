"""A toy server behind the MCP reference's fork server: no MCP, only what a forked server gets and gives back.

Usage: python forkserver_toy.py [STATUS]. It starts as the reference's command does (hand over to the state directory's
fork server, else start the fork server and serve here), prints one JSON line (its pid, parent, arguments, folder and
the WHO variable), reads stdin to its end, and exits with STATUS (default 0), or with TOY_ON_TERM on a SIGTERM.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

from ctxconform.reference.mcp._forkserver import serve_forks
from ctxconform.reference.mcp._handover import hand_over


def toy(argv: list[str]) -> int:
    """Say who and where this server is, wait for stdin's end, and exit with the status given (TOY_ON_TERM: on SIGTERM)."""
    if "TOY_ON_TERM" in os.environ:
        status = int(os.environ["TOY_ON_TERM"])
        signal.signal(signal.SIGTERM, lambda _signum, _frame: sys.exit(status))
    facts = {"pid": os.getpid(), "ppid": os.getppid(), "argv": argv, "cwd": str(Path.cwd()), "who": os.environ.get("WHO")}
    print(json.dumps(facts), flush=True)
    sys.stdin.read()
    return int(argv[0]) if argv else 0


if __name__ == "__main__":
    status = hand_over(sys.argv[1:])
    if status is None:
        serve_forks(toy)
        status = toy(sys.argv[1:])
    raise SystemExit(status)
