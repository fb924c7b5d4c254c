"""Load for the reference's MCP server over streamable HTTP, run in worker processes: a small JSON-RPC client."""

from __future__ import annotations

import http.client
import json
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ctxconform.conformance.transports._shared_context_http import mint_token

Json = dict[str, Any]
PROTOCOL_VERSION = "2025-06-18"


@dataclass(frozen=True)
class McpTarget:
    """Where the MCP server listens, the session the tool calls go to, and the secret that signs the callers' tokens."""

    url: str
    secret: str
    session_id: str


class McpSession:
    """One MCP session over one persistent HTTP connection, as one participant (raw JSON-RPC, JSON responses)."""

    def __init__(self, url: str, token: str | None, timeout: float = 30) -> None:
        parts = urlsplit(url)
        self.path = parts.path
        self.connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=timeout)
        self.headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if token is not None:
            self.headers["Authorization"] = f"Bearer {token}"
        self._id = 0

    def open(self) -> tuple[int, Json]:
        """Initialize the session; return the HTTP status and the answer."""
        hello = {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": {"name": "load", "version": "0"}}
        status, answer, headers = self._post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
        if status == 200:
            self.headers |= {"Mcp-Session-Id": headers.get("mcp-session-id", ""), "Mcp-Protocol-Version": PROTOCOL_VERSION}
            self._post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return status, answer

    def call(self, tool: str, arguments: Json, session_id: str | None = None) -> Json:
        """Call a tool and return its envelope (the structured content)."""
        self._id += 1
        params: Json = {"name": tool, "arguments": arguments}
        if session_id is not None:
            params["_meta"] = {"ctxconform/session_id": session_id}
        status, answer, _ = self._post({"jsonrpc": "2.0", "id": self._id, "method": "tools/call", "params": params})
        assert status == 200, (status, answer)
        content: Json = answer["result"]["structuredContent"]
        return content

    def close(self) -> None:
        """Close the connection."""
        self.connection.close()

    def _post(self, message: Json) -> tuple[int, Json, dict[str, str]]:
        self.connection.request("POST", self.path, body=json.dumps(message), headers=self.headers)
        response = self.connection.getresponse()
        body = response.read()
        headers = {key.lower(): value for key, value in response.getheaders()}
        return response.status, json.loads(body) if body else {}, headers


def session_as(target: McpTarget, participant: str, timeout: float = 30) -> McpSession:
    """An open MCP session whose calls are `participant`'s."""
    session = McpSession(target.url, mint_token(target.secret, participant), timeout)
    status, answer = session.open()
    assert status == 200, answer
    return session


def timed_writes(target: McpTarget, key: str, count: int, participant: str) -> list[float]:
    """Write `key` `count` times as `participant`; return each acknowledged write's latency in seconds."""
    session = session_as(target, participant)
    latencies = []
    for n in range(count):
        started = time.perf_counter()
        envelope = session.call(
            "shared_context", {"action": "write", "key": key, "value": f"{participant} {n}"}, target.session_id
        )
        assert envelope["success"], envelope
        latencies.append(time.perf_counter() - started)
    session.close()
    return latencies


def acknowledged_writes(target: McpTarget, log: Path, deadline_s: float) -> None:
    """Write fresh keys until the server goes away (or the deadline), recording each acknowledged key and version."""
    session = session_as(target, "subagent:writer", timeout=5)
    stop = time.monotonic() + deadline_s
    with log.open("a", encoding="utf-8") as acks:
        for n in range(100_000):
            if time.monotonic() > stop:
                return
            try:
                envelope = session.call("shared_context", {"action": "write", "key": f"k{n}", "value": str(n)}, target.session_id)
            except (OSError, http.client.HTTPException, ValueError):
                return  # the server was killed: what was acknowledged is in the log
            acks.write(f"k{n} {envelope['data']['version']}\n")
            acks.flush()


def filling_writes(target: McpTarget, seed: int, count: int) -> int:
    """Write large values to a few shared keys as participant `w<seed>`; return how many were refused with STORE_FULL."""
    session = session_as(target, f"subagent:w{seed}")
    draw, refused = random.Random(seed), 0  # noqa: S311 - reproducible test data
    for _ in range(count):
        arguments = {"action": "write", "key": f"k{draw.randrange(24)}", "value": "z" * draw.randrange(1600, 4000)}
        envelope = session.call("shared_context", arguments, target.session_id)
        if not envelope["success"]:
            assert envelope["error"]["code"] == "STORE_FULL", envelope
            refused += 1
    session.close()
    return refused
