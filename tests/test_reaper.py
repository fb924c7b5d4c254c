"""Every process an implementation starts ends with it, even one that daemonized itself out of the process group."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from ctxconform.conformance.exceptions import ImplementationCrashed, ImplementationUnavailable
from ctxconform.conformance.transports._served import ServedChild
from ctxconform.conformance.transports._stdio import StdioTransport

CHILD = Path(__file__).with_name("daemonizing_child.py")

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="descendants are tracked on Linux only")


def daemon_pid(pidfile: Path) -> int:
    """The daemon's pid, once it has written it."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if pidfile.exists() and pidfile.read_text():
            return int(pidfile.read_text())
        time.sleep(0.02)
    pytest.fail("the child never daemonized")


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, dead but not yet reaped by its new parent, counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def ended_soon(pid: int, seconds: float = 5.0) -> bool:
    """Whether `pid` ends within `seconds`; a survivor is killed so the test leaves nothing behind."""
    deadline = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    if alive(pid):
        os.kill(pid, 9)
        return False
    return True


@pytest.mark.parametrize("mode", ["stay", "stubborn"])
def test_a_daemonized_grandchild_of_a_stdio_implementation_is_ended(tmp_path: Path, mode: str) -> None:
    """Whether the implementation exits on end of input or has to be killed, its setsid() grandchild ends with it."""
    transport = StdioTransport([sys.executable, str(CHILD), str(tmp_path / "pid"), mode])
    transport.open()
    pid = daemon_pid(tmp_path / "pid")
    transport.close(0.5)
    assert ended_soon(pid)


def test_a_daemonized_grandchild_of_a_served_implementation_is_ended(tmp_path: Path) -> None:
    """http+serve and mcp+http+serve children: the grandchild that left the process group ends with the server."""
    child = ServedChild([sys.executable, str(CHILD), str(tmp_path / "pid"), "serve"])
    child.spawn(list(child.command), dict(os.environ))
    assert child.await_listening(10) == "http://127.0.0.1:9"
    pid = daemon_pid(tmp_path / "pid")
    child.terminate(0.5)
    assert ended_soon(pid)


@pytest.mark.parametrize(("ending", "code"), [("sys.exit(3)", "3"), ("os.kill(os.getpid(), 9)", "-9")])
def test_exit_codes_are_reported_as_before(ending: str, code: str) -> None:
    """Under the supervisor, an implementation's exit code, or the signal that ended it, reaches the harness."""
    transport = StdioTransport([sys.executable, "-c", f"import os, sys; sys.stdin.readline(); {ending}"])
    transport.open()
    try:
        with pytest.raises(ImplementationCrashed, match=f"exited with code {code}$"):
            transport.exchange({"type": "start"}, 10)
    finally:
        transport.close(1)


def test_a_command_that_cannot_run_is_reported_as_before(tmp_path: Path) -> None:
    """A missing command is still ImplementationUnavailable, with its advice."""
    with pytest.raises(ImplementationUnavailable, match="check the command"):
        StdioTransport([str(tmp_path / "no-such-command")]).open()
