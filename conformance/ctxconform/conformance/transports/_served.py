"""A child process that serves on a port it announces with a ``listening on http://...`` line on stdout.

The harness starts the user's command with the start options (CTXCONFORM_* variables and `{placeholders}`) and a
fresh secret in CTXCONFORM_TOKEN_SECRET, with which it signs the participants' bearer tokens.
"""

from __future__ import annotations

import os
import queue
import re
import secrets
import subprocess
import threading
import time
from collections import deque
from typing import IO, Any, Final

from ctxconform.conformance.exceptions import ImplementationCrashed, ImplementationTimeout, ImplementationUnavailable
from ctxconform.conformance.transports import _reaper
from ctxconform.conformance.transports._stdio import terminate_group
from ctxconform.conformance.transports._transport import command_for, start_environment

__all__ = ["ServedChild"]

_LISTENING: Final = re.compile(r"listening on (?P<url>http://\S+)\s*$")
_STDERR_TAIL: Final = 64 * 1024


class ServedChild:
    """Starts a serving command, waits for its address, keeps the tail of its stderr, and ends its process group."""

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self.secret = secrets.token_hex(32)
        self._process: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._stderr: deque[bytes] = deque()

    def launch(self, message: dict[str, Any], timeout: float) -> str:
        """Start the command for a start message and return the URL it listens on."""
        env = start_environment(message)
        self.spawn(command_for(self.command, env), {**os.environ, **env, "CTXCONFORM_TOKEN_SECRET": self.secret})
        return self.await_listening(timeout)

    def spawn(self, command: list[str], env: dict[str, str]) -> None:
        """Start `command` in a process group of its own; raise ImplementationUnavailable when it cannot run."""
        try:
            self._process = subprocess.Popen(  # noqa: S603 - the user names the command on purpose
                _reaper.wrap(command, env),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                start_new_session=True,
            )
        except OSError as error:
            raise ImplementationUnavailable(" ".join(command), f"{error.strerror or error}; check the command") from error
        self._lines, self._stderr = queue.Queue(), deque()
        assert self._process.stdout is not None
        assert self._process.stderr is not None
        threading.Thread(target=_read_lines, args=(self._process.stdout, self._lines), daemon=True).start()
        threading.Thread(target=_read_tail, args=(self._process.stderr, self._stderr), daemon=True).start()

    def await_listening(self, timeout: float) -> str:
        """Return the URL of the child's `listening on URL` line; other lines before it are skipped."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                break
            if not line:
                raise ImplementationCrashed("the implementation exited before it was listening", detail=self.detail())
            found = _LISTENING.match(line.decode("utf-8", "replace").strip())
            if found:
                return found["url"]
        raise ImplementationTimeout(f"no 'listening on http://HOST:PORT' line within {timeout:g} s", detail=self.detail())

    def detail(self) -> str:
        """The last part of what the child wrote on stderr, and its exit code when it has exited."""
        process = self._process
        code = None if process is None else process.poll()
        tail = b"".join(self._stderr).decode("utf-8", "replace")[-_STDERR_TAIL:]
        return tail if code is None else f"the implementation exited with code {code}\n{tail}"

    def terminate(self, timeout: float) -> None:
        """SIGTERM the child's process group, and kill it if it lingers."""
        process, self._process = self._process, None
        if process is not None:
            terminate_group(process, timeout)


def _read_lines(stream: IO[bytes], lines: queue.Queue[bytes]) -> None:
    # Keeps draining after the listening line, so a chatty child never blocks on a full pipe.
    for line in iter(lambda: stream.readline(64 * 1024), b""):
        lines.put(line)
    lines.put(b"")


def _read_tail(stream: IO[bytes], tail: deque[bytes]) -> None:
    size = 0
    for chunk in iter(lambda: stream.read1(4096), b""):  # type: ignore[attr-defined]
        tail.append(chunk)
        size += len(chunk)
        while size > _STDERR_TAIL and len(tail) > 1:
            size -= len(tail.popleft())
