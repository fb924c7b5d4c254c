"""The MCP transports' common part, and mcp+stdio: an MCP server, started as a child process, whose tools are the spec operations.

The harness speaks MCP with a synchronous client of its own (`_mcp_client`) on the calling thread: a call is one
message out and the messages back, with no event loop or thread hand-off. Protocol messages are translated: `start`
opens the first connection (the initialize handshake) and lists its tools, `call` calls the tool named by the op,
`stop` closes every connection.

Identity comes from the connection, never from the request: shared-context calls go over a connection of the
calling participant, one per participant, at most `MAX_PARTICIPANTS` open (the least recently used is closed);
the session travels in the request's `_meta`. Over stdio each connection is a server started for its participant
(CTXCONFORM_PARTICIPANT; the start options reach it as CTXCONFORM_* variables and `{placeholders}` in the
command), all on the same state directory; closing a connection closes the server's stdin, and ends its process
group if the server has not exited within the timeout.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Generator
from typing import Any, Final

from mcp.types import CallToolResult
from mcp_types import jsonrpc_message_adapter

from ctxconform.conformance.exceptions import (
    ImplementationCrashed,
    ImplementationErrored,
    ImplementationTimeout,
    ImplementationUnavailable,
    ProtocolViolation,
    Uncarriable,
)
from ctxconform.conformance.judge._specs import Spec, specs
from ctxconform.conformance.transports._implementation import START_TIMEOUT
from ctxconform.conformance.transports._mcp_client import Channel, ChannelClosed, McpClient, RpcError, encode
from ctxconform.conformance.transports._stdio import StdioTransport
from ctxconform.conformance.transports._transport import Translator, command_for, start_environment

__all__ = [
    "MAX_PARTICIPANTS",
    "SDK_CANNOT_PARSE",
    "SESSION_META",
    "McpStdioTransport",
    "McpTransport",
    "StdioChannel",
    "json_rpc_refusal",
    "tool_specs",
    "translate",
]

Json = dict[str, Any]
SESSION_META: Final = "ctxconform/session_id"
MAX_PARTICIPANTS: Final = 8
SDK_CANNOT_PARSE: Final = "the MCP SDK cannot parse a request nested this deep, and its server drops it unanswered"
_SHALLOW: Final = 100  # a message nested no deeper than this is one every MCP SDK carries


class McpTransport(Translator):
    """Speaks the adapter protocol to the harness and MCP to an implementation: one connection, plus one per participant."""

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self._env: dict[str, str] = {}
        self._first: McpClient | None = None
        self._participants: OrderedDict[str, McpClient] = OrderedDict()
        self._closing: list[threading.Thread] = []  # connections being closed while the calls go on
        self._lock = threading.Lock()  # one exchange at a time: each connection is one conversation

    def channel(self, participant: str | None) -> Channel:
        """The channel of a new connection as `participant` (None: the first connection)."""
        raise NotImplementedError

    def stderr_tail(self) -> str:
        """What the implementation wrote that may explain a failure."""
        return ""

    def check_participant(self, participant: str) -> None:
        """Raise Uncarriable when this transport cannot name `participant` to a server; every name by default."""

    def check_nesting(self, tool: str, arguments: Json, meta: Json | None) -> None:
        """Raise Uncarriable when this transport cannot carry a call nested this deep; any depth by default."""

    def describe(self) -> str:
        """How to name the implementation in a message."""
        return " ".join(self.command)

    def open(self) -> None:
        """Nothing to do until `start` says where the state is."""

    def close(self, timeout: float) -> None:
        """Close every connection (over stdio that ends each server), all at once, and wait until each is closed."""
        with self._lock:
            clients = [*self._participants.values(), *([self._first] if self._first else [])]
            self._participants.clear()
            self._first = None
            for client in clients:
                self._close_aside(client, timeout)
            closing, self._closing = self._closing, []
        for closer in closing:
            closer.join()  # each close is bounded: a server that lingers is terminated, then killed

    def _close_aside(self, client: McpClient, timeout: float) -> None:
        """Close a connection on a thread of its own: a server's exit takes milliseconds the calls need not wait for."""
        closer = threading.Thread(target=client.close, args=(timeout,), name="ctxconform-mcp-close", daemon=True)
        closer.start()
        self._closing = [thread for thread in self._closing if thread.is_alive()]
        self._closing.append(closer)

    def _start(self, message: Json, timeout: float) -> Json:
        self._env = start_environment(message)
        seconds = max(timeout, START_TIMEOUT)
        try:
            with self._lock:
                self._first = first = self._connect(None, seconds)
            tools = first.list_tools(time.monotonic() + seconds)
        except Exception as error:
            self.close(1.0)
            raise ImplementationUnavailable(
                self.describe(), f"the MCP server did not start: {_reason(error)} {self.stderr_tail()[-500:]}"
            ) from error
        specs = _declared_specs(tools)
        if not specs:
            names = sorted(tool.name for tool in tools)
            raise ImplementationUnavailable(
                self.describe(), f"the MCP server has none of the tools {sorted(tool_specs())}; it has {names}"
            )
        info = first.server_info
        name, version = (info.name, info.version or "unknown") if info is not None else (self.describe(), "unknown")
        return {"type": "started", "implementation": {"name": name, "version": version, "language": "mcp"}, "specs": specs}

    def _connect(self, participant: str | None, timeout: float) -> McpClient:
        """Open one connection (as `participant`, when given) and complete its handshake."""
        seconds = max(timeout, START_TIMEOUT)
        client = McpClient(self.channel(participant))
        try:
            client.initialize(time.monotonic() + seconds)
        except BaseException:
            client.close(1.0)
            raise
        return client

    def _connection(self, spec: str, context: Json, timeout: float) -> McpClient:
        """The first connection, or for a participant's call the connection opened as that participant."""
        participant = context.get("participant")
        if self._first is None:
            raise ImplementationCrashed("the MCP client is closed")
        if not _has_participants(spec) or not isinstance(participant, str):
            return self._first
        client = self._participants.get(participant)
        if client is not None:
            self._participants.move_to_end(participant)
            return client
        self.check_participant(participant)
        try:
            client = self._connect(participant, timeout)
        except Exception as error:
            raise ImplementationCrashed(
                f"the MCP connection of participant {participant!r} did not open: {_reason(error)}", detail=self.stderr_tail()
            ) from error
        self._participants[participant] = client
        if len(self._participants) > MAX_PARTICIPANTS:
            self._close_aside(self._participants.popitem(last=False)[1], timeout)
        return client

    def _call(self, message: Json, timeout: float) -> Json:
        spec, op, args, context = message["spec"], message["op"], message["args"], message.get("context") or {}
        lone_surrogate, depth = _scan(message)
        if lone_surrogate:
            # JSON can escape one, but the SDK's server drops such a message without an answer: not the implementation's.
            raise Uncarriable("MCP", "a lone surrogate: the MCP SDK's server drops a message holding one unanswered")
        session = context.get("session_id")
        meta = {SESSION_META: session} if _has_participants(spec) and isinstance(session, str) else None
        arguments = args if isinstance(args, dict) else {"arguments": args}
        if depth > _SHALLOW:
            self.check_nesting(op, arguments, meta)
        with self._lock:
            client = self._connection(spec, context, timeout)
            try:
                result = client.call_tool(op, arguments, meta, time.monotonic() + timeout)
            except TimeoutError as error:
                raise ImplementationTimeout(f"no answer within {timeout:g} s", detail=self.stderr_tail()) from error
            except ChannelClosed as error:
                raise ImplementationCrashed(
                    f"the MCP server closed the connection: {error}", detail=self.stderr_tail()
                ) from error
            except RpcError as error:
                return json_rpc_refusal(error.code, str(error))
        return translate(result)


def _scan(value: object) -> tuple[bool, int]:
    """Whether any string in a JSON value (keys included) holds a lone surrogate, and how deep it nests; no recursion."""
    pending = [(value, 0)]
    deepest = 0
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    return True, deepest
        elif isinstance(item, dict):
            deepest = max(deepest, depth + 1)
            pending.extend((key, depth) for key in item)
            pending.extend((inner, depth + 1) for inner in item.values())
        elif isinstance(item, list):
            deepest = max(deepest, depth + 1)
            pending.extend((inner, depth + 1) for inner in item)
    return False, deepest


def json_rpc_refusal(code: int, message: str) -> Json:
    """The reply to a JSON-RPC error: a request the server could not parse or found invalid is INVALID_REQUEST."""
    # MCP refuses a malformed call before any tool runs, with these codes: the transport's way of saying
    # INVALID_REQUEST. Any other JSON-RPC error is not an answer the adapter protocol knows.
    if code in _REFUSALS:
        return {"error": {"code": "INVALID_REQUEST", "message": f"JSON-RPC error {code}: {message}"[:500]}}
    raise ProtocolViolation(f"MCP error {code}: {message}")


_REFUSALS: Final = frozenset({-32700, -32600, -32602})  # parse error, invalid request, invalid params


class McpStdioTransport(McpTransport):
    """MCP to child servers over stdio: one started first, plus one started as each participant."""

    def __init__(self, command: list[str]) -> None:
        super().__init__(command)
        self._errlog = tempfile.TemporaryFile("w+")  # noqa: SIM115 - lives as long as the transport

    def check_participant(self, participant: str) -> None:
        """A participant reaches its server in an environment variable, which cannot hold a NUL."""
        if "\x00" in participant:
            raise Uncarriable("MCP stdio", "a participant name holding a NUL: the environment variable naming it cannot")

    def check_nesting(self, tool: str, arguments: Json, meta: Json | None) -> None:
        """A call nested deeper than the MCP SDK can parse is not carried: its server drops such a line unanswered."""
        params = {"name": tool, "arguments": arguments, **({"_meta": meta} if meta else {})}
        request = {"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": params}
        try:
            # The SDK's JSON parser gives up shallower (~200) than its serializer (~250): what it parses, it encodes.
            jsonrpc_message_adapter.validate_json(encode(request))
        except ValueError as error:
            raise Uncarriable("MCP stdio", f"{SDK_CANNOT_PARSE} ({str(error)[:200]})") from error

    def channel(self, participant: str | None) -> Channel:
        """Start a server (as `participant`, when given) on the state directory; its stdin and stdout carry the messages."""
        env = {**self._env, **({"CTXCONFORM_PARTICIPANT": participant} if participant is not None else {})}
        command = command_for(self.command, env, participant="")
        inherited = {key: value for key, value in os.environ.items() if key != "CTXCONFORM_PARTICIPANT"}
        # Not under the reaper, which would end everything the server started when it exits: a server may leave a
        # helper running for the servers after it (the reference's fork server does).
        server = StdioTransport(command, env={**inherited, **env}, supervised=False, errlog=self._errlog)
        server.open()
        return StdioChannel(server)

    def stderr_tail(self) -> str:
        """The last part of what the servers wrote on stderr."""
        self._errlog.seek(0)
        return self._errlog.read()[-4000:]


class StdioChannel:
    """JSON-RPC messages as lines on a server's stdin and stdout: MCP's stdio transport."""

    def __init__(self, server: StdioTransport) -> None:
        self.server = server

    def request(self, message: Json, deadline: float) -> Generator[object, None, None]:
        """Write the request, then yield each line the server writes, until the caller stops."""
        self.notify(message, deadline)
        while True:
            try:
                yield self.server.receive(max(0.0, deadline - time.monotonic()))
            except ImplementationTimeout as late:
                raise TimeoutError(str(late)) from late
            except ImplementationCrashed as gone:
                raise ChannelClosed(str(gone)) from gone

    def notify(self, message: Json, deadline: float) -> None:
        """Write one message; TimeoutError when the server does not read it in time, ChannelClosed when it no longer reads."""
        try:
            self.server.write(encode(message), max(0.0, deadline - time.monotonic()))
        except ImplementationTimeout as deaf:
            raise TimeoutError(str(deaf)) from deaf
        except ImplementationCrashed as gone:
            raise ChannelClosed(str(gone)) from gone

    def negotiated(self, version: str) -> None:
        """Nothing to do: stdio carries no version header."""

    def close(self, timeout: float) -> None:
        """Close the server's stdin, wait for it to exit, and end its process group if it lingers."""
        self.server.close(timeout)


def tool_specs() -> dict[str, Spec]:
    """Which spec each MCP tool carries, from the specs' own tool lists.

    A tool's `_meta` may declare the spec version ("ctxconform/version", else the version the suite checks) and the
    optional features ("ctxconform/features").
    """
    return {tool: spec for spec in specs().values() for tool in spec.mcp_tools}


def _has_participants(spec_id: str) -> bool:
    spec = specs().get(spec_id)
    return spec is not None and spec.mcp_participants


def _declared_specs(tools: list[Any]) -> dict[str, Json]:
    """Per spec, the version and features its tools declare (in `_meta`), or the assumed version and none."""
    specs: dict[str, Json] = {}
    carried = tool_specs()
    for tool in tools:
        if tool.name not in carried:
            continue
        spec = carried[tool.name]
        entry = specs.setdefault(spec.id, {"version": spec.version, "features": []})
        meta = tool.meta or {}
        if isinstance(meta.get("ctxconform/version"), str):
            entry["version"] = meta["ctxconform/version"]
        features = meta.get("ctxconform/features")
        if isinstance(features, list):
            entry["features"] = sorted({*entry["features"], *(f for f in features if isinstance(f, str))})
    return specs


def translate(result: CallToolResult) -> Json:
    """Turn a tool result into a reply body: the envelope's data or error, or the structured content itself."""
    content = result.structured_content
    if isinstance(content, dict) and {"success", "data", "error"} <= content.keys():
        if content["success"]:
            return {"result": content["data"]}
        error = content["error"] if isinstance(content["error"], dict) else {"code": "ERROR", "message": str(content["error"])}
        return {"error": {"code": str(error.get("code", "ERROR")), "message": str(error.get("message") or error.get("code"))}}
    text = " ".join(getattr(part, "text", "") for part in result.content)
    if result.is_error:
        if "validation error" in text or "Unknown tool" in text:
            return {"error": {"code": "INVALID_REQUEST" if "validation" in text else "UNKNOWN_OP", "message": text[:500]}}
        raise ImplementationErrored(f"the tool failed: {text[:500]}")
    if content is None:
        raise ProtocolViolation("the tool returned no structured content")
    return {"result": content}


def _reason(error: BaseException) -> str:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return f"{type(error).__name__}: {error}"
