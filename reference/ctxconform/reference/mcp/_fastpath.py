"""The reference's stdio calls answered as the MCP SDK's server answers them, without its per-call machinery.

Over stdio each call goes through the SDK's dispatcher, a task, request state, middleware, the tool manager's
argument model and output validation: about four fifths of a call's server time, for tools whose arguments the
reference reads raw and whose results are plain JSON. `FastPath` takes a line only when the SDK's answer to it is
known exactly: a well-formed ``tools/call`` of one of the spec tools (not ``read_context``, whose argument is
typed), with nothing in its params but ``name``, ``arguments`` (an object) and the ``ctxconform/session_id``
``_meta``, on a session whose handshake has completed with a protocol version whose tool result is content,
``isError`` and ``structuredContent``. Every other line, and every line before the handshake ends, goes to the
SDK. A kit test sends the same calls both ways and compares the answers. `ToolCall` is what a call is carried out
and answered as, over stdio here and over HTTP in `_http_fastpath`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import pydantic_core
from mcp.types import CallToolResult, TextContent
from mcp_types import JSONRPCRequest, jsonrpc_message_adapter
from mcp_types.methods import serialize_server_result
from pydantic import ValidationError

from ctxconform.reference.mcp._server import SESSION_META, ServerState, handler_tool_of, run_envelope

__all__ = ["VERSIONS", "FastPath", "ToolCall"]

Json = dict[str, Any]
log = logging.getLogger("mcp.server.mcpserver.server")  # the SDK's logger: a crash is logged where it logs one

VERSIONS: Final = frozenset({"2025-06-18", "2025-11-25"})
"""Protocol versions whose tool result the SDK writes as content, isError and structuredContent, nothing else."""
_PARAMS: Final = frozenset({"name", "arguments", "_meta"})
_SHARED: Final = frozenset({"shared_context", "create_session", "archive_session", "delete_session"})


class FastPath:
    """Answers the tools/call lines of one stdio session that it can answer exactly as the SDK would."""

    def __init__(self, state: ServerState) -> None:
        self.state = state
        self.version: str | None = None  # the protocol version the handshake agreed, once the SDK has answered it
        self._initialize: object = None  # the id of the initialize request, until its answer is seen
        self._active = False

    def take(self, line: str) -> bytes | None:
        """The answer line to `line` when this path answers it; None hands the line to the SDK."""
        try:
            message = jsonrpc_message_adapter.validate_json(line)
        except ValidationError:
            return None
        if not isinstance(message, JSONRPCRequest):
            if getattr(message, "method", None) == "notifications/initialized":
                self._active = self.version in VERSIONS
            return None
        if message.method == "initialize":
            self._initialize, self._active = message.id, False
            return None
        if not self._active or message.method != "tools/call":
            return None
        result = self._call(message.params or {}, self.version or "")
        if result is None:
            return None
        return pydantic_core.to_json({"jsonrpc": "2.0", "id": message.id, "result": result}) + b"\n"

    def sent(self, text: str) -> None:
        """Note a line the SDK wrote: the answer to initialize says which protocol version the session speaks."""
        if self._initialize is None:
            return
        try:
            answer = pydantic_core.from_json(text)
        except ValueError:
            return
        if isinstance(answer, dict) and answer.get("id") == self._initialize and "id" in answer:
            self._initialize = None
            result = answer.get("result")
            self.version = result.get("protocolVersion") if isinstance(result, dict) else None

    def _call(self, params: Json, version: str) -> Json | None:
        """The result of a tools/call this path can make, or None."""
        call = ToolCall.of(self.state, params, None)
        return None if call is None else call.result(call.run(), version)


@dataclass(frozen=True)
class ToolCall:
    """One tools/call of a spec tool, taken only when the SDK's answer to it is known exactly (stdio and HTTP alike)."""

    name: str
    operation: Callable[[], Json]

    @classmethod
    def of(cls, state: ServerState, params: Json, caller: str | None) -> ToolCall | None:
        """The call `params` ask for, as `caller` (the HTTP request's participant; None over stdio), or None."""
        name, arguments, meta = params.get("name"), params.get("arguments", {}), params.get("_meta")
        if not _PARAMS.issuperset(params) or not isinstance(name, str) or not isinstance(arguments, dict):
            return None
        if meta is not None and (not isinstance(meta, dict) or set(meta) - {SESSION_META}):
            return None
        arguments = dict(arguments)
        shared, handled = state.shared, state.handled
        if name in _SHARED:
            session = meta if name == "shared_context" else None
            return None if shared is None else cls(name, lambda: shared.call(name, arguments, session, caller))
        factory = handler_tool_of(name) if handled is not None else None
        return None if factory is None or handled is None else cls(name, lambda: handled.call(factory, name, arguments))

    def run(self) -> Json | CallToolResult:
        """Carry the call out as the SDK's tool would: its envelope, or a failed result (a bug's as the SDK words it)."""
        try:
            return run_envelope(self.operation)
        except Exception:  # a bug of the reference's: the SDK's words for it, and its log line
            log.exception("Tool %r raised an unexpected exception", self.name)
            return CallToolResult(content=[TextContent(type="text", text=f"Error executing tool {self.name}")], is_error=True)

    def result(self, outcome: Json | CallToolResult, version: str) -> Json:
        """The tools/call result the SDK sends for `outcome` on a session speaking `version`."""
        if not isinstance(outcome, CallToolResult):  # a JSON envelope: the SDK's text rendering beside it
            text = pydantic_core.to_json(outcome, fallback=str, indent=2).decode()
            outcome = CallToolResult(content=[TextContent(type="text", text=text)], structured_content=outcome)
        # As the SDK shapes every result: dumped, then sieved to what the session's protocol version has.
        return serialize_server_result("tools/call", version, outcome.model_dump(by_alias=True, mode="json", exclude_none=True))
