"""The stdio transport: a child process reading JSON lines on stdin and answering JSON lines on stdout."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import threading
import time
from collections import deque
from typing import IO, Any, Final

from ctxconform.conformance.exceptions import (
    ImplementationCrashed,
    ImplementationTimeout,
    ImplementationUnavailable,
    ProtocolViolation,
)
from ctxconform.conformance.transports import _reaper
from ctxconform.conformance.transports._lines import OVERSIZED, TIMED_OUT, LineReader

__all__ = ["MAX_LINE_BYTES", "StdioTransport", "decode_line", "terminate_group"]

MAX_LINE_BYTES: Final = 64 * 1024 * 1024
_STDERR_TAIL: Final = 64 * 1024


class StdioTransport:
    """Runs a command and talks the protocol over its stdin and stdout, one JSON message per line."""

    def __init__(
        self, command: list[str], *, env: dict[str, str] | None = None, supervised: bool = True, errlog: IO[str] | None = None
    ) -> None:
        self.command = command
        self._env = env
        self._supervised = supervised  # under the reaper, which ends every descendant with the child
        self._errlog = errlog  # where the child's stderr goes, instead of a tail kept here
        self._process: subprocess.Popen[bytes] | None = None
        self._lines: LineReader | None = None
        self._stderr: deque[bytes] = deque()

    def open(self) -> None:
        """Start the child process in its own process group."""
        try:
            self._process = subprocess.Popen(  # noqa: S603 - the user names the command on purpose
                _reaper.wrap(self.command, self._env) if self._supervised else self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE if self._errlog is None else self._errlog,
                env=self._env,
                start_new_session=True,
            )
        except OSError as error:
            raise ImplementationUnavailable(" ".join(self.command), f"{error.strerror or error}; check the command") from error
        self._stderr = deque()
        assert self._process.stdout is not None
        assert self._process.stdin is not None
        os.set_blocking(self._process.stdin.fileno(), False)  # writes wait in select, bounded by the call's deadline
        self._lines = LineReader(self._process.stdout.fileno(), MAX_LINE_BYTES)
        if self._process.stderr is not None:
            threading.Thread(target=self._read_stderr, args=(self._process.stderr,), daemon=True).start()

    def exchange(self, message: dict[str, Any], timeout: float) -> object:
        """Write one line and wait for one line back, each within `timeout` seconds."""
        self.send(message, timeout)
        return self.receive(timeout)

    def send(self, message: dict[str, Any], timeout: float) -> None:
        """Write one message as a line (see `write`)."""
        self.write(json.dumps(message, separators=(",", ":")).encode(), timeout)  # ASCII escapes carry lone surrogates too

    def receive(self, timeout: float) -> object:
        """The next line's JSON value, waiting up to `timeout` seconds."""
        assert self._lines is not None, "harness bug: receive before open"
        line = self._lines.read_line(timeout)
        if line is TIMED_OUT:
            raise ImplementationTimeout(f"no answer within {timeout:g} s", detail=self.stderr_tail())
        if line is OVERSIZED:
            raise ProtocolViolation(
                f"the implementation wrote a line longer than {MAX_LINE_BYTES} bytes ({MAX_LINE_BYTES >> 20} MiB), "
                "the most one message may take; answer with less"
            )
        if not line:
            raise ImplementationCrashed(self._exit_description(), detail=self.stderr_tail())
        return decode_line(line)

    def close(self, timeout: float) -> None:
        """Wait for the child to exit, then terminate and kill its whole process group."""
        process = self._process
        if process is None:
            return
        self._process = None
        for stream in (process.stdin,):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            terminate_group(process, timeout)
        _kill_group(process, signal.SIGKILL)  # anything the child left running in its group

    def stderr_tail(self) -> str:
        """Return the last part of what the child wrote on stderr."""
        return b"".join(self._stderr).decode("utf-8", "replace")[-_STDERR_TAIL:]

    def write(self, line: bytes, timeout: float) -> None:
        """Write `line` (JSON text without its newline) and a newline within `timeout` seconds.

        ImplementationTimeout when the child reads too little of it in that time (a full pipe would otherwise block
        the harness for good), ImplementationCrashed when the child no longer reads at all.
        """
        process = self._process
        assert process is not None, "harness bug: write before open"
        assert process.stdin is not None
        pending = memoryview(line + b"\n")
        deadline = time.monotonic() + timeout
        try:
            fd = process.stdin.fileno()
            while pending:
                try:
                    pending = pending[os.write(fd, pending) :]
                except BlockingIOError:
                    left = deadline - time.monotonic()
                    if left <= 0 or not select.select([], [fd], [], left)[1]:
                        raise ImplementationTimeout(
                            f"the implementation did not read its input within {timeout:g} s", detail=self.stderr_tail()
                        ) from None
        except (OSError, ValueError) as error:
            raise ImplementationCrashed(self._exit_description(), detail=self.stderr_tail()) from error

    def _exit_description(self) -> str:
        process = self._process
        code = None if process is None else process.poll()
        if code is None and process is not None:
            try:
                code = process.wait(timeout=1)
            except subprocess.TimeoutExpired:
                return "the implementation closed its output but is still running"
        return f"the implementation exited with code {code}"

    def _read_stderr(self, stream: IO[bytes]) -> None:
        size = 0
        for chunk in iter(lambda: stream.read1(4096), b""):  # type: ignore[attr-defined]
            self._stderr.append(chunk)
            size += len(chunk)
            while size > _STDERR_TAIL and len(self._stderr) > 1:
                size -= len(self._stderr.popleft())


def decode_line(line: bytes) -> object:
    """The JSON value of one line; ProtocolViolation when it is not JSON or nests too deep to decode."""
    try:
        return json.loads(line)
    except RecursionError as error:
        raise ProtocolViolation("a line nests lists and objects too deep to decode; flatten it") from error
    except ValueError as error:
        raise ProtocolViolation(f"not a JSON line: {line[:200]!r}") from error


def terminate_group(process: subprocess.Popen[bytes], timeout: float) -> None:
    """SIGTERM a child's process group, SIGKILL it if the child lingers past `timeout`, and kill what it left behind."""
    _kill_group(process, signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _reaper.kill_tree(process.pid)  # before the group: the supervisor holds descendants that left it
        _kill_group(process, signal.SIGKILL)
        process.wait()
    _kill_group(process, signal.SIGKILL)


def _kill_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)
