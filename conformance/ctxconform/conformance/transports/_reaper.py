"""Every process an implementation starts ends with it, even one that left its process group with setsid().

On Linux the command runs under this module as a small supervisor (``python -I _reaper.py -- COMMAND...``) that is a
child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``): an orphaned descendant is re-parented to it rather than to init,
so every descendant stays in its tree. When the implementation exits, the supervisor kills what is left, reaps it and
exits with the implementation's status; a signal it receives is passed to every descendant. A supervisor that does
not end in time is stopped by the harness with `kill_tree`, which freezes the whole tree (SIGSTOP: nothing can fork
any more) before it kills it. Elsewhere, or without /proc, commands run unwrapped and only the process group is ended.

This file runs as a script with the standard library only, so the supervisor starts fast and imports nothing of the kit.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Final

__all__ = ["descendants", "kill_tree", "tracking", "wrap"]

_PR_SET_CHILD_SUBREAPER: Final = 36
_FORWARDED: Final = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
_PROC: Final = Path("/proc")
_ROUNDS: Final = 100


def tracking() -> bool:
    """Whether descendants can be tracked here: Linux, with /proc."""
    return sys.platform.startswith("linux") and (_PROC / "self" / "stat").exists()


def wrap(command: list[str], env: Mapping[str, str] | None = None) -> list[str]:
    """The command run under the supervisor; unchanged where tracking is unavailable or the command cannot run."""
    # An unrunnable command is left to fail in the harness's own Popen, with its usual message.
    path = (env if env is not None else os.environ).get("PATH")
    if not command or not tracking() or shutil.which(command[0], path=path) is None:
        return command
    return [sys.executable, "-I", "-S", str(Path(__file__).resolve()), "--", *command]


def descendants(root: int) -> list[int]:
    """The pids below `root` in the process tree, parents before children ([] without /proc)."""
    children: dict[int, list[int]] = {}
    for pid, parent in _parents():
        children.setdefault(parent, []).append(pid)
    found, queue = [], list(children.get(root, ()))
    while queue:
        pid = queue.pop(0)
        found.append(pid)
        queue.extend(children.get(pid, ()))
    return found


def kill_tree(root: int) -> None:
    """Freeze `root` and every descendant, then kill them all; forks racing with the freeze are caught too."""
    frozen: list[int] = []
    for _ in range(_ROUNDS):
        fresh = [pid for pid in [root, *descendants(root)] if pid not in frozen]
        if not fresh:
            break
        for pid in fresh:
            _signal(pid, signal.SIGSTOP)
        frozen.extend(fresh)
    for pid in frozen:
        _signal(pid, signal.SIGKILL)


def _parents() -> list[tuple[int, int]]:
    pairs = []
    for entry in _PROC.iterdir() if _PROC.is_dir() else ():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                # The name in parentheses may hold spaces and parentheses: the fields start after the last ")".
                pairs.append((int(entry.name), int((entry / "stat").read_text().rpartition(")")[2].split()[1])))
    return pairs


def _signal(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def _become_subreaper() -> None:
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _end_descendants() -> None:
    """Kill every remaining descendant of this supervisor and reap them all."""
    for _ in range(_ROUNDS):
        left = descendants(os.getpid())
        if not left:
            break
        _freeze_and_kill(left)
        _reap(block=False)
        time.sleep(0.01)
    _reap(block=False)


def _freeze_and_kill(pids: list[int]) -> None:
    for pid in pids:
        _signal(pid, signal.SIGSTOP)
    for pid in pids:
        _signal(pid, signal.SIGKILL)


def _reap(*, block: bool) -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, 0 if block else os.WNOHANG)[0]:
            pass


def _supervise(command: list[str]) -> int:
    """Run `command`, pass signals on to the whole tree, and end the tree when the command exits."""
    _become_subreaper()
    try:
        child = subprocess.Popen(command)  # noqa: S603 - the user names the command on purpose
    except OSError as error:
        print(f"ctxconform: cannot run {command[0]}: {error.strerror or error}; check the command", file=sys.stderr)
        return 127

    def forward(signum: int, frame: object) -> None:  # noqa: ARG001 - the signal API passes both
        for pid in descendants(os.getpid()):
            _signal(pid, signal.Signals(signum))

    for sig in _FORWARDED:
        signal.signal(sig, forward)
    # The pipes stay with the implementation alone: its end of output is seen as soon as it exits.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    status = child.wait()
    _end_descendants()
    return status


def _exit_as(status: int) -> None:
    """Exit with the implementation's status: its code, or the signal that ended it."""
    if status < 0:
        with contextlib.suppress(OSError, ValueError):
            signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
        status = 128 - status
    sys.exit(status)


if __name__ == "__main__":
    _exit_as(_supervise(sys.argv[2:] if sys.argv[1:2] == ["--"] else sys.argv[1:]))
