"""Whole runs against faulty children: each fault gets its verdict, the harness restarts and replays, nothing is left."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxconform.conformance.judge import specs
from ctxconform.conformance.run._request import SuiteRequest
from helpers import Cli, load_report

CHILD = Path(__file__).with_name("faulty_child.py")
# The child forgets everything at a restart, so these tests, which restart it on purpose, cannot pass against it.
NOT_DURABILITY = "not restart and not conversation_boundary"
# Call number -> (fault, the verdict of the test that makes that call); huge and flood-stderr break nothing.
FAULTS = {
    40: ("hang", "TIMEOUT"),
    300: ("crash", "CRASH"),
    600: ("garbage", "PROTOCOL"),
    900: ("wrong-seq", "PROTOCOL"),
    1200: ("half-line", "TIMEOUT"),
    1500: ("not-a-reply", "PROTOCOL"),
    1800: ("raises", "ERRORED"),
    2100: ("huge", "PASS"),
    2400: ("flood-stderr", "PASS"),
}
BREAKING = sum(verdict not in ("PASS", "ERRORED") for _, verdict in FAULTS.values())


def faulty_run(tmp_path: Path, plan: str, *args: str) -> dict[str, Any]:
    """Run the shared-context suite against a child broken as `plan` says; return its report and the child pids."""
    pids = tmp_path / "pids"
    os.environ["FAULTY_CHILD_PIDS"] = str(pids)
    try:
        done = Cli(tmp_path)(
            "run", "--adapter", f"stdio:{sys.executable} {CHILD} {plan}", "--report-dir", str(tmp_path), "--quiet", *args
        )
    finally:
        del os.environ["FAULTY_CHILD_PIDS"]
    assert done.returncode == 1, done.stdout + done.stderr
    (implementation,) = load_report(tmp_path)["implementations"]
    implementation["pids"] = [int(pid) for pid in pids.read_text().split()]
    return implementation


def collected(spec: str, selection: str) -> int:
    """How many tests of a spec's suite a -k selection collects."""
    command = SuiteRequest.for_specs([specs()[spec]], keyword=selection).command("--collect-only", "-q")
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    return int(done.stdout.strip().splitlines()[-1].split("/")[0].split()[0])


def alive(pid: int) -> bool:
    """Whether a process still exists."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def calling(tests: list[dict[str, Any]], seq: int) -> dict[str, Any]:
    """The test whose transcript holds call number `seq`."""
    return next(t for t in tests if any(e["call"]["seq"] == seq for e in t["transcript"]))


@pytest.fixture(scope="module")
def one_of_each(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One run of a child that starts slowly, ignores stop, and breaks one call of each kind along the way."""
    plan = ",".join(["slow-start", "ignores-stop", *(f"{fault}@{n}" for n, (fault, _) in FAULTS.items())])
    args = ("--spec", "shared-context", "--keyword", NOT_DURABILITY, "--timeout", "5", "--max-restarts", "10", "--seed", "1")
    return faulty_run(tmp_path_factory.mktemp("faults"), plan, *args)


def test_each_fault_gives_its_verdict_to_the_test_it_hit(one_of_each: dict[str, Any]) -> None:
    """The test making the broken call gets TIMEOUT, CRASH, PROTOCOL or ERRORED; a huge reply or stderr flood passes."""
    bad = [t for t in one_of_each["tests"] if t["verdict"] not in ("PASS", "SKIP")]
    for seq, (fault, verdict) in FAULTS.items():
        if verdict != "PASS":
            assert calling(bad, seq)["verdict"] == verdict, fault
    assert len(bad) == len(FAULTS) - 2


def test_after_each_restart_every_remaining_test_runs_and_passes(one_of_each: dict[str, Any]) -> None:
    """Every selected test has a result, and all but the broken ones pass, though the child forgets all at restart.

    The one SKIP is the two-writers test: the child keeps its state in memory and declares single_instance.
    """
    assert len(one_of_each["tests"]) == collected("shared-context", NOT_DURABILITY)
    assert one_of_each["counts"]["SKIP"] == 1
    assert one_of_each["counts"]["PASS"] == len(one_of_each["tests"]) - (len(FAULTS) - 2) - 1


def test_the_report_says_what_happened_and_when(one_of_each: dict[str, Any]) -> None:
    """Restarts and the forced stop are events with a time and the test they happened at."""
    events = one_of_each["events"]
    kinds = [e["kind"] for e in events]
    assert kinds.count("restarted") == BREAKING
    assert kinds[-1] == "stop-forced"
    assert [e["at_s"] for e in events] == sorted(e["at_s"] for e in events)
    assert all(e["test"] for e in events if e["kind"] != "stop-forced")


def test_no_child_process_is_left_behind(one_of_each: dict[str, Any]) -> None:
    """Every child the run started, one per start and restart, is gone, including the one that ignored stop."""
    assert len(one_of_each["pids"]) == BREAKING + 1
    assert not [pid for pid in one_of_each["pids"] if alive(pid)]


def test_a_child_that_hangs_on_every_call_uses_its_restarts_then_fails_fast(tmp_path: Path) -> None:
    """Every test is TIMEOUT; only the first max-restarts + 1 tests wait for the timeout, so the run ends in bounded time."""
    args = ("--spec", "read-context", "--keyword", "notes", "--timeout", "1.5", "--max-restarts", "2")
    implementation = faulty_run(tmp_path, "hang", *args)
    assert set(implementation["counts"]) == {"TIMEOUT"}
    assert sum(t["duration_s"] >= 1.5 for t in implementation["tests"]) == 3
    assert [e["kind"] for e in implementation["events"]] == ["restarted", "restarted", "restarts-exhausted"]
    assert "no restarts left" in implementation["tests"][-1]["message"]
    assert not [pid for pid in implementation["pids"] if alive(pid)]


def test_each_broken_test_s_transcript_ends_with_the_failed_call(one_of_each: dict[str, Any]) -> None:
    """Each test that broke the connection has a transcript whose last call says what went wrong."""
    failed = [t for t in one_of_each["tests"] if t["verdict"] not in ("PASS", "SKIP", "ERRORED")]
    assert all(t["transcript"][-1]["failure"] for t in failed), json.dumps(failed)[:2000]
