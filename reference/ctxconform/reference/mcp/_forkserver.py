"""A fork server for the MCP reference over stdio: the SDK imported once per state directory, later servers forked.

Over mcp+stdio the harness starts one server per participant, all on one state directory, and each start spends over a
second importing the MCP SDK. The first server on a state directory where nothing listens yet forks, before it starts
any thread, a fork server listening on `SOCKET_NAME` in that directory. A later ``python -m ctxconform.reference.mcp``
on the same directory connects to it and passes its standard streams, arguments, environment and working directory;
the fork server forks a server that runs with them, and the launcher waits and exits with that server's status.

A forked server ends when its stdin closes, as any server does, and also when its launcher ends (killed: the
connection closes). The fork server exits once the server that forked it and every server it forked have ended and no
launcher has come for two seconds (a restart stops every server and starts them again at once). Anything that fails
before a forked server has started means an ordinary start in the launcher, as does a state directory whose socket path
would be longer than a Unix socket's path may be; ``CTXCONFORM_FORKSERVER=0`` turns the fork server off.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import socket
import struct
import sys
import time

# A launcher imports this module and nothing heavy: typing, pathlib, threading and traceback cost it tens of
# milliseconds, paid by every participant's server; the fork server and its forks have them loaded anyway.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any, Final, TypeGuard

    Server = Callable[[list[str]], int]

__all__ = ["SOCKET_NAME", "SWITCH", "hand_over", "serve_forks"]

SOCKET_NAME: Final = ".ctxconform-mcp-forks"
SWITCH: Final = "CTXCONFORM_FORKSERVER"
_STARTED: Final = b"S"
_EXITED: Final = b"X"
_HANDOVER_SECONDS: Final = 5.0
_LARGEST_REQUEST: Final = 4 * 1024 * 1024
_LONGEST_ADDRESS: Final = 100  # bytes: AF_UNIX paths are limited to 104-108 bytes, depending on the system
_HEADER: Final = struct.Struct(">I")
_LINGER: Final = 2.0  # seconds the fork server waits, with no server left, for a launcher
_TICK: Final = 0.25

_forked = False  # set in a forked server: it must not fork a fork server of its own


def _address(environ: Mapping[str, str]) -> str | None:
    """Where this state directory's fork server listens, or None when there can be none."""
    state_dir = environ.get("CTXCONFORM_STATE_DIR")
    if not state_dir or environ.get(SWITCH) == "0" or not hasattr(socket, "send_fds") or not hasattr(os, "fork"):
        return None
    address = os.path.join(os.path.abspath(state_dir), SOCKET_NAME)
    return address if len(os.fsencode(address)) <= _LONGEST_ADDRESS else None


def hand_over(argv: list[str]) -> int | None:
    """Have this state directory's fork server start the server and return its exit status; None: start it here."""
    address = _address(os.environ)
    if address is None or not os.path.exists(address):
        return None
    try:
        request = _request(argv)
    except (OSError, ValueError):
        return None
    try:
        return _hand_over(address, request)
    except KeyboardInterrupt:
        return 130


def _hand_over(address: str, request: bytes) -> int | None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        try:
            connection.settimeout(_HANDOVER_SECONDS)
            connection.connect(address)
            socket.send_fds(connection, [_HEADER.pack(len(request))], [0, 1, 2])
            connection.sendall(request)
            if _receive(connection, 1) != _STARTED:
                return None
        except OSError:
            return None
        # From here the server owns the standard streams: whatever happens, it must not be started a second time.
        try:
            connection.settimeout(None)
            return _exit_status(connection)
        except OSError:
            return 1


def _request(argv: list[str]) -> bytes:
    """What the fork server needs to start the server as this process would have."""
    fields = {"executable": sys.executable, "module": __file__, "argv": argv, "env": dict(os.environ), "cwd": os.getcwd()}
    request = json.dumps(fields).encode("ascii")  # lone surrogates (undecodable bytes) travel escaped
    if len(request) > _LARGEST_REQUEST:
        raise ValueError("the environment is too large to hand over")
    return request


def _exit_status(connection: socket.socket) -> int:
    """Wait for the server's exit status; 1 when the connection ends without one (the server was killed)."""
    message = _receive(connection, 2)
    return message[1] if len(message) == 2 and message[:1] == _EXITED else 1  # noqa: PLR2004 - marker and status


def _receive(connection: socket.socket, size: int) -> bytes:
    """Exactly `size` bytes, or fewer when the connection ends first."""
    data = b""
    while len(data) < size:
        chunk = connection.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


def serve_forks(server: Server, prepare: Callable[[], None] | None = None) -> None:
    """Fork this state directory's fork server, running `server` in each fork, if none listens and no thread runs.

    `prepare` runs in the fork server before it serves: whatever it leaves in memory, every fork starts with.
    """
    import threading  # noqa: PLC0415 - a server's path, not a launcher's

    address = _address(os.environ)
    if _forked or address is None or threading.active_count() != 1:
        return
    listener = _listen(address)
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
        _ForkServer(listener, address, reader, server).serve()
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
            os.unlink(address)  # left by a fork server that was killed
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
            os.unlink(self.address)
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
        import threading  # noqa: PLC0415 - a server's path, not a launcher's
        import traceback  # noqa: PLC0415 - likewise

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
            connection.sendall(_STARTED)
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
                connection.sendall(_EXITED + bytes([status & 0xFF]))
            os._exit(status & 0xFF)


def _handover(connection: socket.socket) -> tuple[list[int], dict[str, Any]] | None:
    """The launcher's three streams and its request, or None (streams closed) when they are not what a launcher sends."""
    streams: list[int] = []
    try:
        connection.settimeout(_HANDOVER_SECONDS)
        if not _same_user(connection):
            return None
        header, streams, _, _ = socket.recv_fds(connection, _HEADER.size, 3)
        header += _receive(connection, _HEADER.size - len(header))
        (size,) = _HEADER.unpack(header)
        request = json.loads(_receive(connection, size)) if len(streams) == 3 and size <= _LARGEST_REQUEST else None  # noqa: PLR2004 - stdin, stdout, stderr
    except (OSError, ValueError, struct.error):
        request = None
    if not _is_request(request):
        for stream in streams:
            os.close(stream)
        return None
    return streams, request


def _is_request(request: object) -> TypeGuard[dict[str, Any]]:
    """Whether a hand-over comes from this very module of this interpreter, with the fields a launcher sends."""
    if not isinstance(request, dict):
        return False
    argv, env = request.get("argv"), request.get("env")
    return (
        request.get("executable") == sys.executable
        and request.get("module") == __file__
        and isinstance(request.get("cwd"), str)
        and isinstance(argv, list)
        and all(isinstance(arg, str) for arg in argv)
        and isinstance(env, dict)
        and all(isinstance(key, str) and isinstance(value, str) for key, value in env.items())
    )


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
    """End this server when its launcher's connection closes: the launcher was killed, so is its server."""
    with contextlib.suppress(OSError):
        while connection.recv(1):
            pass
    os._exit(1)
