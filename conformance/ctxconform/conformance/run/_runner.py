"""Running the suites against one adapter in child pytest processes, and reading back their result lines."""

from __future__ import annotations

import shlex
import subprocess
import time
from dataclasses import dataclass, replace
from pathlib import Path

from ctxconform.conformance.judge._results import Charge, CollectedLine, ProblemLine, ResultLine, TestLine, read_lines
from ctxconform.conformance.judge._specs import Spec
from ctxconform.conformance.run._request import SuiteRequest
from ctxconform.conformance.run._shards import Shard, shards
from ctxconform.conformance.transports._adapters import Adapter

__all__ = ["RunOptions", "SuiteRun", "collect_requirements", "never_reported", "run_suite"]


# pytest's exit codes, worst first: internal error, interrupted, usage error, tests failed, all passed.
_EXIT_ORDER = (3, 2, 4, 1, 0)
_NO_TESTS = 5


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
    jobs: int = 1

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
    """Run the selected suites against one adapter, `options.jobs` children at once, and return what they recorded."""
    parts = shards(options.specs, options.jobs)
    started = time.monotonic()
    names = [f"{index}-{n}" for n in range(len(parts))] if len(parts) > 1 else [str(index)]
    children = [_launch(adapter, options, part, name) for part, name in zip(parts, names, strict=True)]
    finished = [_finish(child) for child in children]
    rank = {spec.id: n for n, spec in enumerate(options.specs)}
    # Stable: each child's order is kept, and the tests come by spec, then file, as in a run in one child.
    lines = sorted((line for run in finished for line in run.lines), key=lambda line: _place(line, rank))
    log = _joined_logs([run.log for run in finished], options.work_dir / f"pytest-{index}.log")
    return SuiteRun(lines, _exit_code([run.exit_code for run in finished]), time.monotonic() - started, log)


@dataclass(frozen=True)
class _Child:
    process: subprocess.Popen[bytes]
    results: Path
    log: Path
    started: float


def _launch(adapter: Adapter, options: RunOptions, shard: Shard, name: str) -> _Child:
    results = options.work_dir / f"results-{name}.jsonl"
    log = options.work_dir / f"pytest-{name}.log"
    results.unlink(missing_ok=True)
    # Every child names its tests from the folder of the whole run, so a test's id does not depend on its group.
    root = SuiteRequest.for_specs(options.specs).rootdir
    request = replace(_request(adapter, replace(options, specs=shard.specs), results, root), suites=shard.paths)
    request = replace(request, basetemp=options.work_dir / f"tmp-{name}")
    command = request.command("-q", "--no-header", "--tb=short")
    with log.open("w", encoding="utf-8") as out:
        process = subprocess.Popen(command, stdout=out, stderr=None if options.progress else out, env=request.environment())  # noqa: S603
    return _Child(process, results, log, time.monotonic())


def _finish(child: _Child) -> SuiteRun:
    exit_code = child.process.wait()
    lines = read_lines(child.results)
    lines += never_reported(lines, exit_code)
    return SuiteRun(lines, exit_code, time.monotonic() - child.started, child.log)


def _place(line: ResultLine, rank: dict[str, int]) -> tuple[int, tuple[str, ...]]:
    """Where a line goes in the run's order: its spec's rank, then its file's path by folder, as pytest collects."""
    if isinstance(line, TestLine) and line.spec is not None:
        return rank.get(line.spec, -1), tuple(line.id.partition("::")[0].split("/"))
    if isinstance(line, CollectedLine) and line.requirements:
        return rank.get(line.requirements[0].split("/")[0], -1), tuple(line.id.partition("::")[0].split("/"))
    return -1, ()


def _exit_code(codes: list[int]) -> int:
    """One pytest exit code for the children: an error first, then failures, then success; 5 only if none ran a test."""
    # A child killed by a signal (a negative code) is worse than all of them.
    if min(codes) < 0:
        return min(codes)
    for code in (*_EXIT_ORDER, _NO_TESTS):
        if code in codes:
            return code
    return max(codes)


def _joined_logs(logs: list[Path], into: Path) -> Path:
    if len(logs) == 1:
        return logs[0]
    into.write_text("".join(log.read_text(encoding="utf-8", errors="replace") for log in logs), encoding="utf-8")
    return into


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
    request = SuiteRequest.for_specs(specs, collect=listing)
    command = request.command("--collect-only", "-q")
    completed = subprocess.run(command, capture_output=True, text=True, check=False, env=request.environment())  # noqa: S603
    found = {line.id: line.requirements for line in read_lines(listing) if isinstance(line, CollectedLine)}
    return found, completed.stdout + completed.stderr


def _request(adapter: Adapter, options: RunOptions, results: Path, root: Path | None = None) -> SuiteRequest:
    return SuiteRequest.for_specs(
        options.specs,
        root=root,
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
