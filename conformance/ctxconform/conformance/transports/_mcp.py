"""The MCP transports' common part, and mcp+stdio: an MCP server, started as a child process, whose tools are the spec operations.

The official MCP SDK is asynchronous; it runs on an event loop of the transport's own, which the calling thread runs
for the length of each call (no thread hand-off), and one host task per connection holds its client open so that
entering and leaving its task groups happen in the same task. Between calls the loop stands still: a server's messages
wait in its pipe or socket until the next call runs it.
Protocol messages are translated: `start` opens the first connection and lists its tools, `call` calls the tool
named by the op, `stop` closes every connection.

Identity comes from the connection, never from the request: shared-context calls go over a connection of the
calling participant, one per participant, at most `MAX_PARTICIPANTS` open (the least recently used is closed);
the session travels in the request's `_meta`. Over stdio each connection is a server started for its participant
(CTXCONFORM_PARTICIPANT; the start options reach it as CTXCONFORM_* variables and `{placeholders}` in the
command), all on the same state directory, and closing a connection ends its server's process group.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Coroutine
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import anyio
from mcp import Client, MCPError, StdioServerParameters, stdio_client
from mcp.types import CallToolResult

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
from ctxconform.conformance.transports._transport import Translator, command_for, start_environment

__all__ = [
    "MAX_PARTICIPANTS",
    "SDK_CANNOT_ENCODE",
    "SESSION_META",
    "McpStdioTransport",
    "McpTransport",
    "ToolCall",
    "json_rpc_refusal",
    "tool_specs",
    "translate",
]

Json = dict[str, Any]
_T = TypeVar("_T")
SESSION_META: Final = "ctxconform/session_id"
MAX_PARTICIPANTS: Final = 8
SDK_CANNOT_ENCODE: Final = "the MCP client SDK cannot encode this request"
_CONNECTION_CLOSED: Final = -32000


@dataclass(frozen=True)
class _Connection:
    """One running server: its client, the event that ends its host task, and that task."""

    client: Client
    stop: asyncio.Event
    host: asyncio.Task[None]


class McpTransport(Translator):
    """Speaks the adapter protocol to the harness and MCP to an implementation: one connection, plus one per participant."""

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self._loop: asyncio.AbstractEventLoop | None = None
        self._running = threading.Lock()  # one thread at a time runs the loop
        self._env: dict[str, str] = {}
        self._first: _Connection | None = None
        self._participants: OrderedDict[str, _Connection] = OrderedDict()
        self._lock = threading.Lock()

    def client_transport(self, participant: str | None) -> AbstractAsyncContextManager[Any]:
        """The SDK transport of a new connection as `participant` (None: the first connection)."""
        raise NotImplementedError

    def stderr_tail(self) -> str:
        """What the implementation wrote that may explain a failure."""
        return ""

    def check_participant(self, participant: str) -> None:
        """Raise Uncarriable when this transport cannot name `participant` to a server; every name by default."""

    def describe(self) -> str:
        """How to name the implementation in a message."""
        return " ".join(self.command)

    def open(self) -> None:
        """Nothing to do until `start` says where the state is."""

    def close(self, timeout: float) -> None:
        """Close every client (the SDK ends each server), then the event loop."""
        with self._lock:
            connections = [*self._participants.values(), *([self._first] if self._first else [])]
            self._participants.clear()
            self._first = None
        if self._loop is None:
            return
        try:
            for connection in connections:
                connection.stop.set()
            self._finish([connection.host for connection in connections], timeout)
        finally:
            with self._running:
                loop, self._loop = self._loop, None
                if loop is not None:
                    _close_loop(loop)

    def _run(self, awaitable: Coroutine[Any, Any, _T]) -> _T:
        """Run the event loop on this thread until `awaitable` is done, and return its result."""
        with self._running:
            if self._loop is None:
                awaitable.close()
                raise ImplementationCrashed("the MCP client is closed")
            return self._loop.run_until_complete(awaitable)

    def _finish(self, hosts: list[asyncio.Task[None]], timeout: float) -> None:
        """Wait for host tasks to end (their clients closed, their servers gone); a dead server's complaint is dropped."""
        if hosts:
            with contextlib.suppress(BaseException):
                self._run(_settle(hosts, max(timeout, 5.0)))

    def _start(self, message: Json, timeout: float) -> Json:
        self._env = start_environment(message)
        self._loop = asyncio.new_event_loop()
        try:
            self._first = self._connect(None, timeout)
            tools = self._run(self._list_tools(self._first.client, timeout))
        except BaseException as error:
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
        info = self._first.client.server_info
        name, version = (info.name, info.version or "unknown") if info is not None else (self.describe(), "unknown")
        return {"type": "started", "implementation": {"name": name, "version": version, "language": "mcp"}, "specs": specs}

    def _connect(self, participant: str | None, timeout: float) -> _Connection:
        """Open one connection (as `participant`, when given) and wait until its client is ready."""
        return self._run(self._open(participant, max(timeout, START_TIMEOUT)))

    async def _open(self, participant: str | None, seconds: float) -> _Connection:
        stop = asyncio.Event()
        ready: asyncio.Future[Client] = asyncio.get_running_loop().create_future()
        host = asyncio.create_task(self._run_host(participant, ready, stop))
        try:
            return _Connection(await asyncio.wait_for(asyncio.shield(ready), seconds), stop, host)
        except BaseException:
            stop.set()
            host.cancel()
            raise

    async def _run_host(self, participant: str | None, ready: asyncio.Future[Client], stop: asyncio.Event) -> None:
        try:
            async with Client(self.client_transport(participant), mode="legacy") as client:
                ready.set_result(client)
                await stop.wait()
        except BaseException as error:
            if not ready.done():
                ready.set_exception(error)
            raise

    @staticmethod
    async def _list_tools(client: Client, seconds: float) -> list[Any]:
        with anyio.fail_after(seconds):
            return list((await client.list_tools()).tools)

    def _connection(self, spec: str, context: Json, timeout: float) -> _Connection:
        """The first server, or for a participant's call the server started as that participant."""
        participant = context.get("participant")
        if not _has_participants(spec) or not isinstance(participant, str) or self._first is None:
            if self._first is None:
                raise ImplementationCrashed("the MCP client is closed")
            return self._first
        connection = self._participants.get(participant)
        if connection is not None:
            self._participants.move_to_end(participant)
            return connection
        self.check_participant(participant)
        try:
            connection = self._connect(participant, timeout)
        except BaseException as error:
            raise ImplementationCrashed(
                f"the MCP connection of participant {participant!r} did not open: {_reason(error)}", detail=self.stderr_tail()
            ) from error
        self._participants[participant] = connection
        if len(self._participants) > MAX_PARTICIPANTS:
            self._retire(self._participants.popitem(last=False)[1], timeout)
        return connection

    def _retire(self, connection: _Connection, timeout: float) -> None:
        connection.stop.set()
        self._finish([connection.host], timeout)

    def _call(self, message: Json, timeout: float) -> Json:
        spec, op, args, context = message["spec"], message["op"], message["args"], message.get("context") or {}
        if _holds_lone_surrogate(message):
            # JSON can escape one, but the SDK's server drops such a message without an answer: not the implementation's.
            raise Uncarriable("MCP", "a lone surrogate: the MCP SDK's server drops a message holding one unanswered")
        client = self._connection(spec, context, timeout).client
        session = context.get("session_id")
        meta = {SESSION_META: session} if _has_participants(spec) and isinstance(session, str) else None
        arguments = args if isinstance(args, dict) else {"arguments": args}

        async def call() -> CallToolResult:
            with anyio.fail_after(timeout):
                return await client.call_tool(op, arguments, meta=meta)  # type: ignore[arg-type]

        try:
            result = self._run(call())
        except ValueError as error:
            # The SDK's pydantic serializer refuses very deep nesting before anything is sent.
            return self.unencodable(ToolCall(op, arguments, meta, context.get("participant")), timeout, error)
        except TimeoutError as error:
            raise ImplementationTimeout(f"no answer within {timeout:g} s", detail=self.stderr_tail()) from error
        except MCPError as error:
            if error.code == _CONNECTION_CLOSED:
                raise ImplementationCrashed(
                    f"the MCP server closed the connection: {error}", detail=self.stderr_tail()
                ) from error
            return json_rpc_refusal(error.code, str(error))
        return translate(result)

    def unencodable(self, call: ToolCall, timeout: float, error: ValueError) -> Json:  # noqa: ARG002 - for subclasses
        """The reply to a call the SDK cannot encode: a limit of this transport, so the test is skipped with that reason."""
        raise Uncarriable("MCP stdio", f"{SDK_CANNOT_ENCODE} ({str(error)[:200]})") from error


def _holds_lone_surrogate(value: object) -> bool:
    """Whether any string in a JSON value (keys included) holds a lone surrogate, without recursion."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def json_rpc_refusal(code: int, message: str) -> Json:
    """The reply to a JSON-RPC error: a request the server could not parse or found invalid is INVALID_REQUEST."""
    # MCP refuses a malformed call before any tool runs, with these codes: the transport's way of saying
    # INVALID_REQUEST. Any other JSON-RPC error is not an answer the adapter protocol knows.
    if code in _REFUSALS:
        return {"error": {"code": "INVALID_REQUEST", "message": f"JSON-RPC error {code}: {message}"[:500]}}
    raise ProtocolViolation(f"MCP error {code}: {message}")


_REFUSALS: Final = frozenset({-32700, -32600, -32602})  # parse error, invalid request, invalid params


@dataclass(frozen=True)
class ToolCall:
    """One tool call as the transport sends it."""

    tool: str
    arguments: Json
    meta: Json | None
    participant: object


class McpStdioTransport(McpTransport):
    """MCP to child servers over stdio: one started first, plus one started as each participant."""

    def __init__(self, command: list[str]) -> None:
        super().__init__(command)
        self._errlog = tempfile.TemporaryFile("w+")  # noqa: SIM115 - lives as long as the transport

    def check_participant(self, participant: str) -> None:
        """A participant reaches its server in an environment variable, which cannot hold a NUL."""
        if "\x00" in participant:
            raise Uncarriable("MCP stdio", "a participant name holding a NUL: the environment variable naming it cannot")

    def client_transport(self, participant: str | None) -> AbstractAsyncContextManager[Any]:
        """Start a server (as `participant`, when given) on the state directory, with its stdio as the transport."""
        env = {**self._env, **({"CTXCONFORM_PARTICIPANT": participant} if participant is not None else {})}
        command = command_for(self.command, env, participant="")
        inherited = {key: value for key, value in os.environ.items() if key != "CTXCONFORM_PARTICIPANT"}
        params = StdioServerParameters(command=command[0], args=command[1:], env={**inherited, **env})
        return stdio_client(params, errlog=self._errlog)

    def stderr_tail(self) -> str:
        """The last part of what the servers wrote on stderr."""
        self._errlog.seek(0)
        return self._errlog.read()[-4000:]


async def _settle(hosts: list[asyncio.Task[None]], seconds: float) -> None:
    """Wait up to `seconds` for host tasks to end, then cancel the rest and let them unwind."""
    _, pending = await asyncio.wait(hosts, timeout=seconds)
    for host in pending:
        host.cancel()
    if pending:
        await asyncio.wait(pending, timeout=1.0)
    for host in hosts:  # a dead server's teardown may complain; the process is gone either way
        if host.done() and not host.cancelled():
            host.exception()


def _close_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what is left on the loop, let it unwind briefly, and close it."""
    leftover = asyncio.all_tasks(loop)
    for task in leftover:
        task.cancel()
    with contextlib.suppress(BaseException):
        if leftover:
            loop.run_until_complete(asyncio.wait(leftover, timeout=1.0))
        loop.run_until_complete(loop.shutdown_asyncgens())
    loop.close()


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
