"""A fake MCP server on stdio that bends the wire as MODE says, for the tests of the harness's own MCP client.

Usage: wire_mcp.py MODE [LINE]. Standard library only, so it starts fast. Unless MODE says otherwise it answers
initialize (protocol version 2025-06-18), lists one tool, read_context, and answers each tools/call with the
call's arguments as its structured content. Modes:

- plain: just that.
- chatty: before answering a call, send two notifications, a ping and a sampling request, and read the client's
  two answers; the result holds them under "answers".
- late: leave the first call unanswered, and answer it (marked stale) just before answering the second.
- raw: answer tools/call with LINE as given, "$ID" replaced by the request's id.
- old-version: answer initialize with protocol version 1999-01-01.
- exit: exit with code 3 when a call arrives, without answering.
- exit-after: answer the first call, then say so on stderr and exit with code 3.
- pages: list five tools, t0 to t4, over three pages linked by cursors.
- endless: list one tool per page, each page with a new cursor, forever.
- deaf: after the handshake, read nothing more (a large call fills the pipe).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

MODE = sys.argv[1]
LINE = sys.argv[2] if len(sys.argv) > 2 else ""
Json = dict[str, Any]
SERVER_INFO = {"name": "wire", "version": "1"}


def send(message: object) -> None:
    """Write one message as a line."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def receive() -> Any:
    """The next message from the client, or None when it closed our stdin."""
    line = sys.stdin.readline()
    return json.loads(line) if line else None


def answer(request_id: object, result: Json) -> None:
    """Answer a request with a result."""
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


PAGES = {None: (["t0", "t1"], "p2"), "p2": (["t2", "t3"], "p3"), "p3": (["t4"], None)}


def tools_page(cursor: str | None) -> Json:
    """One page of tools/list for `cursor`."""
    names: list[str]
    following: str | None
    if MODE == "endless":
        names, following = [f"t{int(cursor or 0) + 1}"], str(int(cursor or 0) + 1)
    elif MODE == "pages":
        names, following = PAGES[cursor]
    else:
        names, following = ["read_context"], None
    page: Json = {"tools": [{"name": name, "inputSchema": {"type": "object"}} for name in names]}
    if following:
        page["nextCursor"] = following
    return page


def call(request_id: object, arguments: Json, unanswered: list[tuple[object, Json]]) -> None:
    """Answer one tools/call as the mode says."""
    if MODE == "raw":
        sys.stdout.buffer.write(LINE.replace("$ID", json.dumps(request_id)).encode("utf-8", "surrogateescape") + b"\n")
        sys.stdout.flush()
        return
    if MODE == "exit":
        os._exit(3)
    if MODE == "late" and not unanswered:
        unanswered.append((request_id, arguments))
        return
    for stale_id, stale_arguments in unanswered:
        answer(stale_id, {"content": [], "structuredContent": {**stale_arguments, "stale": True}})
    unanswered.clear()
    if MODE == "chatty":
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "working"}})
        send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 0.5}})
        send({"jsonrpc": "2.0", "id": "srv-ping", "method": "ping"})
        send({"jsonrpc": "2.0", "id": "srv-sample", "method": "sampling/createMessage", "params": {}})
        arguments = {**arguments, "answers": [receive(), receive()]}
    answer(request_id, {"content": [], "structuredContent": arguments})
    if MODE == "exit-after":
        print("exiting after an answer", file=sys.stderr, flush=True)
        sys.exit(3)


def main() -> None:
    """Answer requests until stdin ends; notifications and the client's answers are read and dropped."""
    unanswered: list[tuple[object, Json]] = []
    while (message := receive()) is not None:
        method, request_id = message.get("method"), message.get("id")
        if method is None or request_id is None:
            continue
        if method == "initialize":
            version = "1999-01-01" if MODE == "old-version" else "2025-06-18"
            answer(request_id, {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": SERVER_INFO})
            if MODE == "deaf":
                time.sleep(60)
        elif method == "tools/list":
            answer(request_id, tools_page(message["params"].get("cursor")))
        elif method == "tools/call":
            call(request_id, message["params"]["arguments"], unanswered)
        else:
            send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": f"no method {method}"}})


if __name__ == "__main__":
    main()
