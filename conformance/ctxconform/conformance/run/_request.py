"""The request that crosses into the pytest child: built by the runner and read by the plugin, here and nowhere else."""

from __future__ import annotations

import argparse
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from ctxconform.conformance.judge._registry import LEVELS, Level
from ctxconform.conformance.judge._specs import Spec, suite_root

if TYPE_CHECKING:
    import pytest

__all__ = ["MAX_RESTARTS", "MAX_TIMEOUT_S", "SuiteRequest", "add_options", "restarts_option", "seconds_option"]

_GROUP: Final = "ctxconform"
DEFAULT_TIMEOUT: Final = 10.0
DEFAULT_RESTARTS: Final = 5
# Beyond these a run is stuck, not patient; a larger timeout also overflows the waits of threads and processes.
MAX_TIMEOUT_S: Final = 3600.0
MAX_RESTARTS: Final = 1000


def seconds_option(text: str) -> float:
    """A call timeout from the command line: a finite number of seconds above 0, at most MAX_TIMEOUT_S."""
    value = float(text)
    if not (math.isfinite(value) and 0 < value <= MAX_TIMEOUT_S):
        raise argparse.ArgumentTypeError(f"give a number of seconds above 0 and at most {MAX_TIMEOUT_S:g}, not {text!r}")
    return value


def restarts_option(text: str) -> int:
    """A restart budget from the command line: a whole number from 0 to MAX_RESTARTS."""
    value = int(text)
    if not 0 <= value <= MAX_RESTARTS:
        raise argparse.ArgumentTypeError(f"give a whole number from 0 to {MAX_RESTARTS}, not {text!r}")
    return value


@dataclass(frozen=True)
class SuiteRequest:
    """What one pytest child is asked to do: which suites, against which adapter, selected how, recorded where."""

    suites: tuple[Path, ...] = ()
    adapter: str = "reference"
    results: Path | None = None
    collect: Path | None = None
    level: Level = "MAY"
    timeout: float = DEFAULT_TIMEOUT
    max_restarts: int = DEFAULT_RESTARTS
    progress: bool = False
    requirements: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()
    keyword: str | None = None
    seed: int | None = None
    profile: str | None = None
    root: Path | None = None
    basetemp: Path | None = None

    @classmethod
    def for_specs(cls, specs: tuple[Spec, ...] | list[Spec], **fields: object) -> SuiteRequest:
        """A request to run the suites of `specs`."""
        return cls(suites=tuple(spec.suite for spec in specs), **fields)  # type: ignore[arg-type]

    def arguments(self) -> list[str]:
        """The arguments of pytest for this request: the suites, the kit's pytest.ini, and the plugin's options."""
        # The confcutdir keeps the conftest files of whatever project holds a suite out of the run.
        root = str(self.rootdir)
        args = [*map(str, self.suites), "-c", str(suite_root() / "pytest.ini"), "--rootdir", root, "--confcutdir", root]
        args += [f"--ctxconform-adapter={self.adapter}", f"--ctxconform-level={self.level}"]
        args += [f"--ctxconform-timeout={self.timeout}", f"--ctxconform-max-restarts={self.max_restarts}"]
        args += [f"--ctxconform-results={self.results}"] if self.results else []
        args += [f"--ctxconform-collect={self.collect}"] if self.collect else []
        args += ["--ctxconform-progress"] if self.progress else []
        args += [f"--ctxconform-requirement={rid}" for rid in self.requirements]
        args += [f"--ctxconform-test={test}" for test in self.tests]
        args += ["-k", self.keyword] if self.keyword else []
        args += [f"--hypothesis-seed={self.seed}"] if self.seed is not None else []
        args += [f"--hypothesis-profile={self.profile}"] if self.profile else []
        # pytest otherwise keeps temporary folders under the user's `pytest-of-USER`, and prunes that folder's older
        # ones, another project's included: a run uses a folder of its own.
        args += [f"--basetemp={self.basetemp}"] if self.basetemp else []
        return args

    def command(self, *extra: str) -> list[str]:
        """The command that runs this request in a child Python."""
        return [sys.executable, "-m", "pytest", *self.arguments(), *extra]

    @staticmethod
    def environment() -> dict[str, str]:
        """The child's environment: this one, with hypothesis's defaults for a suite run where it does not set them."""
        # No other package's hypothesis extension: the suites use none, and loading one costs every run (trio's, which
        # a dev install brings, 0.7 s). Hypothesis's files in the user's cache, not a `.hypothesis` folder in whatever
        # folder the run starts from: its table of the characters a codec encodes takes 1-2 s to build, once.
        return {"HYPOTHESIS_NO_PLUGINS": "1", **_hypothesis_storage(), **os.environ}

    @property
    def rootdir(self) -> Path:
        """The folder test ids are relative to: `root` when given, else the one holding every suite."""
        if self.root is not None:
            return self.root
        parents = [str(suite.parent) for suite in self.suites] or [str(suite_root())]
        return Path(os.path.commonpath(parents))

    @classmethod
    def from_config(cls, config: pytest.Config) -> SuiteRequest:
        """The request as the plugin reads it from pytest's options."""
        results, collect = config.getoption("--ctxconform-results"), config.getoption("--ctxconform-collect")
        return cls(
            adapter=config.getoption("--ctxconform-adapter") or "reference",
            results=Path(results) if results else None,
            collect=Path(collect) if collect else None,
            level=config.getoption("--ctxconform-level"),
            timeout=config.getoption("--ctxconform-timeout"),
            max_restarts=config.getoption("--ctxconform-max-restarts"),
            progress=config.getoption("--ctxconform-progress"),
            requirements=tuple(config.getoption("--ctxconform-requirement")),
            tests=tuple(config.getoption("--ctxconform-test")),
            seed=config.getoption("hypothesis_seed", None),
        )


def add_options(parser: pytest.Parser) -> None:
    """Add the options a request is carried in to pytest's command line."""
    group = parser.getgroup(_GROUP, "conformance suites")
    group.addoption(
        "--ctxconform-adapter", default=None, help="connection string of the implementation under test (default: reference)"
    )
    group.addoption(
        "--ctxconform-level", default="MAY", choices=LEVELS, help="run tests of requirements at this level or stronger"
    )
    group.addoption("--ctxconform-results", default=None, help="write one JSON line per test result to this file")
    group.addoption("--ctxconform-timeout", type=seconds_option, default=DEFAULT_TIMEOUT, help="seconds each call may take")
    group.addoption(
        "--ctxconform-max-restarts",
        type=restarts_option,
        default=DEFAULT_RESTARTS,
        help="how often a broken implementation is restarted",
    )
    group.addoption("--ctxconform-progress", action="store_true", help="print a compact progress line on stderr")
    group.addoption("--ctxconform-collect", default=None, help="write each collected test's requirement ids to this file")
    group.addoption(
        "--ctxconform-requirement", action="append", default=[], help="run only the tests naming this requirement id (repeatable)"
    )
    group.addoption("--ctxconform-test", action="append", default=[], help="run only the test of this exact node id (repeatable)")


def _hypothesis_storage() -> dict[str, str]:
    """HYPOTHESIS_STORAGE_DIRECTORY in the user's cache folder, or nothing when the user has no home to cache in."""
    cache = os.environ.get("XDG_CACHE_HOME")
    try:
        folder = Path(cache) if cache and Path(cache).is_absolute() else Path.home() / ".cache"
    except (RuntimeError, KeyError):  # no HOME and no password entry: hypothesis's own default stands
        return {}
    return {"HYPOTHESIS_STORAGE_DIRECTORY": str(folder / "ctxconform" / "hypothesis")}
