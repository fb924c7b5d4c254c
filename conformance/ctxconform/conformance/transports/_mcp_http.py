"""The mcp+http transports: MCP's streamable HTTP to one server that many participants share, each with its token.

`mcp+http+serve:COMMAND` starts the command with a fresh secret in CTXCONFORM_TOKEN_SECRET (the start options
reach it as CTXCONFORM_* variables and `{placeholders}`), reads ``listening on http://HOST:PORT/PATH`` from its
stdout, and connects there; stop ends it, and restart starts it again on the same state directory.
`mcp+http://HOST:PORT/PATH` connects to a server already running, with tokens signed with the harness's own
CTXCONFORM_TOKEN_SECRET or read from the JSON file CTXCONFORM_TOKENS names (``{participant: token}``).
Each participant's connection sends ``Authorization: Bearer <token>`` naming it; the first connection, and every
call that names no participant, is ``system``'s. A call too deeply nested for the SDK to encode goes as raw
JSON-RPC in an MCP session of its own.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Final

import httpx2
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from ctxconform.conformance.exceptions import ImplementationCrashed, ImplementationTimeout, ProtocolViolation
from ctxconform.conformance.transports._mcp import McpTransport, ToolCall, json_rpc_refusal, translate
from ctxconform.conformance.transports._served import ServedChild
from ctxconform.conformance.transports._shared_context_http import TokenFor, environment_tokens, signed_tokens

__all__ = ["McpHttpServeTransport", "McpHttpTransport"]

Json = dict[str, Any]
SYSTEM: Final = "system"
_PROTOCOL_VERSION: Final = "2025-06-18"
_ACCEPT: Final = "application/json, text/event-stream"


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

    def client_transport(self, participant: str | None) -> AbstractAsyncContextManager[Any]:
        """A streamable HTTP connection whose requests carry the participant's bearer token."""
        return self._streams(self._headers(participant))

    @asynccontextmanager
    async def _streams(self, headers: dict[str, str]) -> AsyncIterator[Any]:
        # The harness bounds every call itself; the HTTP client must not cut a long one short.
        async with (
            httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=None)) as http,
            streamable_http_client(self.url, http_client=http) as streams,
        ):
            yield streams

    def _headers(self, participant: object) -> dict[str, str]:
        token = self._tokens(participant if isinstance(participant, str) else SYSTEM)
        return {} if token is None else {"Authorization": f"Bearer {token}"}

    def unencodable(self, call: ToolCall, timeout: float, error: ValueError) -> Json:  # noqa: ARG002 - the SDK's complaint
        """Send the call as raw JSON-RPC in a session of its own: the SDK cannot encode it, JSON can."""
        headers = {**self._headers(call.participant), "Accept": _ACCEPT, "Content-Type": "application/json"}
        with httpx2.Client(headers=headers, timeout=timeout) as http:
            try:
                return _raw_call(http, self.url, call)
            except httpx2.TimeoutException as failure:
                raise ImplementationTimeout(f"no answer within {timeout:g} s", detail=self.stderr_tail()) from failure
            except httpx2.HTTPError as failure:
                raise ImplementationCrashed(f"{self.url}: {failure}", detail=self.stderr_tail()) from failure


def _raw_call(http: httpx2.Client, url: str, call: ToolCall) -> Json:
    """Initialize a session, call the tool, and end the session."""
    hello = {"protocolVersion": _PROTOCOL_VERSION, "capabilities": {}, "clientInfo": {"name": "ctxconform", "version": "0"}}
    opened = http.post(url, content=_json({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}))
    _message(opened)
    session = {"Mcp-Session-Id": opened.headers.get("Mcp-Session-Id", ""), "Mcp-Protocol-Version": _PROTOCOL_VERSION}
    http.post(url, content=_json({"jsonrpc": "2.0", "method": "notifications/initialized"}), headers=session)
    params: Json = {"name": call.tool, "arguments": call.arguments, **({"_meta": call.meta} if call.meta else {})}
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    answer = _message(http.post(url, content=_json(request), headers=session))
    http.delete(url, headers=session)
    error = answer.get("error")
    if isinstance(error, dict):
        code = error.get("code")
        return json_rpc_refusal(code if isinstance(code, int) else 0, str(error.get("message")))
    try:
        return translate(CallToolResult.model_validate(answer.get("result")))
    except ValueError as invalid:
        raise ProtocolViolation(f"not a tool result: {str(answer.get('result'))[:200]}") from invalid


def _json(message: Json) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode()


def _message(response: httpx2.Response) -> Json:
    """The JSON-RPC message of a response: its JSON body, or the last event of its event stream."""
    body = response.text
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        events = [line.removeprefix("data:") for line in body.splitlines() if line.startswith("data:")]
        body = events[-1] if events else ""
    try:
        message = json.loads(body)
    except ValueError as error:
        raise ProtocolViolation(f"HTTP {response.status_code} without a JSON-RPC message: {body[:200]!r}") from error
    if not isinstance(message, dict):
        raise ProtocolViolation(f"HTTP {response.status_code}: not a JSON-RPC message: {body[:200]!r}")
    return message


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
