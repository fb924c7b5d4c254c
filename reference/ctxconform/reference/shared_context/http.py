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
import asyncio
import json
import queue
import signal
import socket
import sys
import threading
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import unquote, urlsplit

from ctxconform.reference._logging import log_to_stderr
from ctxconform.reference._sqlite import MAX_GROUP
from ctxconform.reference._tokens import Tokens, load_tokens, mint_token
from ctxconform.reference.exceptions import SpecError, StoreError
from ctxconform.reference.shared_context import SharedContext, SharedContextHandler, open_store
from ctxconform.reference.shared_context._http_wire import (
    MAX_HEAD_BYTES,
    HttpError,
    RequestHead,
    parse_head,
    response,
    status_for,
)

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
_WRITE_LIMIT: Final = 1 << 20  # bytes of answers queued for a client before the server waits for it to read


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


class Service:
    """The HTTP server: one event loop reads and writes every connection; calls run on a pool of threads.

    Calls run concurrently, so those that reach a SQLite store together share its commits; a connection's next
    request is read only once its last one is answered.
    """

    def __init__(
        self,
        address: tuple[str, int],
        handler: SharedContextHandler,
        tokens: Tokens,
        max_body: int = MAX_BODY_BYTES,
        *,
        limits: Limits = Limits(),
    ) -> None:
        self.handler = handler
        self.tokens = tokens
        self.max_body = max_body
        self.limits = limits
        self.socket = socket.create_server(address, backlog=128)
        self.server_address = self.socket.getsockname()
        self.connections = 0

    def info(self) -> Json:
        """What GET / answers: the same content as the protocol's `started`."""
        spec = {"version": self.handler.version, "features": list(self.handler.features)}
        return {"implementation": {"name": _NAME, "version": _VERSION, "language": "python"}, "specs": {"shared-context": spec}}

    def url(self) -> str:
        """The address the server listens on."""
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    async def serve(self, stopping: asyncio.Event) -> None:
        """Serve connections until `stopping` is set; then let the calls under way end, and close the store."""
        loop = asyncio.get_running_loop()
        service = self.handler.service
        calls = _Batches(service.batch, loop) if service.batches else _Pool(self.limits.max_connections, loop)
        server = await loop.create_server(lambda: _Connection(self, calls), sock=self.socket)
        try:
            await stopping.wait()
        finally:
            server.close()
            await asyncio.to_thread(calls.close)
            self.handler.close()

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


Answer = tuple[int, Json]
Deliver = Callable[[Answer], None]


class _Pool:
    """Calls run on a pool of threads, concurrently: for stores that share no commits, so that none waits on another."""

    def __init__(self, threads: int, loop: asyncio.AbstractEventLoop) -> None:
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="ctxconform-call")
        self._loop = loop

    def submit(self, call: Callable[[], Answer], deliver: Deliver) -> None:
        """Run `call` on a thread, then `deliver` its answer on the event loop."""
        done = self._pool.submit(call)
        done.add_done_callback(lambda _: self._loop.call_soon_threadsafe(deliver, done.result()))

    def close(self) -> None:
        """Wait for the calls under way."""
        self._pool.shutdown()


class _Batches:
    """Calls run one after another on one thread, each batch of those waiting sharing one commit (group commit).

    No answer of a batch is delivered before its commit has completed; when the commit fails, every call of the
    batch is answered that the store failed.
    """

    def __init__(self, batch: Callable[[], AbstractContextManager[None]], loop: asyncio.AbstractEventLoop) -> None:
        self._batch, self._loop = batch, loop
        self._queue: queue.SimpleQueue[tuple[Callable[[], Answer], Deliver] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="ctxconform-batches", daemon=True)
        self._thread.start()

    def submit(self, call: Callable[[], Answer], deliver: Deliver) -> None:
        """Queue `call`; `deliver` gets its answer on the event loop once the batch holding it is committed."""
        self._queue.put((call, deliver))

    def close(self) -> None:
        """Finish the calls queued, then stop the thread."""
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        while (batch := self._next()) is not None:
            try:
                with self._batch():
                    answers = [call() for call, _ in batch]
            except StoreError as error:
                answers = [(503, {"errored": {"message": str(error)}})] * len(batch)
            self._loop.call_soon_threadsafe(_deliver_all, [deliver for _, deliver in batch], answers)

    def _next(self) -> list[tuple[Callable[[], Answer], Deliver]] | None:
        """The calls waiting (at least one, at most a group's worth), or None once closed."""
        first = self._queue.get()
        if first is None:
            return None
        batch = [first]
        while len(batch) < MAX_GROUP:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is None:
                self._queue.put(None)  # the end, seen once this batch is done
                break
            batch.append(item)
        return batch


def _deliver_all(delivers: list[Deliver], answers: list[Answer]) -> None:
    for deliver, answer in zip(delivers, answers, strict=True):
        deliver(answer)


def _json_object(body: bytes) -> Json:
    try:
        args = json.loads(body)
    except (ValueError, RecursionError) as error:
        raise HttpError("INVALID_REQUEST", f"the body is not JSON ({type(error).__name__})") from error
    if not isinstance(args, dict):
        raise HttpError("INVALID_REQUEST", f"the body must be a JSON object, got {type(args).__name__}")
    return args


_REFUSAL: Final = response(503, {"errored": {"message": "too many connections; retry later"}}, close=True)


class _Connection(asyncio.Protocol):
    """One client's connection: its requests read one at a time, each answered before the next is read.

    The idle timeout runs while no request has begun, the request timeout from a request's first byte until it
    has all arrived, and again while an answer waits for the client to read it: a client too slow is dropped.
    """

    def __init__(self, service: Service, calls: _Pool | _Batches) -> None:
        self.service, self.calls = service, calls
        self.loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.scanned = 0  # bytes of the buffer known to hold no end of a head
        self.head: RequestHead | None = None  # the request whose body is awaited
        self.busy = False  # a call is running: what arrives waits
        self.paused = False  # the client is not reading its answers
        self.discard = 0  # bytes of a refused body still to drop
        self.timer: asyncio.TimerHandle | None = None
        self.counted = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Count the connection, or refuse it with a 503 when every slot is taken."""
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        if self.service.connections >= self.service.limits.max_connections:
            transport.write(_REFUSAL)
            transport.close()
            return
        self.service.connections += 1
        self.counted = True
        sock = transport.get_extra_info("socket")
        if sock is not None:  # answers go in one write; Nagle would still hold a second for a delayed ACK
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        transport.set_write_buffer_limits(high=_WRITE_LIMIT)
        self._wait(self.service.limits.idle_timeout)

    def connection_lost(self, exc: Exception | None) -> None:  # noqa: ARG002 - asyncio passes it
        """Free the slot; a call under way still ends, its answer dropped."""
        self._wait(None)
        if self.counted:
            self.counted = False
            self.service.connections -= 1
        self.transport = None

    def data_received(self, data: bytes) -> None:
        """Take what arrived, and serve the next request once it is whole."""
        if self.discard:
            dropped = min(self.discard, len(data))
            self.discard -= dropped
            data = data[dropped:]
        if not self.buffer and not self.busy and self.head is None and data:
            self._wait(self.service.limits.request_timeout)  # a request begins
        self.buffer += data
        if self.busy or self.paused:
            if len(self.buffer) > MAX_HEAD_BYTES + self.service.max_body and self.transport is not None:
                self.transport.pause_reading()  # a client sending ahead of its answers waits for them
            return
        self._advance()

    def pause_writing(self) -> None:
        """The client reads its answers slower than they come: no more is served until it catches up in time."""
        self.paused = True
        self._wait(self.service.limits.request_timeout)

    def resume_writing(self) -> None:
        """The client caught up: serve what it sent meanwhile."""
        self.paused = False
        self._resume()

    def _resume(self) -> None:
        """Go on reading and serving, unless a call runs or the client is not reading its answers."""
        if self.busy or self.paused or self.transport is None or self.transport.is_closing():
            return
        self.transport.resume_reading()
        self._wait(self.service.limits.request_timeout if self.buffer else self.service.limits.idle_timeout)
        self._advance()

    def _advance(self) -> None:
        """Serve the requests the buffer holds, one at a time, while no call runs and the client reads its answers."""
        while not (self.busy or self.paused) and self.transport is not None and not self.transport.is_closing():
            if not self._serve_next():
                return

    def _serve_next(self) -> bool:
        """Serve (or refuse) the next request if it has all arrived; whether one was."""
        try:
            head = self.head or self._take_head()
        except HttpError as error:
            self._send(error.status, _error(error), close=True)
            return False
        if head is None:
            return False
        if head.content_length > self.service.max_body:
            self._refuse_body(head.content_length, keep_alive=head.keep_alive)
            return True
        if len(self.buffer) < head.content_length:
            if head is not self.head and head.expects_continue and self.transport is not None:
                self.transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            self.head = head
            return False
        self.head = None
        body = bytes(self.buffer[: head.content_length])
        del self.buffer[: head.content_length]
        self._serve(head, body)
        return True

    def _take_head(self) -> RequestHead | None:
        """The next request's head, once it has all arrived (None until then)."""
        end = self.buffer.find(b"\r\n\r\n", max(0, self.scanned - 3), MAX_HEAD_BYTES + 4)
        if end < 0:
            self.scanned = len(self.buffer)
            if self.scanned > MAX_HEAD_BYTES:
                raise HttpError("INVALID_REQUEST", f"the request head is over {MAX_HEAD_BYTES} bytes", status=431)
            return None
        head = parse_head(bytes(self.buffer[:end]))
        del self.buffer[: end + 4]
        self.scanned = 0
        return head

    def _refuse_body(self, length: int, *, keep_alive: bool) -> None:
        """Answer 413; drop the body as it comes so the connection serves on, unless it is too long to wait for."""
        error = HttpError("INVALID_REQUEST", f"the body must be at most {self.service.max_body} bytes", status=413)
        drained = length <= _DRAIN_LIMIT and keep_alive
        if drained:
            dropped = min(length, len(self.buffer))
            del self.buffer[:dropped]
            self.discard = length - dropped
        self._send(413, _error(error), close=not drained)

    def _serve(self, head: RequestHead, body: bytes) -> None:
        path = urlsplit(head.target).path
        if head.method == "GET":
            if path == "/":
                self._send(200, self.service.info(), close=not head.keep_alive)
            else:
                error = HttpError("UNKNOWN_OP", f"no resource at {head.target[:200]!r}; GET / or POST an operation")
                self._send(error.status, _error(error), close=not head.keep_alive)
            return
        if head.method != "POST":
            error = HttpError("INVALID_REQUEST", f"method {head.method[:20]!r} is not served; GET / or POST", status=405)
            self._send(405, _error(error), close=not head.keep_alive)
            return
        self.busy = True
        self._wait(None)  # the call takes what it takes: a slow store is not the client's delay
        keep_alive = head.keep_alive
        self.calls.submit(
            lambda: _carry_out(self.service, head.target, head.authorization, body),
            lambda answer: self._answered(answer, keep_alive=keep_alive),
        )

    def _answered(self, answer: Answer, *, keep_alive: bool) -> None:
        self.busy = False
        if self.transport is None:
            return  # the client left meanwhile
        status, payload = answer
        self._send(status, payload, close=not keep_alive)
        self._resume()

    def _send(self, status: int, payload: Json, *, close: bool) -> None:
        transport = self.transport
        if transport is None:
            return
        transport.write(response(status, payload, close=close))
        if close:
            self._wait(None)
            transport.close()
        elif not self.buffer and self.head is None and not self.paused:
            self._wait(self.service.limits.idle_timeout)

    def _wait(self, seconds: float | None) -> None:
        """Drop the connection unless it makes progress within `seconds` (None: no limit)."""
        if self.timer is not None:
            self.timer.cancel()
        self.timer = None if seconds is None else self.loop.call_later(seconds, self._expire)

    def _expire(self) -> None:
        self.timer = None
        if self.transport is not None:
            self.transport.abort()  # too slow: no answer is owed


def _carry_out(service: Service, target: str, authorization: str | None, body: bytes) -> tuple[int, Json]:
    """Carry out one POST on a pool thread: the status and payload of its answer."""
    try:
        return 200, {"result": service.answer(Route.parse(target), authorization, body)}
    except (HttpError, SpecError) as error:
        return (error.status if isinstance(error, HttpError) else status_for(error.code)), _error(error)
    except StoreError as error:
        return 503, {"errored": {"message": str(error)}}
    except Exception as error:
        traceback.print_exc(file=sys.stderr)
        return 500, {"errored": {"message": f"the server failed unexpectedly ({type(error).__name__})"}}


def _error(error: HttpError | SpecError) -> Json:
    return {"error": {"code": error.code, "message": error.message}}


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
    """Serve until SIGTERM or SIGINT, then let the calls under way end and close the store."""
    asyncio.run(_serve_until_signalled(server))


async def _serve_until_signalled(server: Service) -> None:
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopping.set)
    serving = asyncio.create_task(server.serve(stopping))
    await asyncio.sleep(0)  # listening from here on: the socket was bound before the loop started
    print(f"listening on {server.url()}", flush=True)
    await serving


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
