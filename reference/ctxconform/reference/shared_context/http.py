"""Serve the reference's shared-context over HTTP, with bearer tokens naming the calling participant.

Run it as ``python -m ctxconform.reference.shared_context.http --store URL [--host 127.0.0.1] [--port 0] [--tokens FILE]``.
``GET /`` describes the implementation; ``POST /{op}`` runs a session lifecycle operation (participant
``system`` only) and ``POST /sessions/{session_id}/{op}`` the ``shared_context`` tool of one session, the body
being the operation's arguments. Replies are ``{"result": ...}``, ``{"error": {"code", "message"}}`` or
``{"errored": {"message"}}``. A token is ``base64url(participant) + "." + hex HMAC-SHA256(secret, participant)``
with the secret from ``CTXCONFORM_TOKEN_SECRET``, or one of the fixed tokens of ``--tokens`` (``{token: participant}``).
"""

from __future__ import annotations

import argparse
import io
import json
import signal
import socket
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import FrameType
from typing import Any, Final
from urllib.parse import unquote, urlsplit

from ctxconform.reference._logging import log_to_stderr
from ctxconform.reference._tokens import Tokens, load_tokens, mint_token
from ctxconform.reference.exceptions import SpecError, StoreError
from ctxconform.reference.shared_context import SharedContext, SharedContextHandler, open_store

__all__ = ["MAX_BODY_BYTES", "HttpError", "Limits", "Tokens", "build_server", "main", "mint_token"]

Json = dict[str, Any]

# The suite sends megabyte fields, and JSON can take 6 bytes for one character (a NUL is \u0000): 4 MiB is too few.
MAX_BODY_BYTES: Final = 16 * 1024 * 1024
_DRAIN_LIMIT: Final = 64 * 1024 * 1024
LIFECYCLE_OPS: Final = frozenset({"create_session", "archive_session", "delete_session"})
SESSION_OPS: Final = frozenset({"shared_context"})
SYSTEM: Final = "system"
_NAME: Final = "ctxconform-reference"
_VERSION: Final = "0.1.0"
_CONFLICTS: Final = frozenset({"SESSION_EXISTS", "SESSION_ARCHIVED", "SNAPSHOT_EXISTS"})
_TOO_LARGE: Final = frozenset({"VALUE_TOO_LARGE", "STORE_FULL"})
_FIXED_STATUS: Final = {"UNAUTHENTICATED": 401, "FORBIDDEN": 403, "UNKNOWN_OP": 404}


@dataclass(frozen=True)
class Limits:
    """What one client may hold: seconds to send a request once started, seconds idle between requests, connections."""

    request_timeout: float = 30.0
    idle_timeout: float = 60.0
    max_connections: int = 64

    def __post_init__(self) -> None:
        """Refuse limits that would serve nobody."""
        if self.request_timeout <= 0 or self.idle_timeout <= 0 or self.max_connections < 1:
            raise ValueError("give positive timeouts and at least one connection")


def status_for(code: str) -> int:
    """Return the HTTP status that fits a spec error code."""
    if code in _FIXED_STATUS:
        return _FIXED_STATUS[code]
    if code in _CONFLICTS:
        return 409
    if code in _TOO_LARGE:
        return 413
    return 404 if code.endswith("_NOT_FOUND") else 400


class HttpError(Exception):
    """A refusal at the HTTP layer, answered as a spec-style error with its status."""

    def __init__(self, code: str, message: str, status: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status or status_for(code)


@dataclass(frozen=True)
class Route:
    """What a request path names: an operation, and the session for session-scoped ones."""

    op: str
    session_id: str | None = None

    @classmethod
    def parse(cls, target: str) -> Route:
        """Split a request target into op and session; raise UNKNOWN_OP or INVALID_REQUEST."""
        parts = urlsplit(target).path.split("/")
        if len(parts) == 2 and parts[1] in LIFECYCLE_OPS:  # noqa: PLR2004 - "/{op}"
            return cls(parts[1])
        if len(parts) == 4 and parts[1] == "sessions" and parts[3] in SESSION_OPS:  # noqa: PLR2004
            try:
                return cls(parts[3], unquote(parts[2], errors="strict"))
            except UnicodeDecodeError as error:
                raise HttpError("INVALID_REQUEST", "the session id in the path is not percent-encoded UTF-8") from error
        raise HttpError("UNKNOWN_OP", f"no operation at {target[:200]!r}; use POST /{{op}} or /sessions/{{id}}/shared_context")


class Service(ThreadingHTTPServer):
    """The HTTP server: one thread per connection, all sharing one shared-context handler."""

    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        handler: SharedContextHandler,
        tokens: Tokens,
        max_body: int = MAX_BODY_BYTES,
        *,
        limits: Limits = Limits(),
    ) -> None:
        super().__init__(address, _RequestHandler)
        self.handler = handler
        self.tokens = tokens
        self.max_body = max_body
        self.limits = limits
        self._slots = threading.BoundedSemaphore(limits.max_connections)

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve the connection in a thread of its own, or refuse it with a 503 when every slot is taken."""
        if not self._slots.acquire(blocking=False):
            _refuse(request)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        """Serve one connection, then free its slot."""
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that timed out or went away is routine; anything else is a bug worth its traceback."""
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)

    def info(self) -> Json:
        """What GET / answers: the same content as the protocol's `started`."""
        spec = {"version": self.handler.version, "features": list(self.handler.features)}
        return {"implementation": {"name": _NAME, "version": _VERSION, "language": "python"}, "specs": {"shared-context": spec}}

    def url(self) -> str:
        """The address the server listens on."""
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def answer(self, route: Route, authorization: str | None, body: bytes) -> Json:
        """Authenticate, parse the body and carry out the call; raise HttpError or SpecError to refuse it."""
        participant = self._participant(authorization)
        if route.session_id is None and participant != SYSTEM:
            raise HttpError("FORBIDDEN", f"{route.op} is a system operation; participant {participant!r} may not call it")
        args = _json_object(body)
        context = (
            {"participant": participant}
            if route.session_id is None
            else {"session_id": route.session_id, "participant": participant}
        )
        return self.handler.call(route.op, args, context)

    def _participant(self, authorization: str | None) -> str:
        scheme, _, token = (authorization or "").partition(" ")
        participant = self.tokens.participant(token.strip()) if scheme.lower() == "bearer" else None
        if participant is None:
            raise HttpError("UNAUTHENTICATED", "give a valid token: Authorization: Bearer <token>")
        return participant


def _json_object(body: bytes) -> Json:
    try:
        args = json.loads(body)
    except (ValueError, RecursionError) as error:
        raise HttpError("INVALID_REQUEST", f"the body is not JSON ({type(error).__name__})") from error
    if not isinstance(args, dict):
        raise HttpError("INVALID_REQUEST", f"the body must be a JSON object, got {type(args).__name__}")
    return args


def _refuse(request: socket.socket) -> None:
    body = b'{"errored":{"message":"too many connections; retry later"}}'
    head = f"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    try:
        request.settimeout(1.0)
        request.sendall(head.encode() + b"Connection: close\r\n\r\n" + body)
    except OSError:
        pass


class _DeadlineReader(io.RawIOBase):
    """A socket's reads under a deadline: the whole of a request must arrive in time, not each byte (slowloris)."""

    def __init__(self, sock: socket.socket, limits: Limits) -> None:
        super().__init__()
        self.sock, self.limits = sock, limits
        self.deadline, self.idle = 0.0, True

    def await_request(self) -> None:
        """Wait up to the idle timeout for a request's first byte; the request timeout starts with it."""
        self.idle, self.deadline = True, time.monotonic() + self.limits.idle_timeout

    def readable(self) -> bool:
        """Always readable."""
        return True

    def readinto(self, buffer: Any) -> int:
        """Read what has arrived, waiting no later than the deadline; raise TimeoutError past it."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the client was too slow")
        self.sock.settimeout(left)
        count = self.sock.recv_into(buffer)
        if self.idle and count:
            self.idle, self.deadline = False, time.monotonic() + self.limits.request_timeout
        return count


class _RequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # persistent connections
    disable_nagle_algorithm = True  # headers and body go in two writes; Nagle would hold the second for a delayed ACK
    server: Service
    _reader: _DeadlineReader

    def setup(self) -> None:
        """Read the connection through a deadline reader."""
        super().setup()
        self._reader = _DeadlineReader(self.connection, self.server.limits)
        self.rfile = io.BufferedReader(self._reader)

    def handle_one_request(self) -> None:
        """Serve one request, the idle and request timeouts running."""
        self._reader.await_request()
        super().handle_one_request()

    def do_GET(self) -> None:
        """Describe the implementation at /; nothing else is served."""
        if urlsplit(self.path).path == "/":
            self._send(200, self.server.info())
        else:
            self._send_error(HttpError("UNKNOWN_OP", f"no resource at {self.path[:200]!r}; GET / or POST an operation"))

    def do_POST(self) -> None:
        """Carry out one operation."""
        try:
            route = Route.parse(self.path)
            body = self._body()
            if body is None:
                return
            self._send(200, {"result": self.server.answer(route, self.headers.get("Authorization"), body)})
        except (HttpError, SpecError) as error:
            self._send_error(error)
        except StoreError as error:
            self._send(503, {"errored": {"message": str(error)}})
        except Exception as error:
            traceback.print_exc(file=sys.stderr)
            self._send(500, {"errored": {"message": f"the server failed unexpectedly ({type(error).__name__})"}})

    def _body(self) -> bytes | None:
        """Read the body; None when the client went away before sending all of it."""
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError as error:
            raise HttpError("INVALID_REQUEST", "Content-Length is not a number") from error
        if length < 0 or length > self.server.max_body:
            self._discard(length)
            raise HttpError("INVALID_REQUEST", f"the body must be at most {self.server.max_body} bytes", status=413)
        try:
            body = self.rfile.read(length)
        except OSError:  # TimeoutError: the body did not arrive in time
            body = b""
        if len(body) < length:
            self.close_connection = True
            return None
        return body

    def _discard(self, length: int) -> None:
        """Read and drop a refused body, so the client gets to read the 413; close when it is too long for that."""
        if not 0 <= length <= _DRAIN_LIMIT:
            self.close_connection = True  # the unread body would be taken for the next request
            return
        while length > 0 and (chunk := self.rfile.read(min(length, 1 << 20))):
            length -= len(chunk)
        self.close_connection = length > 0

    def _send_error(self, error: HttpError | SpecError) -> None:
        status = error.status if isinstance(error, HttpError) else status_for(error.code)
        self._send(status, {"error": {"code": error.code, "message": error.message}})

    def _send(self, status: int, payload: Json) -> None:
        data = json.dumps(payload, separators=(",", ":")).encode()  # ASCII escapes: lone surrogates stay writable
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.connection.settimeout(self.server.limits.request_timeout)  # a client that never reads is let go too
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class names it so
        """Stay quiet: one line per request would drown the logs of a conformance run."""


def build_server(
    store_url: str,
    host: str,
    port: int,
    tokens: Tokens,
    max_body: int = MAX_BODY_BYTES,
    *,
    limits: Limits = Limits(),
) -> Service:
    """Open the store and bind the server (port 0 picks a free one)."""
    return Service((host, port), SharedContextHandler(SharedContext(open_store(store_url))), tokens, max_body, limits=limits)


def serve(server: Service) -> None:
    """Serve until SIGTERM or SIGINT, then shut down and close the store."""
    stopping = threading.Event()

    def stop(signum: int, frame: FrameType | None) -> None:  # noqa: ARG001 - the signal API passes both
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), name="ctxconform-http", daemon=True)
    thread.start()
    print(f"listening on {server.url()}", flush=True)
    stopping.wait()
    server.shutdown()
    server.server_close()
    server.handler.close()


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and serve shared-context over HTTP."""
    parser = argparse.ArgumentParser(prog="python -m ctxconform.reference.shared_context.http", description=__doc__)
    parser.add_argument("--store", required=True, help="store URL: sqlite:///path.db or memory:")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port to bind (default 0: a free one)")
    parser.add_argument("--tokens", help="JSON file {token: participant} of fixed tokens")
    parser.add_argument("--max-body-bytes", type=int, default=MAX_BODY_BYTES, help="largest request body (default 16 MiB)")
    parser.add_argument("--request-timeout", type=float, default=Limits.request_timeout, help="seconds to send a request")
    parser.add_argument("--idle-timeout", type=float, default=Limits.idle_timeout, help="seconds idle before closing")
    parser.add_argument("--max-connections", type=int, default=Limits.max_connections, help="open connections at most")
    options = parser.parse_args(argv)
    log_to_stderr()
    try:
        tokens = load_tokens(options.tokens)
        limits = Limits(options.request_timeout, options.idle_timeout, options.max_connections)
        server = build_server(options.store, options.host, options.port, tokens, options.max_body_bytes, limits=limits)
    except (OSError, ValueError, StoreError) as error:
        print(f"ctxconform reference http: {error}", file=sys.stderr)
        return 2
    serve(server)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
