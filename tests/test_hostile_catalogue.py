"""The catalogue of hostile implementations, and the runs that check the harness against them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from ctxconform.conformance.run._hostile import MARK, leftovers, run_cases
from ctxconform.reference.hostile import FAKES, SELECTION, fake_named
from helpers import Cli


@dataclass(frozen=True)
class Case:
    """A hostile case built by a test: a fake's command with an expectation of the test's choosing."""

    name: str
    command: tuple[str, ...]
    status: str
    verdicts: frozenset[str]
    peak_mib: int
    options: tuple[str, ...] = ()


def test_every_fake_is_named_described_and_expects_a_verdict() -> None:
    """Names are unique; each fake has a description, a status, verdicts unless it never starts, and a memory bound."""
    assert len({fake.name for fake in FAKES}) == len(FAKES) >= 12
    for fake in FAKES:
        assert fake.description
        assert fake_named(fake.name) is fake
        assert bool(fake.verdicts) == (fake.status != "unavailable"), fake.name
        assert "HARNESS" not in fake.verdicts
        assert 0 < fake.peak_mib <= 1024


def test_an_unknown_fake_name_is_refused_with_the_list() -> None:
    """`python -m ctxconform.reference.hostile nosuch` exits 2 and names the fakes there are."""
    done = subprocess.run(
        [sys.executable, "-m", "ctxconform.reference.hostile", "nosuch"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert "setsid-grandchild" in done.stderr


def test_leftovers_finds_a_daemon_that_left_its_session() -> None:
    """A setsid() grandchild outlives its parent; the mark in its environment still finds it."""
    mark = uuid.uuid4().hex
    command = list(fake_named("setsid-grandchild").command)
    child = subprocess.Popen(command, stdin=subprocess.PIPE, env={**os.environ, MARK: mark})
    try:
        deadline = time.monotonic() + 30
        while len(leftovers(mark)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        child.kill()
        child.wait()
        found = leftovers(mark)
        assert len(found) == 1, found
        assert os.getsid(found[0]) != os.getsid(0)  # it left this session: a process-group kill misses it
    finally:
        for pid in leftovers(mark):
            os.kill(pid, signal.SIGKILL)


def test_hostile_prints_a_table_and_holds_for_the_chosen_fakes(cli: Cli, tmp_path: Path) -> None:
    """`ctxconform hostile --fake ...` runs those fakes, says each held, and writes hostile.json."""
    done = cli("hostile", "--fake", "setsid-grandchild", "--fake", "deep-nesting", "--jobs", "1", "--report-dir", "r")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 of 2 held" in done.stdout
    outcomes = json.loads((tmp_path / "r" / "hostile.json").read_text())["outcomes"]
    assert [(o["name"], o["left"], o["problems"]) for o in outcomes] == [("setsid-grandchild", 0, []), ("deep-nesting", 0, [])]
    assert {o["status"] for o in outcomes} == {"partial", "not-conformant"}


def test_a_wrong_expectation_is_reported_with_each_difference(tmp_path: Path) -> None:
    """A case expecting PASS within 1 MiB from a fake that answers the wrong seq is not held, and says why."""
    case = Case("wrong-seq", fake_named("wrong-seq").command, "partial", frozenset({"PASS"}), 1)
    (outcome,) = run_cases([case], SELECTION, tmp_path, jobs=1)
    assert not outcome.held
    assert (outcome.status, outcome.verdicts, outcome.exit_code) == ("not-conformant", ["PROTOCOL"], 1)
    problems = " | ".join(outcome.problems)
    for expected in ("status not-conformant", "verdicts ['PROTOCOL']", "exit code 1", "bound 1 MiB"):
        assert expected in problems


def test_an_unknown_fake_is_a_usage_error(cli: Cli) -> None:
    """`ctxconform hostile --fake nosuch` exits 2 with one line listing the fakes."""
    done = cli("hostile", "--fake", "nosuch", "--report-dir", "r")
    assert done.returncode == 2
    assert "no such hostile implementation" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("jobs", ["0", "65"])
def test_hostile_refuses_jobs_out_of_range(cli: Cli, jobs: str) -> None:
    """--jobs is a whole number from 1 to 64."""
    done = cli("hostile", "--jobs", jobs, "--report-dir", "r")
    assert done.returncode == 2
    assert "--jobs" in done.stderr
