"""Running a suite against one adapter in a child pytest process, and reading back its result lines."""

from __future__ import annotations

import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ctxconform.conformance._adapters import Adapter
from ctxconform.conformance._results import CollectedLine, ResultLine, read_lines
from ctxconform.conformance._specs import SpecSuite, suite_root

__all__ = ["RunOptions", "SuiteRun", "collect_requirements", "run_suite"]


@dataclass(frozen=True)
class RunOptions:
    """What every suite run of one `ctxconform run` shares."""

    specs: tuple[SpecSuite, ...]
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
        specs = " ".join(f"--spec {s.spec}" for s in self.specs)
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
    command = [*_pytest(options.specs), *_plugin_options(adapter, options, results)]
    started = time.monotonic()
    with log.open("w", encoding="utf-8") as out:
        completed = subprocess.run(command, stdout=out, stderr=None if options.progress else out, check=False)  # noqa: S603
    return SuiteRun(read_lines(results), completed.returncode, time.monotonic() - started, log)


def collect_requirements(specs: list[SpecSuite], work_dir: Path) -> tuple[dict[str, list[str]], str]:
    """Collect the suites without running them; return {test id: requirement ids} and pytest's output."""
    listing = work_dir / "collected.jsonl"
    listing.unlink(missing_ok=True)
    command = [*_pytest(specs), "--collect-only", "-q", f"--ctxconform-collect={listing}"]
    completed = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
    found = {line.id: line.requirements for line in read_lines(listing) if isinstance(line, CollectedLine)}
    return found, completed.stdout + completed.stderr


def _pytest(specs: tuple[SpecSuite, ...] | list[SpecSuite]) -> list[str]:
    root = suite_root()
    return [
        sys.executable,
        "-m",
        "pytest",
        *(str(s.directory) for s in specs),
        "-c",
        str(root / "pytest.ini"),
        "--rootdir",
        str(root),
    ]


def _plugin_options(adapter: Adapter, options: RunOptions, results: Path) -> list[str]:
    args = [
        "-q",
        "--no-header",
        "--tb=short",
        f"--ctxconform-adapter={adapter.text}",
        f"--ctxconform-results={results}",
        f"--ctxconform-level={options.level}",
        f"--ctxconform-timeout={options.timeout}",
        f"--ctxconform-max-restarts={options.max_restarts}",
        f"--hypothesis-seed={options.seed}",
        f"--hypothesis-profile={options.profile}",
    ]
    if options.progress:
        args.append("--ctxconform-progress")
    if options.keyword:
        args += ["-k", options.keyword]
    args += [f"--ctxconform-test={test}" for test in options.tests]
    args += [f"--ctxconform-requirement={rid}" for rid in options.requirements]
    return args
