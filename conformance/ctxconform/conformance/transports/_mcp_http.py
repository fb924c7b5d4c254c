"""The mcp+http transports: MCP's streamable HTTP to one server that many participants share, each with its token.

`mcp+http+serve:COMMAND` starts the command with a fresh secret in CTXCONFORM_TOKEN_SECRET (the start options
reach it as CTXCONFORM_* variables and `{placeholders}`), reads ``listening on http://HOST:PORT/PATH`` from its
stdout, and connects there; stop ends it, and restart starts it again on the same state directory.
`mcp+http://HOST:PORT/PATH` connects to a server already running, with tokens signed with the harness's own
CTXCONFORM_TOKEN_SECRET or read from the JSON file CTXCONFORM_TOKENS names (``{participant: token}``).
Each participant's connection sends ``Authorization: Bearer <token>`` naming it; the first connection, and every
call that names no participant, is ``system``'s. Each connection is an MCP session of its own (the initialize
handshake; the server's ``Mcp-Session-Id`` on every later request), ended with a DELETE when it closes.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import select
import time
from collections.abc import Generator, Iterator
from typing import Any, Final
from urllib.parse import urlsplit

from ctxconform.conformance.exceptions import ImplementationErrored, ProtocolViolation
from ctxconform.conformance.transports._http_deadline import MAX_BODY_BYTES, DeadlineConnection, bounded, chunks
from ctxconform.conformance.transports._mcp import McpTransport
from ctxconform.conformance.transports._mcp_client import Channel, ChannelClosed, encode
from ctxconform.conformance.transports._served import ServedChild
from ctxconform.conformance.transports._shared_context_http import TokenFor, environment_tokens, signed_tokens

__all__ = ["MAX_BODY_BYTES", "HttpChannel", "McpHttpServeTransport", "McpHttpTransport"]

Json = dict[str, Any]
SYSTEM: Final = "system"
_ACCEPT: Final = "application/json, text/event-stream"
_CHUNK: Final = 1 << 16
_STALE: Final = (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError)
_SERVER_ERROR: Final = 500


class McpHttpTransport(McpTransport):
    """MCP over streamable HTTP to a server already running at `url`; restart only reconnects."""

    def __init__(self, url: str, command: list[str] | None = None) -> None:
        super().__init__(command or [url])
        self.url = url
        self._tokens: TokenFor = lambda _participant: None

    def open(self) -> None:
        """Find the tokens in the environment; the server is already running."""
        self._tokens = environment_tokens()

    def describe(self) -> str:
        """The server's URL."""
        return self.url

    def channel(self, participant: str | None) -> Channel:
        """A streamable HTTP session whose requests carry the participant's bearer token (system's for the first)."""
        token = self._tokens(participant if participant is not None else SYSTEM)
        return HttpChannel(self.url, {} if token is None else {"Authorization": f"Bearer {token}"})


class HttpChannel:
    """MCP's streamable HTTP: each message a POST on one persistent connection, answered as JSON or an event stream.

    Every read waits at most until the call's deadline, and an answer or event larger than `MAX_BODY_BYTES` is a
    ProtocolViolation: a server cannot hold the harness with a slow or endless body.
    """

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        parts = urlsplit(url)
        if parts.scheme != "http" or parts.hostname is None:
            raise ChannelClosed(f"{url}: the MCP server's URL must be http://HOST:PORT/PATH")
        self.url = url
        self._host, self._port = parts.hostname, parts.port or 80
        self._path = parts.path + (f"?{parts.query}" if parts.query else "") or "/"
        self._headers = {"Accept": _ACCEPT, "Content-Type": "application/json", **headers}
        self._connection: DeadlineConnection | None = None
        self._streaming = False  # an answer's event stream is being read on the connection

    def request(self, message: Json, deadline: float) -> Generator[object, None, None]:
        """POST the request and yield the messages of the answer."""
        response = self._post(message, deadline)
        self._streaming = True
        try:
            yield from self._messages(response)
        finally:
            self._streaming = False
            if not response.isclosed():  # an event stream left open: this connection cannot carry another request
                self.close_connection()

    def notify(self, message: Json, deadline: float) -> None:
        """POST a notification or an answer; the server owes nothing back but an acknowledgement, which is read and dropped.

        While an answer's event stream holds the connection (a server asking something mid-call), the POST goes on a
        connection of its own.
        """
        if self._streaming:
            aside = HttpChannel(self.url, self._headers)  # the same session, on a connection of its own
            try:
                aside.notify(message, deadline)
            finally:
                aside.close_connection()
            return
        response = self._post(message, deadline)
        for _ in _chunks(response):
            pass

    def negotiated(self, version: str) -> None:
        """Send the agreed protocol version with every later request, as streamable HTTP asks."""
        self._headers["MCP-Protocol-Version"] = version

    def close(self, timeout: float) -> None:
        """End the MCP session with a DELETE when the server gave one (its refusal is fine), and close the connection."""
        if "Mcp-Session-Id" in self._headers:
            with contextlib.suppress(OSError, http.client.HTTPException, TimeoutError):
                connection, _ = self._open()
                connection.by(time.monotonic() + min(timeout, 2.0))
                connection.request("DELETE", self._path, headers=self._headers)
                connection.getresponse().read(_CHUNK)
        self.close_connection()

    def _post(self, message: Json, deadline: float) -> http.client.HTTPResponse:
        """Send one POST and return its response, its headers read; a kept-alive connection the server closed is reopened once."""
        body = encode(message)
        for attempt in range(2):
            connection, reused = self._open()
            try:
                connection.by(deadline)
                connection.request("POST", self._path, body=body, headers=self._headers)
                response = connection.getresponse()
            except _STALE as error:
                self.close_connection()
                if reused and attempt == 0:
                    continue
                raise ChannelClosed(f"{self.url}: {type(error).__name__}: {error}") from error
            except TimeoutError:
                self.close_connection()
                raise
            except (OSError, http.client.HTTPException) as error:
                self.close_connection()
                raise ChannelClosed(f"{self.url}: {type(error).__name__}: {error}") from error
            session = response.getheader("Mcp-Session-Id")
            if session and session.isprintable() and len(session) <= 1024:  # noqa: PLR2004 - a header, not a payload
                self._headers["Mcp-Session-Id"] = session
            return response
        raise AssertionError("unreachable")  # pragma: no cover

    def _open(self) -> tuple[DeadlineConnection, bool]:
        """The kept-alive connection, unless the server has closed it, else a new one; and whether it is reused."""
        connection = self._connection
        if connection is not None and connection.sock is not None and not _readable(connection.sock):
            return connection, True
        self.close_connection()
        self._connection = DeadlineConnection(self._host, self._port)
        return self._connection, False

    def _messages(self, response: http.client.HTTPResponse) -> Iterator[object]:
        """The JSON-RPC messages of an answer: a JSON body, or the events of an event stream."""
        kind = (response.getheader("Content-Type") or "").split(";")[0].strip().lower()
        if kind == "text/event-stream" and response.status < 300:  # noqa: PLR2004
            yield from _events(_chunks(response))
            return
        body = b"".join(bounded(_chunks(response)))
        if not body.strip() and response.status < 300:  # noqa: PLR2004 - 200 or 202 with nothing: no answer here
            return
        try:
            message = _decoded(body)
        except ProtocolViolation:
            message = None
        if isinstance(message, list) or (isinstance(message, dict) and "jsonrpc" in message):
            yield message
        elif response.status >= _SERVER_ERROR:
            raise ImplementationErrored(f"HTTP {response.status} from {self.url}: {body[:200]!r}")
        else:
            raise ProtocolViolation(f"HTTP {response.status} from {self.url} without a JSON-RPC message: {body[:200]!r}")

    def close_connection(self) -> None:
        """Close the connection, not the session: a later message opens a new one."""
        if self._connection is not None:
            self._connection.close()
        self._connection = None


def _chunks(response: http.client.HTTPResponse) -> Iterator[bytes]:
    """The body as it arrives, by the call's deadline; an answer broken off closes the channel."""
    try:
        yield from chunks(response)
    except TimeoutError:
        raise
    except (OSError, http.client.HTTPException) as error:
        raise ChannelClosed(f"the answer broke off: {type(error).__name__}: {error}") from error


def _events(chunks: Iterator[bytes]) -> Iterator[object]:
    """The JSON-RPC messages of an event stream: the data of each `message` event (the default type)."""
    pending = bytearray()
    data: list[bytes] = []
    kind = b""
    size = 0
    for chunk in chunks:
        pending += chunk
        while (end := pending.find(b"\n")) >= 0:
            line = bytes(pending[:end]).removesuffix(b"\r")
            del pending[: end + 1]
            if not line:
                if data and kind in (b"", b"message"):
                    yield _decoded(b"\n".join(data))
                data, kind, size = [], b"", 0
                continue
            field, _, value = line.partition(b":")
            value = value.removeprefix(b" ")
            if field == b"data":
                data.append(value)
                size += len(value)
            elif field == b"event":
                kind = value
        if size + len(pending) > MAX_BODY_BYTES:
            raise ProtocolViolation(f"an event longer than {MAX_BODY_BYTES >> 20} MiB, the most one message may take")


def _decoded(data: bytes) -> object:
    try:
        return json.loads(data)
    except RecursionError as error:
        raise ProtocolViolation("a message nests lists and objects too deep to decode") from error
    except ValueError as error:
        raise ProtocolViolation(f"not JSON: {data[:200]!r}") from error


def _readable(sock: Any) -> bool:
    """Whether an idle kept-alive socket has something to read: the server closed it (or wrote out of turn)."""
    try:
        return bool(select.select([sock], [], [], 0)[0])
    except (OSError, ValueError):
        return True


class McpHttpServeTransport(McpHttpTransport):
    """Starts a command serving MCP over streamable HTTP, then connects to it; restart starts it again."""

    def __init__(self, command: list[str]) -> None:
        super().__init__("", command)
        self._child = ServedChild(command)
        self._tokens = signed_tokens(self._child.secret)

    def open(self) -> None:
        """Nothing to do until `start` says where the state is."""

    def describe(self) -> str:
        """The command."""
        return " ".join(self.command)

    def close(self, timeout: float) -> None:
        """Close every connection, then SIGTERM the child's process group, and kill it if it lingers."""
        super().close(timeout)
        self._child.terminate(timeout)

    def stderr_tail(self) -> str:
        """The last part of what the child wrote on stderr, and its exit code when it has exited."""
        return self._child.detail()

    def _start(self, message: Json, timeout: float) -> Json:
        self.url = self._child.launch(message, timeout)
        return super()._start(message, timeout)
