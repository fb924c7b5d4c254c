"""One client's connection to the HTTP service: its requests read, bounded in time and size, and answered in turn."""

from __future__ import annotations

import asyncio
import socket
from dataclasses import dataclass
from typing import Any, Final, Protocol
from urllib.parse import urlsplit

from ctxconform.reference.shared_context._http_calls import Answer, Calls
from ctxconform.reference.shared_context._http_wire import (
    MAX_HEAD_BYTES,
    HttpError,
    RequestHead,
    error_payload,
    parse_head,
    response,
)

__all__ = ["Connection", "Limits", "Served"]

Json = dict[str, Any]
_DRAIN_LIMIT: Final = 64 * 1024 * 1024
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


class Served(Protocol):
    """What a connection needs of the service it belongs to."""

    limits: Limits
    max_body: int
    connections: int
    """How many connections are open (each counts itself while it is)."""

    def info(self) -> Json:
        """What GET / answers."""

    def carry_out(self, target: str, authorization: str | None, body: bytes) -> Answer:
        """The answer to one POST (run off the event loop)."""


_REFUSAL: Final = response(503, {"errored": {"message": "too many connections; retry later"}}, close=True)


class Connection(asyncio.Protocol):
    """One client's connection: its requests served one at a time, each answered before the next is served.

    The idle timeout runs while no request has begun, the request timeout from a request's first byte until it
    has all arrived, and again while an answer waits for the client to read it: a client too slow is dropped.
    """

    def __init__(self, service: Served, calls: Calls) -> None:
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
            self._send(error.status, error_payload(error), close=True)
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
        self._send(413, error_payload(error), close=not drained)

    def _serve(self, head: RequestHead, body: bytes) -> None:
        path = urlsplit(head.target).path
        if head.method == "GET":
            if path == "/":
                self._send(200, self.service.info(), close=not head.keep_alive)
            else:
                error = HttpError("UNKNOWN_OP", f"no resource at {head.target[:200]!r}; GET / or POST an operation")
                self._send(error.status, error_payload(error), close=not head.keep_alive)
            return
        if head.method != "POST":
            error = HttpError("INVALID_REQUEST", f"method {head.method[:20]!r} is not served; GET / or POST", status=405)
            self._send(405, error_payload(error), close=not head.keep_alive)
            return
        self.busy = True
        self._wait(None)  # the call takes what it takes: a slow store is not the client's delay
        keep_alive = head.keep_alive
        self.calls.submit(
            lambda: self.service.carry_out(head.target, head.authorization, body),
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
