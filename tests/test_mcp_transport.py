"""The mcp+stdio transport: the reference's MCP server, and MCP servers that hang, die or fail."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ctxconform.conformance import Implementation, connect, parse_adapter
from ctxconform.conformance.exceptions import (
    ImplementationCrashed,
    ImplementationErrored,
    ImplementationTimeout,
    ImplementationUnavailable,
    Uncarriable,
)
from ctxconform.conformance.judge._specs import start_options

FAULTY = Path(__file__).with_name("faulty_mcp.py")
RC = "read-context"
SC = "shared-context"


def started(command: str, tmp_path: Path, timeout: float = 10) -> Implementation:
    """A started implementation over mcp+stdio with the kit's start options."""
    implementation = connect(parse_adapter(f"mcp+stdio:{command}"), tmp_path, timeout=timeout, options=start_options(tmp_path))
    implementation.start()
    return implementation


def test_the_reference_mcp_server_answers_read_context_and_its_errors(tmp_path: Path) -> None:
    """The reference's MCP server gets the folders from the start options; results and errors come back unwrapped."""
    implementation = started(f"{sys.executable} -m ctxconform.reference.mcp", tmp_path)
    assert implementation.features(RC) == frozenset()
    (tmp_path / "read-context" / "workspaces" / "img").mkdir()
    context = implementation.call(RC, "read_context", {"image_id": "img"}).result
    missing = implementation.call(RC, "read_context", {"image_id": "nope"})
    extra = implementation.call(RC, "read_context", {"image_id": "img", "x": 1})
    implementation.stop()
    assert list(context) == ["tastes", "brief", "notes", "recent_log", "recent_gaps"]
    assert (missing.code, extra.code) == ("not_found", "INVALID_REQUEST")


@pytest.mark.parametrize("participant", ["a\x00b", "a\ud800b"])
def test_a_participant_stdio_cannot_name_is_uncarriable_not_a_crash(participant: str, tmp_path: Path) -> None:
    """A NUL or a lone surrogate in a participant's name is the transport's limit (SKIP), and the next call still works."""
    implementation = started(f"{sys.executable} -m ctxconform.reference.mcp", tmp_path)
    assert implementation.call(SC, "create_session", {"session_id": "s1"}, {"participant": "system"}).code is None
    with pytest.raises(Uncarriable):
        implementation.call(SC, "shared_context", {"action": "list_keys"}, {"participant": participant, "session_id": "s1"})
    as_orchestrator = {"participant": "orchestrator", "session_id": "s1"}
    listed = implementation.call(SC, "shared_context", {"action": "list_keys"}, as_orchestrator)
    implementation.stop()
    assert listed.code is None


def test_a_hanging_tool_gives_timeout(tmp_path: Path) -> None:
    """A tool that never returns gives TIMEOUT after the call's timeout."""
    implementation = started(f"{sys.executable} {FAULTY} hang", tmp_path, timeout=1)
    with pytest.raises(ImplementationTimeout):
        implementation.call(RC, "read_context", {"image_id": "x"})
    implementation.stop()


def test_a_server_that_dies_mid_call_gives_crash(tmp_path: Path) -> None:
    """A server process that exits during a call gives CRASH."""
    implementation = started(f"{sys.executable} {FAULTY} exit", tmp_path)
    with pytest.raises(ImplementationCrashed):
        implementation.call(RC, "read_context", {"image_id": "x"})
    implementation.stop()


def test_a_tool_that_raises_gives_errored(tmp_path: Path) -> None:
    """A tool failing with an unexpected exception is the implementation's own failure: ERRORED."""
    implementation = started(f"{sys.executable} {FAULTY} raise", tmp_path)
    with pytest.raises(ImplementationErrored):
        implementation.call(RC, "read_context", {"image_id": "x"})
    implementation.stop()


def test_a_server_that_cannot_start_is_unavailable(tmp_path: Path) -> None:
    """A command that is not an MCP server makes the implementation unavailable, not a traceback."""
    with pytest.raises(ImplementationUnavailable, match="did not start"):
        started(f"{sys.executable} -c 'import sys; sys.exit(1)'", tmp_path, timeout=2)


def test_the_reference_mcp_server_opens_no_telemetry_span_per_message(tmp_path: Path) -> None:
    """The SDK's OpenTelemetry middleware (a no-op span per message without an exporter) is dropped; the rest stays."""
    from ctxconform.reference.mcp import build_server  # noqa: PLC0415 - the SDK's import, for this test only
    from ctxconform.reference.read_context import ReadContext  # noqa: PLC0415 - likewise

    layers = [type(layer).__name__ for layer in build_server(ReadContext(tmp_path, tmp_path)).middleware]
    assert "OpenTelemetryMiddleware" not in layers
    assert "RequestStateBoundary" in layers
