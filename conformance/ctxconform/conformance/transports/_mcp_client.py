"""A synchronous MCP client: the initialize handshake, tools/list and tools/call, over a channel of JSON-RPC messages.

The harness speaks MCP's JSON-RPC itself, on the calling thread: a call is one message out and the messages that
come back, read until the answer to it arrives, with no event loop, task or thread hand-off. A channel carries the
messages (a server's stdin and stdout, or HTTP requests); this client keeps the protocol: request ids, the answer
to each request told from the server's notifications (ignored) and requests (``ping`` answered, any other refused
with "method not found"), late answers to a request that timed out skipped, and every result checked against the
MCP SDK's types before the harness reads it. Whatever a server sends is untrusted: a message that is not JSON-RPC
is a ProtocolViolation, never a crash of the harness.
"""

from __future__ import annotations

import json
import reprlib
from collections.abc import Generator
from contextlib import closing
from typing import Any, Final, Protocol, TypeVar

from mcp.types import CallToolResult, Implementation, InitializeResult, ListToolsResult, Tool
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION
from pydantic import BaseModel, ValidationError

from ctxconform.conformance.exceptions import ProtocolViolation, Uncarriable

__all__ = ["Channel", "ChannelClosed", "McpClient", "RpcError", "encode"]

Json = dict[str, Any]
_Result = TypeVar("_Result", bound=BaseModel)
_CLIENT_INFO: Final = {"name": "ctxconform", "version": "0"}
_METHOD_NOT_FOUND: Final = -32601
_MAX_TOOL_PAGES: Final = 100


class ChannelClosed(Exception):
    """The server closed the channel (its output ended, or it refused or dropped the connection)."""


class RpcError(Exception):
    """The server answered a request with a JSON-RPC error."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"{message} (JSON-RPC error {code})")
        self.code = code
        self.message = message


class Channel(Protocol):
    """How JSON-RPC messages travel to one server and back."""

    def request(self, message: Json, deadline: float) -> Generator[object, None, None]:
        """Send a request, then yield what comes back (decoded JSON) until the caller has its answer or none can come.

        Raises TimeoutError at `deadline` (time.monotonic()), ChannelClosed when the server is gone, ProtocolViolation
        for bytes that are not JSON.
        """

    def notify(self, message: Json, deadline: float) -> None:
        """Send a notification, or the answer to a server's request."""

    def negotiated(self, version: str) -> None:
        """Learn the protocol version the handshake agreed on (HTTP sends it with every later request)."""

    def close(self, timeout: float) -> None:
        """End the session and release the channel; never raises."""


class McpClient:
    """One MCP session with one server, over `channel`."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.server_info: Implementation | None = None
        self._next_id = 0

    def initialize(self, deadline: float) -> InitializeResult:
        """The initialize handshake: offer the latest handshake version, check the server's, confirm with initialized."""
        params = {"protocolVersion": LATEST_HANDSHAKE_VERSION, "capabilities": {}, "clientInfo": _CLIENT_INFO}
        result = _parsed(InitializeResult, self._request("initialize", params, deadline), "initialize")
        if result.protocol_version not in HANDSHAKE_PROTOCOL_VERSIONS:
            raise ProtocolViolation(
                f"the server answered initialize with protocol version {result.protocol_version[:100]!r}; "
                f"this client speaks {', '.join(HANDSHAKE_PROTOCOL_VERSIONS)}"
            )
        self.server_info = result.server_info
        self.channel.negotiated(result.protocol_version)
        self.channel.notify({"jsonrpc": "2.0", "method": "notifications/initialized"}, deadline)
        return result

    def list_tools(self, deadline: float) -> list[Tool]:
        """Every tool the server lists, following its cursors."""
        tools: list[Tool] = []
        params: Json = {}
        for _ in range(_MAX_TOOL_PAGES):
            page = _parsed(ListToolsResult, self._request("tools/list", params, deadline), "tools/list")
            tools.extend(page.tools)
            if not page.next_cursor:
                return tools
            params = {"cursor": page.next_cursor}
        raise ProtocolViolation(f"tools/list did not end after {_MAX_TOOL_PAGES} pages")

    def call_tool(self, name: str, arguments: Json, meta: Json | None, deadline: float) -> CallToolResult:
        """Call one tool and return its result."""
        params: Json = {"name": name, "arguments": arguments, **({"_meta": meta} if meta else {})}
        return _parsed(CallToolResult, self._request("tools/call", params, deadline), "tools/call")

    def close(self, timeout: float) -> None:
        """End the session; never raises."""
        self.channel.close(timeout)

    def _request(self, method: str, params: Json, deadline: float) -> object:
        """Send one request and return its result; RpcError for an error answer."""
        self._next_id += 1
        ours = self._next_id
        request = {"jsonrpc": "2.0", "id": ours, "method": method, "params": params}
        with closing(self.channel.request(request, deadline)) as messages:
            for message in messages:
                for item in message if isinstance(message, list) else [message]:
                    answer = self._handle(item, ours, deadline)
                    if answer is not None:
                        return answer[0]
        raise ProtocolViolation(f"the server sent no answer to {method} (request id {ours})")

    def _handle(self, message: object, ours: int, deadline: float) -> tuple[object] | None:
        """The result of our request when `message` answers it; a server's request is answered, anything else skipped."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            raise ProtocolViolation(f"not a JSON-RPC 2.0 message: {_excerpt(message)}")
        if "method" in message:
            if "id" in message:  # the server asks something of the client
                self.channel.notify(_answer_to(message), deadline)
            return None
        identifier = message.get("id")
        answers_ours = identifier == ours and not isinstance(identifier, bool)
        # A server that cannot parse a request answers with a null id; only one request of ours is ever waiting.
        if "error" in message and (answers_ours or identifier is None):
            raise _rpc_error(message["error"])
        if not answers_ours:
            return None  # the late answer to a request that timed out
        if "result" not in message:
            raise ProtocolViolation(f"a JSON-RPC response with neither result nor error: {_excerpt(message)}")
        return (message["result"],)


def encode(message: Json) -> bytes:
    """A message as compact UTF-8 JSON; Uncarriable when it nests too deep for the encoder."""
    try:
        return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    except RecursionError as error:
        raise Uncarriable("MCP", "a request nested too deep for the harness's JSON encoder") from error


def _answer_to(request: Json) -> Json:
    """The client's answer to a server's request: ping is answered, everything else is a method this client lacks."""
    if request.get("method") == "ping":
        return {"jsonrpc": "2.0", "id": request["id"], "result": {}}
    error = {"code": _METHOD_NOT_FOUND, "message": f"the ctxconform client does not serve {str(request.get('method'))[:100]}"}
    return {"jsonrpc": "2.0", "id": request["id"], "error": error}


def _rpc_error(error: object) -> RpcError:
    if not isinstance(error, dict) or not isinstance(error.get("code"), int) or isinstance(error.get("code"), bool):
        raise ProtocolViolation(f"a JSON-RPC error that is not {{code, message}}: {_excerpt(error)}")
    return RpcError(error["code"], str(error.get("message", ""))[:1000])


def _parsed(model: type[_Result], result: object, method: str) -> _Result:
    try:
        return model.model_validate(result)
    except ValidationError as invalid:
        raise ProtocolViolation(f"not a valid {method} result: {_excerpt(result)} ({invalid.error_count()} errors)") from invalid


def _bounded_repr() -> reprlib.Repr:
    bounded = reprlib.Repr()  # keyword arguments only from Python 3.12
    bounded.maxlevel, bounded.maxstring, bounded.maxother, bounded.maxlist, bounded.maxdict = 4, 120, 120, 8, 8
    return bounded


_EXCERPT: Final = _bounded_repr()


def _excerpt(value: object) -> str:
    """A short, bounded rendering of what a server sent, however big or deep."""
    return _EXCERPT.repr(value)[:300]
