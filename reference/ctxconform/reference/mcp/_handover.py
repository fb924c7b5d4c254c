"""A launcher's hand-over to its state directory's fork server: the request it sends, and the launcher's side of it.

The launcher connects to `SOCKET_NAME` in the state directory and sends, with its stdin, stdout and stderr as
SCM_RIGHTS, a four-byte length and the request: NUL-separated fields (the interpreter, this module's file, the working
folder, the number of arguments, the arguments, then the environment as NAME=value), each as the operating system
gave it (undecodable bytes travel as they are). The fork server answers `STARTED` once a server runs with them, and
`EXITED` and the exit status when it ends. A SIGTERM the launcher gets meanwhile (a supervisor stopping it) goes on to
the server as `TERMINATE`, so that the server ends as it would if it had been sent the signal itself.

Every participant's server over mcp+stdio starts as a launcher, so this module imports only what the interpreter
has built in or loaded already: `socket`, `json` and `struct` would cost each launcher about ten milliseconds more.
"""

from __future__ import annotations

import _socket
import array
import importlib
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Final

__all__ = [
    "EXITED",
    "HANDOVER_SECONDS",
    "LARGEST_REQUEST",
    "SOCKET_NAME",
    "STARTED",
    "SWITCH",
    "TERMINATE",
    "decode_request",
    "encode_request",
    "hand_over",
    "receive",
    "socket_path",
]

SOCKET_NAME: Final = ".ctxconform-mcp-forks"
SWITCH: Final = "CTXCONFORM_FORKSERVER"
STARTED: Final = b"S"
EXITED: Final = b"X"
TERMINATE: Final = b"T"
HANDOVER_SECONDS: Final = 5.0
LARGEST_REQUEST: Final = 4 * 1024 * 1024
_LONGEST_ADDRESS: Final = 100  # bytes: AF_UNIX paths are limited to 104-108 bytes, depending on the system
_FIXED: Final = 4  # interpreter, module, folder, number of arguments


def socket_path(environ: Mapping[str, str]) -> str | None:
    """Where this state directory's fork server listens, or None when there can be none."""
    state_dir = environ.get("CTXCONFORM_STATE_DIR")
    if not state_dir or environ.get(SWITCH) == "0" or not hasattr(_socket, "SCM_RIGHTS") or not hasattr(os, "fork"):
        return None
    where = os.path.join(os.path.abspath(state_dir), SOCKET_NAME)
    return where if len(os.fsencode(where)) <= _LONGEST_ADDRESS else None


def hand_over(argv: list[str]) -> int | None:
    """Have this state directory's fork server start the server and return its exit status; None: start it here."""
    where = socket_path(os.environ)
    if where is None or not os.path.exists(where):
        return None
    try:
        request = encode_request(sys.executable, argv, os.environ, os.getcwd())
    except (OSError, ValueError):
        return None
    try:
        return _hand_over(where, request)
    except KeyboardInterrupt:
        return 130


def encode_request(executable: str, argv: list[str], env: Mapping[str, str], cwd: str) -> bytes:
    """The request that starts a server as this launcher would have; ValueError when a field holds a NUL or it is too large."""
    fields = [executable, __file__, cwd, str(len(argv)), *argv, *(f"{name}={value}" for name, value in env.items())]
    encoded = [os.fsencode(field) for field in fields]
    if any(b"\0" in field for field in encoded):
        raise ValueError("a field of the hand-over holds a NUL")
    request = b"\0".join(encoded)
    if len(request) > LARGEST_REQUEST:
        raise ValueError("the environment is too large to hand over")
    return request


def decode_request(data: bytes) -> dict[str, Any] | None:
    """The fields of a request from this very module of this interpreter, or None for anything else."""
    fields = [os.fsdecode(field) for field in data.split(b"\0")]
    if len(fields) < _FIXED or fields[0] != sys.executable or fields[1] != __file__ or not fields[3].isdigit():
        return None
    count = int(fields[3])
    argv, variables = fields[_FIXED : _FIXED + count], fields[_FIXED + count :]
    if len(argv) != count or not all(variable.find("=") > 0 for variable in variables):
        return None
    env = dict(variable.split("=", 1) for variable in variables)
    return {"executable": fields[0], "module": fields[1], "cwd": fields[2], "argv": argv, "env": env}


def receive(connection: Any, size: int) -> bytes:
    """Exactly `size` bytes from a socket, or fewer when the connection ends first."""
    data = b""
    while len(data) < size:
        chunk = connection.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


def _hand_over(where: str, request: bytes) -> int | None:
    connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        try:
            connection.settimeout(HANDOVER_SECONDS)
            connection.connect(where)
            streams = [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, array.array("i", [0, 1, 2]))]
            connection.sendmsg([len(request).to_bytes(4, "big")], streams)
            connection.sendall(request)
            if receive(connection, 1) != STARTED:
                return None
        except OSError:
            return None
        # From here the server owns the standard streams: whatever happens, it must not be started a second time.
        try:
            connection.settimeout(None)
            _forward_sigterm(connection)
            message = receive(connection, 2)
        except OSError:
            return 1
        return message[1] if len(message) == 2 and message[:1] == EXITED else 1  # noqa: PLR2004 - marker and status
    finally:
        connection.close()


def _forward_sigterm(connection: Any) -> None:
    """On SIGTERM, ask the server to end (`signal` would load `enum`: the built-in `_signal` does the same here)."""

    def forward(signum: int, frame: object) -> None:  # noqa: ARG001 - a signal handler's signature
        try:  # noqa: SIM105 - contextlib would be one more import for every launcher
            connection.send(TERMINATE)
        except OSError:
            pass  # the server has gone: its exit status, or the connection's end, is on its way

    signals = importlib.import_module("_signal")
    signals.signal(signals.SIGTERM, forward)
