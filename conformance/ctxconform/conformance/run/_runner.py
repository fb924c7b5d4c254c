"""Running a suite against one adapter in a child pytest process, and reading back its result lines."""

from __future__ import annotations

import shlex
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from ctxconform.conformance.judge._results import Charge, CollectedLine, ProblemLine, ResultLine, TestLine, read_lines
from ctxconform.conformance.judge._specs import Spec
from ctxconform.conformance.run._request import SuiteRequest
from ctxconform.conformance.transports._adapters import Adapter

__all__ = ["RunOptions", "SuiteRun", "collect_requirements", "never_reported", "run_suite"]


@dataclass(frozen=True)
class RunOptions:
    """What every suite run of one `ctxconform run` shares."""

    specs: tuple[Spec, ...]
    level: str
    profile: str
    seed: int
    timeout: float
    work_dir: Path
    tests: tuple[str, ...] = ()
    keyword: str | None = None
    requirements: tuple[str, ...] = ()
    progress: bool = True
    max_restarts: int = 5

    @property
    def partial(self) -> bool:
        """Whether the run leaves tests out: filtered by test, keyword, requirement or level."""
        return bool(self.tests or self.keyword or self.requirements) or self.level != "MAY"

    def replay(self, adapter: Adapter) -> str:
        """Return the command line that runs the same selection again."""
        specs = " ".join(f"--spec {s.id}" for s in self.specs)
        selection = f"--seed {self.seed} --profile {self.profile} --level {self.level}"
        return f"ctxconform run --adapter {shlex.quote(adapter.text)} {specs} {selection}"


@dataclass(frozen=True)
class SuiteRun:
    """What a child pytest run left: its result lines, exit code, duration and log."""

    lines: list[ResultLine]
    exit_code: int
    duration_s: float
    log: Path


def run_suite(adapter: Adapter, options: RunOptions, index: int) -> SuiteRun:
    """Run the selected suites against one adapter and return what they recorded."""
    results = options.work_dir / f"results-{index}.jsonl"
    log = options.work_dir / f"pytest-{index}.log"
    results.unlink(missing_ok=True)
    command = _request(adapter, options, results).command("-q", "--no-header", "--tb=short")
    started = time.monotonic()
    with log.open("w", encoding="utf-8") as out:
        completed = subprocess.run(command, stdout=out, stderr=None if options.progress else out, check=False)  # noqa: S603
    lines = read_lines(results)
    lines += never_reported(lines, completed.returncode)
    return SuiteRun(lines, completed.returncode, time.monotonic() - started, log)


def never_reported(lines: list[ResultLine], exit_code: int) -> list[TestLine]:
    """A HARNESS line for each selected test the child never reported: it was killed before it could say so itself."""
    if any(isinstance(line, ProblemLine) for line in lines):
        return []
    reported = {line.id for line in lines if isinstance(line, TestLine)}
    why = f"the suite process ended (exit {exit_code}) before this test reported; see the pytest log"
    return [_harness(line, why) for line in lines if isinstance(line, CollectedLine) and line.id not in reported]


def _harness(expected: CollectedLine, why: str) -> TestLine:
    return TestLine(
        id=expected.id,
        name=expected.id.rpartition("::")[2],
        spec=expected.requirements[0].split("/")[0] if expected.requirements else None,
        requirements=expected.requirements,
        charges=[Charge(requirement=rid, verdict="HARNESS", message=why) for rid in expected.requirements],
        verdict="HARNESS",
        duration_s=0.0,
        message=why,
        transcript=[],
    )


def collect_requirements(specs: list[Spec], work_dir: Path) -> tuple[dict[str, list[str]], str]:
    """Collect the suites without running them; return {test id: requirement ids} and pytest's output."""
    listing = work_dir / "collected.jsonl"
    listing.unlink(missing_ok=True)
    command = SuiteRequest.for_specs(specs, collect=listing).command("--collect-only", "-q")
    completed = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
    found = {line.id: line.requirements for line in read_lines(listing) if isinstance(line, CollectedLine)}
    return found, completed.stdout + completed.stderr


def _request(adapter: Adapter, options: RunOptions, results: Path) -> SuiteRequest:
    return SuiteRequest.for_specs(
        options.specs,
        adapter=adapter.text,
        results=results,
        level=options.level,
        timeout=options.timeout,
        max_restarts=options.max_restarts,
        progress=options.progress,
        requirements=options.requirements,
        tests=options.tests,
        keyword=options.keyword,
        seed=options.seed,
        profile=options.profile,
    )
