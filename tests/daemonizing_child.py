"""A hostile implementation: it leaves a daemon behind (double fork and setsid), then stays, exits, or serves.

Usage: python daemonizing_child.py PIDFILE MODE, MODE one of `stay` (reads stdin to its end, then exits), `stubborn`
(ignores SIGTERM and never exits), `serve` (prints a listening line, then waits for SIGTERM).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path


def daemonize(pidfile: Path) -> None:
    """Leave a grandchild in a session of its own that records its pid and sleeps forever."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            pidfile.write_text(str(os.getpid()))
            while True:
                time.sleep(60)
        os._exit(0)
    os.wait()


def main() -> None:
    """Daemonize, then behave as MODE says."""
    pidfile, mode = Path(sys.argv[1]), sys.argv[2]
    daemonize(pidfile)
    if mode == "serve":
        print("listening on http://127.0.0.1:9", flush=True)
    if mode in ("stubborn", "serve"):
        if mode == "stubborn":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        while True:
            time.sleep(60)
    sys.stdin.read()


if __name__ == "__main__":
    main()
