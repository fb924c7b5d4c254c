"""Start-up: the command line and the stdio reference load only what their path needs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# Loaded by the pytest child and by MCP servers, never by the process that only parses arguments and writes reports.
HEAVY = ("pytest", "_pytest", "hypothesis", "mcp", "uvicorn", "starlette")


def _loaded(module: str) -> list[str]:
    code = f"import sys, json, {module}; print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    return list(json.loads(result.stdout))


@pytest.mark.parametrize(
    "module", ["ctxconform.conformance.cli", "ctxconform.reference.stdio", "ctxconform.reference.mcp.__main__"]
)
def test_a_path_that_runs_no_suite_loads_no_test_framework_or_mcp(module: str) -> None:
    """The CLI, the stdio reference and the MCP server's launcher (before it hands over) load no pytest, hypothesis or MCP SDK."""
    assert _loaded(module) == []


def test_the_mcp_launcher_loads_only_what_a_hand_over_needs() -> None:
    """Every participant's server starts as a launcher: it loads no typing, pathlib, threading, traceback, json or socket."""
    code = "import sys, ctxconform.reference.mcp.__main__; print(' '.join(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True, timeout=120)
    heavy = {"typing", "pathlib", "threading", "traceback", "json", "socket", "struct", "selectors", "contextlib"}
    assert set(result.stdout.split()) & heavy == set()
