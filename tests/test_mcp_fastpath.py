"""The reference's stdio fast path answers exactly as the MCP SDK's server does, and only the calls it can."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxconform.reference._handler import Opening
from ctxconform.reference.mcp._fastpath import FastPath
from ctxconform.reference.mcp._server import HandlerTools, ServerState, SharedContextConnection
from ctxconform.reference.read_context import ReadContext

Json = dict[str, Any]
SESSION = {"ctxconform/session_id": "s"}
# (tool, arguments, params beside name and arguments): what a client may send, the usual and the odd.
CALLS: list[tuple[str, object, Json]] = [
    ("create_session", {"session_id": "s"}, {}),
    ("create_session", {"session_id": "s"}, {}),
    ("shared_context", {"action": "write", "key": "k", "value": "v"}, {"_meta": SESSION}),
    ("shared_context", {"action": "write", "key": "k", "value": "v2 \u00e9\U0001f600 \u2028"}, {"_meta": SESSION}),
    ("shared_context", {"action": "write", "key": "bad key", "value": "v"}, {"_meta": SESSION}),
    ("shared_context", {"action": "read", "key": "k"}, {"_meta": SESSION}),
    ("shared_context", {"action": "read", "key": "missing"}, {"_meta": SESSION}),
    ("shared_context", {"action": "read_history", "key": "k", "versions": 1e300}, {"_meta": SESSION}),
    ("shared_context", {"action": "read_batch", "keys": ["k", "missing"]}, {"_meta": SESSION}),
    ("shared_context", {"action": "snapshot", "label": "one"}, {"_meta": SESSION}),
    ("shared_context", {"action": "list_keys", "bogus": [1, {"a": None}]}, {"_meta": SESSION}),
    ("shared_context", {}, {"_meta": SESSION}),
    ("shared_context", {"action": "list_keys"}, {}),
    ("shared_context", {"action": "list_keys"}, {"_meta": {"ctxconform/session_id": 5}}),
    ("archive_session", {"session_id": "s"}, {}),
    ("shared_context", {"action": "write", "key": "k", "value": "late"}, {"_meta": SESSION}),
    ("delete_session", {"session_id": "s"}, {}),
    ("delete_session", {"session_id": "s", "extra": True}, {}),
    ("assemble", {}, {}),
    ("hash_content", {"content": "abc"}, {}),
    ("create_provider", {"name": 7}, {}),
    # Lines the fast path leaves to the SDK: its answers come back as they always did.
    ("shared_context", None, {"_meta": SESSION}),
    ("shared_context", {"action": "list_keys"}, {"_meta": {**SESSION, "progressToken": 1}}),
    ("shared_context", {"action": "list_keys"}, {"_meta": SESSION, "task": {"ttl": 1000}}),
    ("shared_context", [1, 2], {}),
    ("no_such_tool", {}, {}),
    ("read_context", {"image_id": 5}, {}),
]
_MOMENT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)")


class LineClient:
    """A reference MCP server over stdio, spoken to one JSON-RPC line at a time."""

    def __init__(self, state: Path, *, fast: bool) -> None:
        state.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "CTXCONFORM_STATE_DIR": str(state), "CTXCONFORM_PARTICIPANT": "system"}
        env["CTXCONFORM_MCP_FASTPATH"] = "1" if fast else "0"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ctxconform.reference.mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=state,
        )

    def send(self, message: Json) -> None:
        """Write one message."""
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def receive(self) -> Json:
        """Read one message."""
        assert self.process.stdout is not None
        answer: Json = json.loads(self.process.stdout.readline())
        return answer

    def handshake(self, version: str) -> None:
        """Initialize on `version` and confirm."""
        self.send(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
            }
        )
        assert self.receive()["result"]["protocolVersion"] == version
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def close(self) -> None:
        """End the server."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=10)


def answers(client: LineClient) -> list[Json]:
    """Every call of CALLS sent in turn (ids alternating number and string), each answer with its moments blanked."""
    replies = []
    for n, (tool, arguments, extra) in enumerate(CALLS):
        client.send(
            {
                "jsonrpc": "2.0",
                "id": n if n % 2 else f"r{n}",
                "method": "tools/call",
                "params": {"name": tool, "arguments": arguments, **extra},
            }
        )
        replies.append(json.loads(_MOMENT.sub("<moment>", json.dumps(client.receive()))))
    return replies


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_the_fast_path_answers_every_call_as_the_sdk_does(tmp_path: Path, version: str) -> None:
    """The same calls, usual and odd, to a server with the fast path and one without get the same answers."""
    clients = {fast: LineClient(tmp_path / str(fast), fast=fast) for fast in (True, False)}
    try:
        for client in clients.values():
            client.handshake(version)
        fast, sdk = answers(clients[True]), answers(clients[False])
    finally:
        for client in clients.values():
            client.close()
    assert fast == sdk
    assert sum(answer["result"].get("isError") is False for answer in sdk if "result" in answer) >= 6


def fast_path() -> FastPath:
    """A fast path over a server state with shared-context and the handlers, in a fresh folder."""
    shared = SharedContextConnection("system")
    return FastPath(ServerState(ReadContext(Path(), Path()), shared, HandlerTools(Opening(Path(), {}, None))))


def line(message: Json) -> str:
    """A message as the line a client sends."""
    return json.dumps(message) + "\n"


CALL = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "tools/call",
    "params": {"name": "shared_context", "arguments": {}, "_meta": SESSION},
}


@pytest.mark.parametrize(
    ("version", "taken"), [("2024-11-05", False), ("2025-03-26", False), ("2025-06-18", True), ("2025-11-25", True)]
)
def test_the_fast_path_answers_only_once_a_handshake_agreed_a_version_it_knows(version: str, taken: bool) -> None:
    """Before the handshake ends, and on a protocol version whose tool results differ, every line goes to the SDK."""
    path = fast_path()
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    }
    assert path.take(line(initialize)) is None
    assert path.take(line(CALL)) is None
    path.sent(json.dumps({"jsonrpc": "2.0", "id": 2, "result": {"protocolVersion": "2025-11-25"}}))  # not its answer
    path.sent(json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": version}}))
    assert path.take(line(CALL)) is None
    assert path.take(line({"jsonrpc": "2.0", "method": "notifications/initialized"})) is None
    assert (path.take(line(CALL)) is not None) is taken


@pytest.mark.parametrize(
    "params",
    [
        {"name": "shared_context", "arguments": None},
        {"name": "shared_context", "arguments": []},
        {"name": "shared_context"} | {"task": {}},
        {"name": "shared_context", "_meta": {"progressToken": 1}},
        {"name": "shared_context", "_meta": []},
        {"name": "read_context", "arguments": {"image_id": "x"}},
        {"name": "no_such_tool", "arguments": {}},
        {"name": 5, "arguments": {}},
    ],
)
def test_a_call_the_fast_path_cannot_answer_exactly_goes_to_the_sdk(params: Json) -> None:
    """Params beyond name, arguments and the session's _meta, typed or unknown tools: the SDK answers them."""
    path = fast_path()
    path.take(line({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}))
    path.sent(json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25"}}))
    path.take(line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    assert path.take(line({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params})) is None
    assert path.take("not json\n") is None
