"""The in-process and stdio transports: normal calls, and each way an implementation can break the protocol."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from ctxconform.conformance import Implementation, connect, parse_adapter
from ctxconform.conformance.exceptions import (
    ConfigurationError,
    ImplementationCrashed,
    ImplementationErrored,
    ImplementationTimeout,
    ImplementationUnavailable,
    ProtocolViolation,
)

CHILD = Path(__file__).with_name("faulty_child.py")
SC = "shared-context"


def child(mode: str, tmp_path: Path, timeout: float = 5.0) -> Implementation:
    """A started faulty child over stdio."""
    implementation = connect(parse_adapter(f"stdio:{sys.executable} {CHILD} {mode}"), tmp_path, timeout=timeout)
    implementation.start()
    return implementation


def create(implementation: Implementation) -> object:
    """Call create_session once."""
    return implementation.call(SC, "create_session", {"session_id": "s1"})


@pytest.mark.parametrize("adapter", ["reference", f"stdio:{sys.executable} -m ctxconform.reference.stdio"])
def test_both_transports_carry_calls_and_restarts_keep_state(adapter: str, tmp_path: Path) -> None:
    """A write survives a restart over either transport, because the state directory is handed over again."""
    implementation = connect(parse_adapter(adapter), tmp_path, timeout=10)
    implementation.start()
    create(implementation)
    context = {"session_id": "s1", "participant": "orchestrator"}
    implementation.call(SC, "shared_context", {"action": "write", "key": "k", "value": "v"}, context)
    implementation.restart()
    reply = implementation.call(SC, "shared_context", {"action": "read", "key": "k"}, context)
    implementation.stop()
    assert reply.result["value"] == "v"
    assert implementation.restarts == 1


@pytest.mark.parametrize("adapter", ["reference", f"stdio:{sys.executable} -m ctxconform.reference.stdio"])
def test_a_lone_surrogate_in_the_arguments_reaches_the_implementation(adapter: str, tmp_path: Path) -> None:
    """Text that is not valid Unicode travels as a JSON escape and gets the spec's answer, not a harness failure."""
    implementation = connect(parse_adapter(adapter), tmp_path, timeout=10)
    implementation.start()
    create(implementation)
    context = {"session_id": "s1", "participant": "orchestrator"}
    reply = implementation.call(SC, "shared_context", {"action": "write", "key": "k\ud800", "value": "v"}, context)
    implementation.stop()
    assert reply.code == "INVALID_KEY"


def test_a_hanging_child_gives_timeout_and_fails_fast_afterwards(tmp_path: Path) -> None:
    """A child that never answers a call gives TIMEOUT; later calls fail at once until a restart."""
    implementation = child("hang", tmp_path, timeout=0.5)
    with pytest.raises(ImplementationTimeout):
        create(implementation)
    started = time.monotonic()
    with pytest.raises(ImplementationTimeout):
        create(implementation)
    assert time.monotonic() - started < 0.2
    implementation.stop()


def test_a_child_that_exits_mid_run_gives_crash(tmp_path: Path) -> None:
    """A child that exits while a call is pending gives CRASH with its exit code."""
    implementation = child("crash-after-1", tmp_path)
    create(implementation)
    with pytest.raises(ImplementationCrashed, match="code 7"):
        create(implementation)
    implementation.stop()


@pytest.mark.parametrize("mode", ["garbage", "wrong-seq", "not-a-reply"])
def test_invalid_replies_give_protocol(mode: str, tmp_path: Path) -> None:
    """A line that is not JSON, a reply for another seq, or a reply with neither result nor error gives PROTOCOL."""
    implementation = child(mode, tmp_path)
    with pytest.raises(ProtocolViolation):
        create(implementation)
    implementation.stop()


def test_an_errored_reply_gives_errored_and_the_connection_stays_usable(tmp_path: Path) -> None:
    """An `errored` reply is the implementation's own failure: ERRORED, and the next call is still made."""
    implementation = child("raises", tmp_path)
    with pytest.raises(ImplementationErrored, match="boom"):
        create(implementation)
    assert implementation.broken is None
    implementation.stop()


def test_a_child_that_dies_at_start_is_unavailable_with_its_stderr(tmp_path: Path) -> None:
    """A child that exits before answering start makes the implementation unavailable, quoting its stderr."""
    implementation = connect(parse_adapter(f"stdio:{sys.executable} {CHILD} crash-at-start"), tmp_path, timeout=5)
    with pytest.raises(ImplementationUnavailable, match="cannot find my configuration"):
        implementation.start()


def test_a_command_that_does_not_exist_is_unavailable(tmp_path: Path) -> None:
    """A command that cannot be run is reported as unavailable, not as a traceback."""
    implementation = connect(parse_adapter("stdio:/nonexistent/impl --serve"), tmp_path, timeout=5)
    with pytest.raises(ImplementationUnavailable, match="check the command"):
        implementation.start()


@pytest.mark.parametrize("mode", ["hang", "half-line"])
def test_stop_leaves_no_process_behind(mode: str, tmp_path: Path) -> None:
    """A child stuck in a call, with nothing or half a line written, is a TIMEOUT, and after stop it is gone."""
    implementation = child(mode, tmp_path, timeout=0.3)
    pid = implementation._transport._process.pid  # type: ignore[attr-defined]
    with pytest.raises(ImplementationTimeout):
        create(implementation)
    implementation.stop()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_child_flooding_stderr_still_gets_its_replies_read(tmp_path: Path) -> None:
    """Megabytes on stderr before every reply never block the child or the harness."""
    implementation = child("flood-stderr", tmp_path)
    assert create(implementation).ok  # type: ignore[attr-defined]
    assert create(implementation).code == "SESSION_EXISTS"  # type: ignore[attr-defined]
    implementation.stop()


def test_a_50_mb_reply_is_read_whole(tmp_path: Path) -> None:
    """A reply line of 50 MB is read in full and handed to the test, not cut or refused."""
    implementation = child("huge", tmp_path, timeout=30)
    reply = create(implementation)
    implementation.stop()
    assert len(reply.result["padding"]) == 50_000_000  # type: ignore[attr-defined]


def test_a_slow_start_within_the_timeout_is_waited_for(tmp_path: Path) -> None:
    """A child that takes two seconds to start is waited for when the timeout allows it."""
    implementation = child("slow-start", tmp_path, timeout=5)
    assert create(implementation).ok  # type: ignore[attr-defined]
    implementation.stop()


def test_a_child_that_ignores_stop_is_ended_in_bounded_time(tmp_path: Path) -> None:
    """Stopping ends a child that never answers stop, within seconds, and leaves no process."""
    implementation = child("ignores-stop", tmp_path)
    pid = implementation._transport._process.pid  # type: ignore[attr-defined]
    started = time.monotonic()
    implementation.stop()
    assert time.monotonic() - started < 15
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("stdio:", "give the command"),
        ("python:nomodule", "python:package.module:factory"),
        ("python:ctxconform_no_such_module:x", "cannot import"),
        ("python:ctxconform.reference:NoSuchThing", "no callable"),
        ("ftp://example", "unknown adapter"),
        ("http://127.0.0.1:1/x", "write http://HOST:PORT, with the port and nothing after it"),
        ("http://127.0.0.1", "write http://HOST:PORT, with the port"),
        ("https://127.0.0.1:1", "not available yet"),
        ("stdio:python 'unclosed", "cannot split"),
    ],
)
def test_bad_adapter_strings_get_a_clear_message(text: str, message: str, tmp_path: Path) -> None:
    """Every malformed connection string is a ConfigurationError that says what to write."""
    with pytest.raises(ConfigurationError, match=message):
        connect(parse_adapter(text), tmp_path, timeout=1).start()
