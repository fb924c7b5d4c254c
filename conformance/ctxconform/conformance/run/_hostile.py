"""Runs of hostile implementations: each through `ctxconform run`, checked for its verdict, memory and leftovers.

A hostile case is any value with the fields of `HostileCase` (the reference's catalogue provides them). Each run is a
child `ctxconform run` whose environment carries a mark; every process that still carries it after the run is one
the harness failed to end. Peak memory is the largest resident set among the run's processes (`wait4`).
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol

__all__ = ["MARK", "HostileCase", "HostileOutcome", "leftovers", "run_cases"]

MARK: Final = "CTXCONFORM_HOSTILE_MARK"
_EXIT_CODES: Final = {"partial": 0, "conformant": 0, "not-conformant": 1, "unavailable": 3}
_RUN_LIMIT_S: Final = 600.0
_GRACE_S: Final = 3.0


class HostileCase(Protocol):
    """A hostile implementation to run, and what the harness must make of it."""

    @property
    def name(self) -> str:
        """Its name."""

    @property
    def command(self) -> tuple[str, ...]:
        """The command that serves it on stdin and stdout."""

    @property
    def status(self) -> str:
        """The status its run must end in."""

    @property
    def verdicts(self) -> frozenset[str]:
        """Exactly the verdicts its tests must get."""

    @property
    def peak_mib(self) -> int:
        """The bound on the peak memory of the run's largest process."""

    @property
    def options(self) -> tuple[str, ...]:
        """Options added to its `ctxconform run`."""


@dataclass(frozen=True)
class HostileOutcome:
    """What one hostile run gave, and each way it differs from what it must give."""

    name: str
    status: str
    verdicts: list[str]
    exit_code: int
    peak_mib: float
    left: int
    duration_s: float
    problems: list[str] = field(default_factory=list)

    @property
    def held(self) -> bool:
        """Whether the harness gave the expected verdict within bounds and left nothing behind."""
        return not self.problems


def run_cases(cases: Iterable[HostileCase], selection: tuple[str, ...], work_dir: Path, jobs: int) -> list[HostileOutcome]:
    """Run each case (`jobs` at a time) with the same selection of tests; return the outcomes in order."""
    chosen = list(cases)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(lambda case: _run_case(case, selection, work_dir / case.name), chosen))


def leftovers(mark: str) -> list[int]:
    """The pids of live processes whose environment carries `MARK=mark` (zombies excluded)."""
    needle = f"{MARK}={mark}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0") and not _zombie(entry):
                found.append(int(entry.name))
        except OSError:  # gone, or not ours to read
            continue
    return found


def _zombie(entry: Path) -> bool:
    return (entry / "stat").read_text().rpartition(")")[2].split()[0] == "Z"


def _run_case(case: HostileCase, selection: tuple[str, ...], folder: Path) -> HostileOutcome:
    folder.mkdir(parents=True, exist_ok=True)
    mark = uuid.uuid4().hex
    command = [sys.executable, "-m", "ctxconform.conformance.cli", "run", "--adapter", f"stdio:{shlex.join(case.command)}"]
    command += [*selection, *case.options, "--quiet", "--report-dir", str(folder / "reports")]
    started = time.monotonic()
    with (folder / "stdout").open("wb") as out, (folder / "stderr").open("wb") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, env={**os.environ, MARK: mark})  # noqa: S603
        exit_code, peak_kib = _wait(process)
    duration = time.monotonic() - started
    left = _reap(mark)
    status, verdicts = _report(folder / "reports" / "report.json")
    outcome = HostileOutcome(case.name, status, sorted(verdicts), exit_code, peak_kib / 1024, len(left), round(duration, 1))
    stderr = (folder / "stderr").read_text(encoding="utf-8", errors="replace")
    return _judged(outcome, case, stderr)


def _wait(process: subprocess.Popen[bytes]) -> tuple[int, int]:
    """Wait for the run (killing it after the limit); return its exit code and the peak RSS of its tree in KiB."""
    deadline = time.monotonic() + _RUN_LIMIT_S
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            process.returncode = os.waitstatus_to_exitcode(status)
            return process.returncode, usage.ru_maxrss
        if time.monotonic() > deadline:
            process.kill()
        time.sleep(0.05)


def _reap(mark: str) -> list[int]:
    """The marked processes still alive after a grace period; each is killed, so no run outlives the check."""
    deadline = time.monotonic() + _GRACE_S
    while (left := leftovers(mark)) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            continue
    return left


def _report(path: Path) -> tuple[str, set[str]]:
    try:
        report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        (implementation,) = report["implementations"]
    except (OSError, ValueError, KeyError) as error:
        return f"no report ({type(error).__name__})", set()
    return implementation["status"], {t["verdict"] for t in implementation["tests"] if t["verdict"] != "UNTESTED"}


def _judged(outcome: HostileOutcome, case: HostileCase, stderr: str) -> HostileOutcome:
    checks = [
        (outcome.status == case.status, f"status {outcome.status}, expected {case.status}"),
        (set(outcome.verdicts) == case.verdicts, f"verdicts {outcome.verdicts}, expected {sorted(case.verdicts)}"),
        (outcome.exit_code == _EXIT_CODES.get(case.status), f"exit code {outcome.exit_code}"),
        (outcome.peak_mib <= case.peak_mib, f"peak {outcome.peak_mib:.0f} MiB, bound {case.peak_mib} MiB"),
        (outcome.left == 0, f"{outcome.left} processes left running"),
        ("Traceback" not in stderr, "a traceback on stderr"),
    ]
    return HostileOutcome(**{**outcome.__dict__, "problems": [problem for held, problem in checks if not held]})
