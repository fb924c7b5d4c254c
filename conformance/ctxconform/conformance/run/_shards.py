"""Splitting a run's test files over child processes so that they finish together.

Each suite may keep `durations.json` beside its registry: the seconds each of its test files took against the
reference in-process (`nox -s durations` measures them). A file it does not list (a new file, a suite without the
list) is estimated from its size at the rate of the files that are listed. The files are dealt out longest first,
each to the child with the least work so far, so one spec's files may run in several children.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ctxconform.conformance.judge._specs import Spec

__all__ = ["DURATIONS", "Shard", "SuiteFile", "shards", "suite_files"]

DURATIONS: Final = "durations.json"
_SECONDS_PER_BYTE: Final = 6e-5  # when no suite lists a duration: about what the kit's suites take


@dataclass(frozen=True)
class SuiteFile:
    """One test file of a suite and the seconds it is expected to take."""

    spec: Spec
    path: Path
    seconds: float | None


@dataclass(frozen=True)
class Shard:
    """What one child runs: test files (or whole suites), with the specs they belong to, in the run's order."""

    specs: tuple[Spec, ...]
    paths: tuple[Path, ...]


def shards(specs: tuple[Spec, ...], jobs: int) -> list[Shard]:
    """At most `jobs` shards of about equal expected time holding every test file once; one child: the whole suites."""
    if jobs <= 1 or not specs:
        return [Shard(specs, tuple(spec.suite for spec in specs))]
    files = _estimated([file for spec in specs for file in suite_files(spec)])
    loads: list[list[SuiteFile]] = [[] for _ in range(min(jobs, len(files)))]
    totals = [0.0] * len(loads)
    for file in sorted(files, key=lambda file: file.seconds or 0.0, reverse=True):
        lightest = totals.index(min(totals))
        loads[lightest].append(file)
        totals[lightest] += file.seconds or 0.0
    order = {spec.id: n for n, spec in enumerate(specs)}
    return [_shard(load, order) for load in loads if load]


def suite_files(spec: Spec) -> list[SuiteFile]:
    """The test files of a spec's suite, each with the seconds its `durations.json` lists (None when it lists none).

    A suite with no file pytest would collect by its default names is one unit: its folder, left to pytest.
    """
    listed = _durations(spec.suite / DURATIONS)
    paths = sorted({*spec.suite.rglob("test_*.py"), *spec.suite.rglob("*_test.py")})
    if not paths:
        return [SuiteFile(spec, spec.suite, None)]
    return [SuiteFile(spec, path, listed.get(path.relative_to(spec.suite).as_posix())) for path in paths]


def _estimated(files: list[SuiteFile]) -> list[SuiteFile]:
    """The files, those without a listed duration estimated from their size at the listed files' rate."""
    listed = [file for file in files if file.seconds is not None]
    size = sum(_size(file.path) for file in listed)
    rate = sum(file.seconds or 0.0 for file in listed) / size if size else _SECONDS_PER_BYTE
    return [file if file.seconds is not None else SuiteFile(file.spec, file.path, _size(file.path) * rate) for file in files]


def _size(path: Path) -> int:
    """Bytes of a test file, or of the Python files of a folder."""
    return sum(file.stat().st_size for file in path.rglob("*.py")) if path.is_dir() else path.stat().st_size


def _shard(load: list[SuiteFile], order: dict[str, int]) -> Shard:
    chosen = sorted(load, key=lambda file: (order[file.spec.id], file.path))
    specs = tuple(dict.fromkeys(file.spec for file in chosen))
    return Shard(specs, tuple(file.path for file in chosen))


def _durations(path: Path) -> dict[str, float]:
    """A suite's listed durations, by file path relative to the suite; none when the list is missing or unreadable."""
    try:
        listed = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(listed, dict):
        return {}
    return {
        str(name): float(seconds)
        for name, seconds in listed.items()
        if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and seconds >= 0
    }
