"""The mcp+stdio transport: an MCP server, started as a child process, whose tools are the spec operations.

The official MCP SDK is asynchronous; an anyio blocking portal runs it on a background thread, and one host
task holds the client open so that entering and leaving its task groups happen in the same task. Protocol
messages are translated: `start` starts the server (the start options reach it as CTXCONFORM_* environment
variables and as `{placeholders}` in the command) and lists its tools, `call` calls the tool named by the op,
`stop` closes the client, which ends the server's process group.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import tempfile
import threading
from typing import Any, Final

import anyio
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client, MCPError, StdioServerParameters, stdio_client
from mcp.types import CallToolResult

from ctxconform.conformance.exceptions import (
    ImplementationCrashed,
    ImplementationErrored,
    ImplementationTimeout,
    ImplementationUnavailable,
    ProtocolViolation,
)

__all__ = ["TOOL_SPECS", "McpStdioTransport"]

Json = dict[str, Any]
# Which spec a tool belongs to, and the spec version assumed (an MCP server does not declare one).
TOOL_SPECS: Final = {"read_context": ("read-context", "ADR-059")}
_CONNECTION_CLOSED: Final = -32000


class McpStdioTransport:
    """Speaks the adapter protocol to the harness and MCP to a child server."""

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self._portal_cm: Any = None
        self._portal: BlockingPortal | None = None
        self._client: Client | None = None
        self._stop: anyio.Event | None = None
        self._host: cf.Future[None] | None = None
        self._errlog = tempfile.TemporaryFile("w+")  # noqa: SIM115 - lives as long as the transport
        self._lock = threading.Lock()

    def open(self) -> None:
        """Nothing to do until `start` says where the state is."""

    def exchange(self, message: Json, timeout: float) -> object:
        """Translate one protocol message into MCP and the answer back."""
        if message["type"] == "start":
            return self._start(message, timeout)
        if message["type"] == "stop":
            self.close(timeout)
            return {"type": "stopped"}
        return {"type": "reply", "seq": message["seq"], **self._call(message["op"], message["args"], timeout)}

    def close(self, timeout: float) -> None:
        """Close the client (the SDK ends the server) and the event-loop thread."""
        with self._lock:
            portal, self._portal = self._portal, None
        if portal is None:
            return
        try:
            if self._stop is not None:
                portal.call(self._stop.set)
            if self._host is not None:
                self._host.result(timeout=max(timeout, 5.0))
        except BaseException:  # noqa: S110 - a dead server's teardown may complain; the process is gone either way
            pass
        finally:
            self._portal_cm.__exit__(None, None, None)

    def stderr_tail(self) -> str:
        """The last part of what the server wrote on stderr."""
        self._errlog.seek(0)
        return self._errlog.read()[-4000:]

    def _start(self, message: Json, timeout: float) -> Json:
        env = _environment(message)
        command = [part.format(**{k.removeprefix("CTXCONFORM_").lower(): v for k, v in env.items()}) for part in self.command]
        params = StdioServerParameters(command=command[0], args=command[1:], env={**os.environ, **env})
        self._portal_cm = start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        self._stop = self._portal.call(anyio.Event)
        ready: cf.Future[Client] = cf.Future()
        self._host = self._portal.start_task_soon(self._run_host, params, ready)
        try:
            self._client = ready.result(timeout=max(timeout, 30.0))
            tools = [tool.name for tool in self._portal.call(self._list_tools, timeout)]
        except BaseException as error:
            self.close(1.0)
            raise ImplementationUnavailable(
                " ".join(self.command), f"the MCP server did not start: {_reason(error)} {self.stderr_tail()[-500:]}"
            ) from error
        specs = {TOOL_SPECS[t][0]: {"version": TOOL_SPECS[t][1], "features": []} for t in tools if t in TOOL_SPECS}
        if not specs:
            raise ImplementationUnavailable(
                " ".join(self.command), f"the MCP server has none of the tools {sorted(TOOL_SPECS)}; it has {tools}"
            )
        info = self._client.server_info
        name, version = (info.name, info.version or "unknown") if info is not None else (" ".join(self.command), "unknown")
        return {"type": "started", "implementation": {"name": name, "version": version, "language": "mcp"}, "specs": specs}

    async def _run_host(self, params: StdioServerParameters, ready: cf.Future[Client]) -> None:
        try:
            async with Client(stdio_client(params, errlog=self._errlog), mode="legacy") as client:
                ready.set_result(client)
                assert self._stop is not None
                await self._stop.wait()
        except BaseException as error:
            if not ready.done():
                ready.set_exception(error)
            raise

    async def _list_tools(self, seconds: float) -> list[Any]:
        assert self._client is not None
        with anyio.fail_after(seconds):
            return list((await self._client.list_tools()).tools)

    def _call(self, op: str, args: object, timeout: float) -> Json:
        portal, client = self._portal, self._client
        if portal is None or client is None:
            raise ImplementationCrashed("the MCP client is closed")

        async def call() -> CallToolResult:
            with anyio.fail_after(timeout):
                return await client.call_tool(op, args if isinstance(args, dict) else {"arguments": args})

        try:
            result = portal.call(call)
        except TimeoutError as error:
            raise ImplementationTimeout(f"no answer within {timeout:g} s", detail=self.stderr_tail()) from error
        except MCPError as error:
            if error.code == _CONNECTION_CLOSED:
                raise ImplementationCrashed(
                    f"the MCP server closed the connection: {error}", detail=self.stderr_tail()
                ) from error
            raise ProtocolViolation(f"MCP error {error.code}: {error}") from error
        return _translate(result)


def _translate(result: CallToolResult) -> Json:
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


def _environment(message: Json) -> dict[str, str]:
    env = {"CTXCONFORM_STATE_DIR": str(message["state_dir"])}
    for options in (message.get("options") or {}).values():
        env.update({f"CTXCONFORM_{key.upper()}": str(value) for key, value in options.items()})
    return env


def _reason(error: BaseException) -> str:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return f"{type(error).__name__}: {error}"
