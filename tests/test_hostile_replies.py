"""Hostile replies: huge, deeply nested, off-schema at setup, or raising in-process; each gets the implementation's verdict.

The implementation is untrusted: whatever it sends is bounded before the harness keeps it, and every test of a run
reports, so a run that ended early is never conformant.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance.exceptions import ABSENT, ProtocolViolation, RequirementFailure
from ctxconform.conformance.judge._clip import MAX_CHARS, clip
from ctxconform.conformance.judge._results import TestLine, read_lines
from ctxconform.conformance.judge._schemas import MAX_ERROR_CHARS, MAX_ERRORS, schema_errors
from ctxconform.conformance.run._request import SuiteRequest
from ctxconform.conformance.run._session import Harness
from ctxconform.conformance.transports import _lines, _stdio
from ctxconform.conformance.transports._implementation import Implementation
from ctxconform.conformance.transports._inprocess import InProcessTransport
from ctxconform.conformance.transports._protocol import MAX_NESTING, check_incoming, nesting
from ctxconform.conformance.transports._stdio import StdioTransport
from helpers import depth_of, load_report

CHILD = Path(__file__).with_name("faulty_child.py")
HERE = Path(__file__).resolve().parent
MiB = 1 << 20


def nested(depth: int) -> list[Any]:
    """Lists nested `depth` levels deep, built without recursion."""
    value: list[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value


def run(tmp_path: Path, adapter: str, *args: str, wrapper: list[str] | None = None) -> dict[str, Any]:
    """`ctxconform run` of shared-context's list_keys tests against `adapter` (under `wrapper`); return its report."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
    command = [
        *(wrapper or []),
        sys.executable,
        "-c",
        "from ctxconform.conformance.cli._main import main; raise SystemExit(main())",
    ]
    command += ["run", "--adapter", adapter, "--spec", "shared-context", "--keyword", "list_keys", "--quiet", "--seed", "1"]
    done = subprocess.run(
        [*command, "--report-dir", str(tmp_path), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=600,
        check=False,
    )
    (tmp_path / "cli-stdout").write_text(done.stdout)
    assert "Traceback" not in done.stderr, done.stderr
    (implementation,) = load_report(tmp_path)["implementations"]
    return implementation  # type: ignore[no-any-return]


def reported(implementation: dict[str, Any]) -> list[dict[str, Any]]:
    """The tests of a report that ran (the rest of the suite is listed as UNTESTED)."""
    return [test for test in implementation["tests"] if test["verdict"] != "UNTESTED"]


def verdicts(implementation: dict[str, Any]) -> set[str]:
    """The verdicts of a report's tests that ran."""
    return {test["verdict"] for test in reported(implementation)}


class Replies:
    """A transport that answers every call with one fixed reply."""

    def __init__(self, result: object) -> None:
        self.result = result

    def open(self) -> None:
        """Nothing to open."""

    def exchange(self, message: dict[str, Any], timeout: float) -> object:  # noqa: ARG002 - answers at once
        """Answer start as an implementation of nothing, and every call with the fixed result."""
        if message["type"] == "start":
            specs = {"any": {"version": "1", "features": []}}
            return {"type": "started", "implementation": {"name": "r", "version": "1", "language": "x"}, "specs": specs}
        return {"type": "reply", "seq": message["seq"], "result": self.result}

    def close(self, timeout: float) -> None:
        """Nothing to close."""


# Defect 1: big replies.


def test_a_long_line_is_assembled_in_linear_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """32 MiB read 4 KiB at a time: searching the whole buffer after each read took seconds; each byte once takes ms."""
    monkeypatch.setattr(_lines, "_CHUNK", 4096)
    read, write = os.pipe()
    data = b"x" * (32 * MiB) + b"\n"

    def writer() -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(write, view[:MiB]) :]

    thread = threading.Thread(target=writer)
    thread.start()
    started = time.monotonic()
    line = _lines.LineReader(read, 64 * MiB).read_line(30)
    took = time.monotonic() - started
    thread.join()
    os.close(read)
    os.close(write)
    assert len(line) == len(data)
    assert took < 2.0, f"assembling a 32 MiB line took {took:.2f} s"


def test_schema_errors_are_few_and_short_however_big_the_instance() -> None:
    """A 10 MB string where an object belongs: jsonschema's message repeats it; the kit keeps a clipped line."""
    errors = schema_errors("shared-context/list_keys.response.json", "x" * 10_000_000)
    assert errors
    assert all(len(error) < MAX_ERROR_CHARS + 100 for error in errors)
    many = schema_errors("shared-context/list_keys.response.json", {"keys": [{"key": 1}] * 5000})
    assert 0 < len(many) <= MAX_ERRORS


def test_a_requirement_failure_holds_clipped_copies() -> None:
    """What a failed check keeps (and hypothesis keeps with its examples) is bounded, not the 20 MB it was given."""
    failure = RequirementFailure("x/1/y", "m" * 100_000, sent={"a": 1}, received={"big": "x" * 20_000_000})
    assert len(json.dumps(failure.received)) < 2 * MAX_CHARS
    assert len(failure.message) < 2 * MAX_CHARS
    assert failure.sent == {"a": 1}
    assert failure.expected is ABSENT


def test_the_transcript_keeps_clipped_replies(tmp_path: Path) -> None:
    """A 20 MB reply is returned whole to the test, and kept clipped in the transcript."""
    implementation = Implementation("replies", Replies({"big": "x" * 20_000_000}), tmp_path)  # type: ignore[arg-type]
    implementation.start()
    reply = implementation.call("any", "op", {})
    assert len(reply.result["big"]) == 20_000_000
    (exchange,) = implementation.transcript
    assert len(json.dumps(exchange.reply)) < 2 * MAX_CHARS


def test_a_line_over_the_cap_is_protocol_and_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reply longer than the line cap (lowered here to 1 KiB) is a ProtocolViolation naming the cap."""
    monkeypatch.setattr(_stdio, "MAX_LINE_BYTES", 1024)
    transport = StdioTransport([sys.executable, "-c", "import sys; sys.stdin.readline(); print('x' * 4096, flush=True)"])
    transport.open()
    try:
        with pytest.raises(ProtocolViolation, match=r"longer than 1024 bytes .*answer with less") as caught:
            transport.exchange({"type": "stop"}, 10)
    finally:
        transport.close(1)
    assert caught.value.verdict == "PROTOCOL"


def test_a_50_mb_reply_to_every_call_stays_within_memory(tmp_path: Path) -> None:
    """Every result a 50 MB string where an object belongs: the run ends FAIL, its largest process under 1 GiB."""
    # Measured in a process of its own: this one's RUSAGE_CHILDREN also counts every child other tests started.
    measure = "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=False); "
    measure += "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    implementation = run(
        tmp_path, f"stdio:{sys.executable} {CHILD} huge-off-schema", "--timeout", "60", wrapper=[sys.executable, "-c", measure]
    )
    peak_kib = int((tmp_path / "cli-stdout").read_text().split()[-1])
    assert verdicts(implementation) <= {"FAIL", "PASS"}, reported(implementation)
    assert peak_kib < MiB, f"peak RSS {peak_kib / MiB:.2f} GiB"
    assert all(len(json.dumps(test["transcript"])) < 100_000 for test in reported(implementation))


# Defect 3: deep nesting.


def test_a_deep_reply_is_a_protocol_violation_on_every_path(tmp_path: Path) -> None:
    """5,000 levels: refused at the protocol, and validation and clipping survive it rather than raise RecursionError."""
    deep = nested(5000)
    with pytest.raises(ProtocolViolation, match="deeper than"):
        check_incoming("reply", {"type": "reply", "seq": 1, "result": {"keys": deep}})
    assert schema_errors("shared-context/list_keys.response.json", {"keys": deep}) == ["(root): nested too deep to validate"]
    assert len(json.dumps(clip({"keys": deep}))) < 1000
    check_incoming("reply", {"type": "reply", "seq": 1, "result": nested(MAX_NESTING - 2)})
    implementation = Implementation("replies", Replies(deep), tmp_path)  # type: ignore[arg-type]
    implementation.start()
    with pytest.raises(ProtocolViolation):
        implementation.call("any", "op", {})


json_trees = st.recursive(
    st.none() | st.integers() | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4),
    max_leaves=40,
)


@given(tree=json_trees, limit=st.integers(0, 8))
def test_nesting_counts_the_depth_and_stops_once_past_the_limit(tree: object, limit: int) -> None:
    """`nesting` is the depth while it is within the limit, and some number past the limit once the depth is."""
    found, depth = nesting(tree, limit), depth_of(tree)  # depth_of: the recursive definition nesting must agree with
    assert found == depth if depth <= limit else limit < found <= depth


def test_a_reply_exactly_at_the_nesting_limit_passes_and_one_level_more_does_not() -> None:
    """The reply object itself is the first level: MAX_NESTING levels in all pass the check, one more is refused."""
    check_incoming("reply", {"type": "reply", "seq": 1, "result": nested(MAX_NESTING - 1)})
    with pytest.raises(ProtocolViolation, match="deeper than"):
        check_incoming("reply", {"type": "reply", "seq": 1, "result": nested(MAX_NESTING)})


def test_a_deep_line_is_protocol_not_a_recursion_error() -> None:
    """A child writing 5,000 nested lists: the stdio transport decodes it into a ProtocolViolation."""
    deep = "[" * 5000 + "]" * 5000
    transport = StdioTransport([sys.executable, "-c", f"import sys; sys.stdin.readline(); print('{deep}', flush=True)"])
    transport.open()
    try:
        with pytest.raises(ProtocolViolation, match="too deep"):
            transport.exchange({"type": "stop"}, 10)
    finally:
        transport.close(1)


def test_an_in_process_deep_answer_is_protocol() -> None:
    """An in-process answer too deep to copy through JSON is a ProtocolViolation."""

    class Deep:
        def handle(self, message: dict[str, Any]) -> dict[str, Any]:
            return Replies(nested(5000)).exchange(message, 1)  # type: ignore[return-value]

    transport = InProcessTransport(Deep)
    transport.open()
    try:
        with pytest.raises(ProtocolViolation, match="too deep"):
            transport.exchange({"type": "call", "seq": 1}, 10)
    finally:
        transport.close(1.0)


def test_a_child_answering_5000_levels_deep_gets_protocol_never_harness(tmp_path: Path) -> None:
    """The whole path (decoding, validation, clipping, result lines) holds: every test is PROTOCOL."""
    implementation = run(tmp_path, f"stdio:{sys.executable} {CHILD} deep")
    assert verdicts(implementation) == {"PROTOCOL"}, reported(implementation)


# Defect 7: setup failures.


def test_an_off_schema_create_session_fails_the_implementation_never_the_kit(tmp_path: Path) -> None:
    """create_session answering off-schema fails the tests that need a session (FAIL or ERRORED), never HARNESS."""
    implementation = run(tmp_path, f"stdio:{sys.executable} {CHILD} off-schema-session")
    assert verdicts(implementation) <= {"FAIL", "ERRORED", "PASS", "SKIP"}, reported(implementation)
    assert "FAIL" in verdicts(implementation)
    assert implementation["status"] == "not-conformant"


# Defect 11: in-process handlers that raise or answer what cannot be written.


@pytest.mark.parametrize("handler", ["RaisesUnicodeError", "RaisesSystemExit", "SurrogateReplies"])
def test_every_test_reports_whatever_an_in_process_handler_does(tmp_path: Path, handler: str) -> None:
    """The raising call is ERRORED (a bad reply FAIL), every selected test reports, and the run is not conformant."""
    implementation = run(tmp_path, f"python:raising_impl:{handler}")
    assert len(reported(implementation)) == 6, reported(implementation)
    assert "HARNESS" not in verdicts(implementation), reported(implementation)
    assert verdicts(implementation) & {"ERRORED", "FAIL"}
    assert implementation["status"] == "not-conformant"


def test_a_test_that_never_reported_is_harness(tmp_path: Path) -> None:
    """A run that ended before some test reported writes HARNESS for it: such a run is never conformant."""
    results = tmp_path / "results.jsonl"
    harness = Harness(SuiteRequest.for_specs([], adapter="reference", results=results, progress=False))

    class Item:
        nodeid, name = "suite/test_x.py::test_y", "test_y"

        def iter_markers(self, name: str) -> list[Any]:  # noqa: ARG002 - one marker for any name
            return [pytest.mark.requirement("shared-context/3.1/no-values").mark]

    harness.expect([Item()])  # type: ignore[list-item]
    harness.unreported("pytest exit 3")
    (line,) = [line for line in read_lines(results) if isinstance(line, TestLine)]
    assert isinstance(line, TestLine)
    assert (line.verdict, [c.verdict for c in line.charges]) == ("HARNESS", ["HARNESS"])
    assert "ended before this test reported" in line.message


def test_a_killed_suite_process_leaves_every_unreported_test_harness(tmp_path: Path) -> None:
    """The pytest child is SIGKILLed mid-run: the parent reports each selected test it never heard of as HARNESS."""
    implementation = run(tmp_path, "python:raising_impl:KillsItsProcess")
    assert len(reported(implementation)) == 6, reported(implementation)
    assert verdicts(implementation) == {"HARNESS"}, reported(implementation)
    assert all("exit -9" in test["message"] for test in reported(implementation))
    assert implementation["status"] != "conformant"
