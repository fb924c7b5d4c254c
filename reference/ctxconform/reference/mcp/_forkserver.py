"""A fork server for the MCP reference: the SDK imported once per state directory, later servers forked.

Over mcp+stdio the harness starts one server per participant, all on one state directory (over HTTP, a second
instance), and each start spends over a second importing the MCP SDK. The first server on a state directory where
nothing listens yet forks, before it starts any thread, a fork server listening on `SOCKET_NAME` in that directory. A
later ``python -m ctxconform.reference.mcp`` on the same directory connects to it and passes its standard streams,
arguments, environment and working directory (`_handover` is the launcher's side); the fork server forks a server that
runs with them, and the launcher waits and exits with that server's status, passing on a SIGTERM it gets meanwhile.

A forked server ends when its stdin closes, as any server does, and also when its launcher ends (killed: the
connection closes). The fork server exits once the server that forked it and every server it forked have ended and no
launcher has come for two seconds (a restart stops every server and starts them again at once). Anything that fails
before a forked server has started means an ordinary start in the launcher, as does a state directory whose socket path
would be longer than a Unix socket's path may be; ``CTXCONFORM_FORKSERVER=0`` turns the fork server off.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
import struct
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from ctxconform.reference.mcp._handover import (
    EXITED,
    HANDOVER_SECONDS,
    LARGEST_REQUEST,
    SOCKET_NAME,
    STARTED,
    SWITCH,
    TERMINATE,
    decode_request,
    hand_over,
    receive,
    socket_path,
)

__all__ = ["SOCKET_NAME", "SWITCH", "hand_over", "serve_forks"]

Server = Callable[[list[str]], int]
_HEADER: Final = struct.Struct(">I")
_LINGER: Final = 2.0  # seconds the fork server waits, with no server left, for a launcher
_TICK: Final = 0.25

_forked = False  # set in a forked server: it must not fork a fork server of its own


def serve_forks(server: Server, prepare: Callable[[], None] | None = None) -> None:
    """Fork this state directory's fork server, running `server` in each fork, if none listens and no thread runs.

    `prepare` runs in the fork server before it serves: whatever it leaves in memory, every fork starts with.
    """
    where = socket_path(os.environ)
    if _forked or where is None or threading.active_count() != 1:
        return
    listener = _listen(where)
    if listener is None:
        return
    reader, writer = os.pipe()  # the fork server sees EOF on `reader` when this process ends: the writer is never closed
    if os.fork():
        listener.close()
        os.close(reader)
        return
    status = 0
    try:
        os.close(writer)
        _ready(prepare)
        _ForkServer(listener, where, reader, server).serve()
    except BaseException:
        status = 1
    finally:
        os._exit(status)


def _ready(prepare: Callable[[], None] | None) -> None:
    """Run `prepare`; a failure only means the forks do that work themselves."""
    if prepare is not None:
        with contextlib.suppress(Exception):
            prepare()


def _listen(address: str) -> socket.socket | None:
    """A listening socket at `address`; None when a live fork server holds it or it cannot be made."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        try:
            listener.bind(address)
        except OSError:
            if _listening(address):
                listener.close()
                return None
            Path(address).unlink()  # left by a fork server that was killed
            listener.bind(address)
        listener.listen(16)
    except OSError:
        listener.close()
        return None
    return listener


def _listening(address: str) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(address)
        except OSError:
            return False
    return True


class _ForkServer:
    """Accepts launchers and forks a server for each, while any server on its state directory runs."""

    def __init__(self, listener: socket.socket, address: str, parent: int, server: Server) -> None:
        self.listener = listener
        self.address = address
        self.parent = parent
        self.server = server
        self.children: set[int] = set()

    def serve(self) -> None:
        """Start servers until the parent and every server have ended, and nobody asked for `_LINGER` seconds."""
        os.setsid()  # signals to the first server's process group are not for the servers of other participants
        _detach_stdio()
        listener = self.listener.fileno()
        watched = [listener, self.parent]
        idle_since: float | None = None
        while idle_since is None or time.monotonic() - idle_since < _LINGER:
            ready, _, _ = select.select(watched, [], [], _TICK)
            self._reap(os.WNOHANG)
            if self.parent in ready:
                watched.remove(self.parent)  # the first server ended; a restart's may come soon
            if listener in ready:
                self._accept()
            alone = self.parent not in watched and not self.children
            idle_since = (idle_since or time.monotonic()) if alone else None
        with contextlib.suppress(OSError):
            Path(self.address).unlink()
        self.listener.close()

    def _reap(self, flags: int) -> None:
        for pid in list(self.children):
            with contextlib.suppress(ChildProcessError):
                if os.waitpid(pid, flags)[0] == 0:
                    continue
            self.children.discard(pid)

    def _accept(self) -> None:
        try:
            connection, _ = self.listener.accept()
        except OSError:
            return
        with connection:
            received = _handover(connection)
            if received is None:
                return
            streams, request = received
            try:
                pid = os.fork()
                if pid == 0:
                    self._become_server(connection, streams, request)
                self.children.add(pid)
            finally:
                for stream in streams:
                    os.close(stream)

    def _become_server(self, connection: socket.socket, streams: list[int], request: dict[str, Any]) -> None:
        """In the fork: take the launcher's streams, arguments, environment and folder, run the server, report, exit."""
        global _forked  # noqa: PLW0603 - this process is now a forked server
        _forked = True
        status = 1
        try:
            self.listener.close()
            os.close(self.parent)
            os.chdir(request["cwd"])
            for target, stream in enumerate(streams):
                os.dup2(stream, target)
                os.close(stream)
            os.environ.clear()
            os.environ.update(request["env"])
            sys.argv = [sys.argv[0], *request["argv"]]
            connection.settimeout(None)
            connection.sendall(STARTED)
            threading.Thread(target=_end_with_launcher, args=(connection,), daemon=True).start()
            status = self.server(request["argv"])
        except SystemExit as exit_:
            status = exit_.code if isinstance(exit_.code, int) else 0 if exit_.code is None else 1
        except BaseException:
            traceback.print_exc()
        finally:
            for text in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    text.flush()
            with contextlib.suppress(OSError):
                connection.sendall(EXITED + bytes([status & 0xFF]))
            os._exit(status & 0xFF)


def _handover(connection: socket.socket) -> tuple[list[int], dict[str, Any]] | None:
    """The launcher's three streams and its request, or None (streams closed) when they are not what a launcher sends."""
    streams: list[int] = []
    try:
        connection.settimeout(HANDOVER_SECONDS)
        if not _same_user(connection):
            return None
        header, streams, _, _ = socket.recv_fds(connection, _HEADER.size, 3)
        header += receive(connection, _HEADER.size - len(header))
        (size,) = _HEADER.unpack(header)
        request = decode_request(receive(connection, size)) if len(streams) == 3 and size <= LARGEST_REQUEST else None  # noqa: PLR2004 - stdin, stdout, stderr
    except (OSError, ValueError, struct.error):
        request = None
    if request is None:
        for stream in streams:
            os.close(stream)
        return None
    return streams, request


def _same_user(connection: socket.socket) -> bool:
    """Whether the launcher runs as this user (Linux tells; elsewhere the state directory's permissions must)."""
    if not hasattr(socket, "SO_PEERCRED"):
        return True
    credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    uid: int = struct.unpack("3i", credentials)[1]
    return uid == os.getuid()


def _detach_stdio() -> None:
    """Let go of the first server's stdin and stdout, so its client sees them close when that server ends."""
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)


def _end_with_launcher(connection: socket.socket) -> None:
    """Send this server the SIGTERM its launcher got; end it when the launcher's connection closes (killed: so is it)."""
    with contextlib.suppress(OSError):
        while chunk := connection.recv(1):
            if chunk == TERMINATE:
                os.kill(os.getpid(), signal.SIGTERM)
    os._exit(1)
