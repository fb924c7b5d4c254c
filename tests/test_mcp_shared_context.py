"""shared-context over MCP: the reference's shared_context and lifecycle tools, and the suite through mcp+stdio."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters, stdio_client

from ctxconform.conformance import connect, parse_adapter
from ctxconform.conformance.judge._specs import start_options
from ctxconform.conformance.transports._mcp import MAX_PARTICIPANTS, SDK_CANNOT_PARSE, SESSION_META
from helpers import Cli, load_report

SC = "shared-context"
SERVER = f"{sys.executable} -m ctxconform.reference.mcp"
Json = dict[str, Any]


@asynccontextmanager
async def server(state: Path, participant: str, *args: str) -> AsyncIterator[Client]:
    """A client of the reference's MCP server started as `participant` on the state directory `state`."""
    env = {**os.environ, "CTXCONFORM_STATE_DIR": str(state), "CTXCONFORM_PARTICIPANT": participant}
    params = StdioServerParameters(command=sys.executable, args=["-m", "ctxconform.reference.mcp", *args], env=env)
    async with Client(stdio_client(params), mode="legacy") as client:
        yield client


async def call(client: Client, tool: str, arguments: Json, session: str | None = None) -> Json:
    """Call a tool and return its envelope; the session, when given, travels in `_meta`."""
    meta = {SESSION_META: session} if session is not None else None
    result = await client.call_tool(tool, arguments, meta=meta)  # type: ignore[arg-type]
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def run(test: Any, *args: Any) -> Any:
    """Run an async test body."""
    return anyio.run(test, *args)


def test_a_write_is_read_back_written_by_the_connections_participant(tmp_path: Path) -> None:
    """A value written over one connection is read back over another, written_by the writer's connection."""

    async def body() -> tuple[Json, Json]:
        async with server(tmp_path, "system") as system, server(tmp_path, "subagent:analysis") as analysis:
            assert (await call(system, "create_session", {"session_id": "s1"}))["success"]
            await call(analysis, "shared_context", {"action": "write", "key": "scope", "value": "pools"}, "s1")
            async with server(tmp_path, "orchestrator") as orchestrator:
                read = await call(orchestrator, "shared_context", {"action": "read", "key": "scope"}, "s1")
            return read, await call(analysis, "shared_context", {"action": "list_keys"}, "s1")

    read, listed = run(body)
    assert (read["data"]["value"], read["data"]["written_by"]) == ("pools", "subagent:analysis")
    assert [entry["key"] for entry in listed["data"]["keys"]] == ["scope"]


def test_a_written_by_argument_is_refused(tmp_path: Path) -> None:
    """A write naming its own written_by is refused with INVALID_REQUEST and stores nothing."""

    async def body() -> tuple[Json, Json]:
        async with server(tmp_path, "system") as system:
            await call(system, "create_session", {"session_id": "s1"})
            request = {"action": "write", "key": "scope", "value": "x", "written_by": "orchestrator"}
            refused = await call(system, "shared_context", request, "s1")
            return refused, await call(system, "shared_context", {"action": "list_keys"}, "s1")

    refused, listed = run(body)
    assert (refused["success"], refused["error"]["code"]) == (False, "INVALID_REQUEST")
    assert listed["data"]["keys"] == []


@pytest.mark.parametrize("tool", ["create_session", "archive_session", "delete_session"])
def test_lifecycle_tools_are_forbidden_to_a_participant_that_is_not_system(tmp_path: Path, tool: str) -> None:
    """create_session, archive_session and delete_session answer FORBIDDEN on an orchestrator's connection."""

    async def body() -> tuple[Json, Json]:
        async with server(tmp_path, "system") as system, server(tmp_path, "orchestrator") as orchestrator:
            await call(system, "create_session", {"session_id": "s1"})
            refused = await call(orchestrator, tool, {"session_id": "s1" if tool != "create_session" else "s2"})
            return refused, await call(orchestrator, "shared_context", {"action": "list_keys"}, "s1")

    refused, still_there = run(body)
    assert (refused["success"], refused["error"]["code"]) == (False, "FORBIDDEN")
    assert still_there["success"]


def test_the_session_comes_from_meta_and_falls_back_to_the_servers_option(tmp_path: Path) -> None:
    """_meta names the session; without it the --session option does; with neither the call is SESSION_NOT_FOUND."""

    async def body() -> tuple[Json, Json, Json]:
        async with server(tmp_path, "system") as system:
            for session in ("a", "b"):
                await call(system, "create_session", {"session_id": session})
            await call(system, "shared_context", {"action": "write", "key": "scope", "value": "in a"}, "a")
            missing = await call(system, "shared_context", {"action": "list_keys"})
        async with server(tmp_path, "orchestrator", "--session", "a") as orchestrator:
            default = await call(orchestrator, "shared_context", {"action": "list_keys"})
            chosen = await call(orchestrator, "shared_context", {"action": "list_keys"}, "b")
        return missing, default, chosen

    missing, default, chosen = run(body)
    assert missing["error"]["code"] == "SESSION_NOT_FOUND"
    assert [entry["key"] for entry in default["data"]["keys"]] == ["scope"]
    assert chosen["data"]["keys"] == []


def test_the_shared_context_tool_declares_the_spec_version_and_features(tmp_path: Path) -> None:
    """Over mcp+stdio the reference declares shared-context 0.1.0-draft with every feature it implements."""
    implementation = connect(parse_adapter(f"mcp+stdio:{SERVER}"), tmp_path, timeout=10, options=start_options(tmp_path))
    implementation.start()
    declared = (implementation.info.specs[SC].version, implementation.features(SC))
    implementation.stop()
    assert declared == ("0.1.0-draft", {"read_batch", "read_history", "snapshot", "write_warning"})


def test_each_participant_gets_its_own_server_and_their_number_stays_bounded(tmp_path: Path) -> None:
    """Writes by many participants are written_by each; at most MAX_PARTICIPANTS servers live; stop ends them all."""
    implementation = connect(parse_adapter(f"mcp+stdio:{SERVER}"), tmp_path, timeout=10, options=start_options(tmp_path))
    implementation.start()
    implementation.call(SC, "create_session", {"session_id": "s1"}, {"participant": "system"})
    writers = [f"subagent:review:{n}" for n in range(MAX_PARTICIPANTS + 3)]
    results = [
        implementation.call(
            SC, "shared_context", {"action": "write", "key": "scope", "value": w}, {"session_id": "s1", "participant": w}
        ).result
        for w in writers
    ]
    alive = servers_settled(MAX_PARTICIPANTS + 1)
    implementation.stop()
    assert [result["written_by"] for result in results] == writers
    assert [result["version"] for result in results] == list(range(1, len(writers) + 1))
    assert len(alive) == MAX_PARTICIPANTS + 1  # the participants' servers and the first one
    assert gone(alive)


def servers() -> list[int]:
    """The process ids of the reference MCP servers this test process started (Linux: read from /proc)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ")
        except (OSError, ValueError, IndexError):
            continue
        if ppid == os.getpid() and b"ctxconform.reference.mcp" in command:
            found.append(int(proc.name))
    return found


def servers_settled(bound: int, seconds: float = 5) -> list[int]:
    """The live servers once at most `bound` remain, or after `seconds` (an evicted server closes on a thread)."""
    deadline = time.monotonic() + seconds
    while len(alive := servers()) > bound and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def gone(pids: list[int], seconds: float = 5) -> bool:
    """Whether every process has exited (and been reaped) within `seconds`."""
    deadline = time.monotonic() + seconds
    while any(Path(f"/proc/{pid}").exists() for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.slow
def test_the_shared_context_suite_over_mcp_gives_the_same_verdicts_as_in_process(tmp_path: Path) -> None:
    """Over MCP the suite runs the same tests with the same verdicts, bar inputs the transport cannot carry (SKIP)."""
    tests = []
    for name, adapter in (("inprocess", "reference"), ("mcp", f"mcp+stdio:{SERVER}")):
        folder = tmp_path / name
        done = Cli(tmp_path)("run", "--adapter", adapter, "--spec", SC, "--report-dir", str(folder), "--seed", "1", "--quiet")
        assert done.returncode in (0, 1), done.stdout + done.stderr
        tests.append({t["id"]: t for t in load_report(folder)["implementations"][0]["tests"]})
    inprocess, over_mcp = ({i: t["verdict"] for i, t in run.items()} for run in tests)
    unsendable = {i: t["message"] for i, t in tests[1].items() if t["verdict"] == "SKIP" and CANNOT_CARRY in t["message"]}
    assert set(inprocess.values()) == {"PASS"}
    assert inprocess.keys() == over_mcp.keys()
    assert {i: v for i, v in over_mcp.items() if i not in unsendable} == {i: "PASS" for i in inprocess if i not in unsendable}
    # Only what MCP itself cannot carry: requests too deep for the SDK, lone surrogates, a NUL in a participant's name.
    assert {i: m for i, m in unsendable.items() if not any(reason in m for reason in UNCARRIABLE)} == {}


CANNOT_CARRY = "transport cannot carry this input"
UNCARRIABLE = (SDK_CANNOT_PARSE, "a lone surrogate", "a participant name holding a NUL")
