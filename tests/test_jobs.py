"""`ctxconform run -j N`: the test files split over children at once, with the same tests, order and verdicts as one child."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ctxconform.conformance.cli._run import AUTO_JOBS, _jobs
from ctxconform.conformance.judge._specs import Spec, resolve_specs
from ctxconform.conformance.run._runner import _exit_code
from ctxconform.conformance.run._shards import DURATIONS, shards, suite_files
from ctxconform.conformance.transports import parse_adapter
from helpers import Cli

REQUIREMENTS = (
    "shared-context/3.3/version-increments",
    "read-context/loading-order/response-key-order",
    "content-provider/3/deterministic-composition",
)


def test_shards_hold_every_test_file_once_in_the_runs_order() -> None:
    """Every test file lands in exactly one of at most N shards, each in the run's order; one job runs whole suites."""
    chosen = tuple(resolve_specs(None))
    files = [file.path for spec in chosen for file in suite_files(spec)]
    assert shards(chosen, 1)[0].paths == tuple(spec.suite for spec in chosen)
    for jobs in (2, 3, len(chosen), 64):
        parts = shards(chosen, jobs)
        assert len(parts) == min(jobs, len(files))
        assert sorted(path for part in parts for path in part.paths) == sorted(files)
        for part in parts:
            assert list(part.paths) == [path for path in files if path in part.paths]
            assert list(part.specs) == [spec for spec in chosen if any(path.is_relative_to(spec.suite) for path in part.paths)]


def toy_suite(folder: Path, sizes: dict[str, int], durations: object = None) -> Spec:
    """A spec whose suite holds test files of the given sizes in bytes, and the durations.json given (if any)."""
    folder.mkdir()
    for name, size in sizes.items():
        (folder / name).write_text("#" * size, encoding="utf-8")
    if durations is not None:
        (folder / DURATIONS).write_text(durations if isinstance(durations, str) else json.dumps(durations), encoding="utf-8")
    return Spec("toy", folder)


def shard_seconds(spec: Spec, jobs: int, seconds: dict[str, float]) -> list[float]:
    """The seconds each shard of `spec` is expected to take, by the given seconds of each file."""
    return sorted(sum(seconds[path.name] for path in part.paths) for part in shards((spec,), jobs))


def test_listed_durations_split_a_suite_into_shards_that_finish_together(tmp_path: Path) -> None:
    """Files are dealt longest first to the least loaded shard: 5, 4, 3, 2, 1, 1 seconds over two make 8 and 8."""
    seconds = {"test_a.py": 5, "test_b.py": 4, "test_c.py": 3, "test_d.py": 2, "test_e.py": 1, "test_f.py": 1}
    spec = toy_suite(tmp_path / "toy", dict.fromkeys(seconds, 10), seconds)
    assert shard_seconds(spec, 2, seconds) == [8, 8]
    assert shard_seconds(spec, 3, seconds) == [5, 5, 6]


def test_a_file_the_durations_do_not_list_is_estimated_from_its_size(tmp_path: Path) -> None:
    """An unlisted file costs its size at the listed files' rate: 3,000 bytes at 1 s per 1,000 is a shard of its own."""
    spec = toy_suite(
        tmp_path / "toy", {"test_a.py": 1000, "test_b.py": 1000, "test_new.py": 3000}, {"test_a.py": 1, "test_b.py": 1}
    )
    parts = shards((spec,), 2)
    assert sorted(len(part.paths) for part in parts) == [1, 2]
    assert any([path.name for path in part.paths] == ["test_new.py"] for part in parts)


@pytest.mark.parametrize("durations", [None, "{not json", "[1, 2]", {"test_a.py": "slow", "test_b.py": -1, "test_c.py": True}])
def test_a_missing_or_unreadable_durations_file_means_estimates_from_size(tmp_path: Path, durations: object) -> None:
    """No list, a broken one, or entries that are not seconds: every file is estimated, and still run exactly once."""
    spec = toy_suite(tmp_path / "toy", {"test_a.py": 4000, "test_b.py": 1000, "test_c.py": 1000, "test_d.py": 2000}, durations)
    assert all(file.seconds is None for file in suite_files(spec))
    parts = shards((spec,), 2)
    assert sorted(sorted(path.name for path in part.paths) for part in parts) == [
        ["test_a.py"],
        ["test_b.py", "test_c.py", "test_d.py"],
    ]


def test_files_named_either_way_pytest_collects_are_dealt_and_a_suite_without_any_runs_whole(tmp_path: Path) -> None:
    """test_*.py and *_test.py files are units of their own; a suite with neither is dealt as its folder."""
    named = toy_suite(tmp_path / "named", {"test_a.py": 10, "b_test.py": 10, "helper.py": 10})
    bare = toy_suite(tmp_path / "bare", {"checks.py": 10})
    parts = shards((named, bare), 3)
    assert sorted(path.name for part in parts for path in part.paths) == ["b_test.py", "bare", "test_a.py"]


def test_every_suite_of_the_kit_lists_the_duration_of_each_of_its_test_files() -> None:
    """Each kit suite's durations.json names exactly its test files (run `nox -s durations` after adding or renaming one)."""
    for spec in resolve_specs(None):
        listed = json.loads((spec.suite / DURATIONS).read_text(encoding="utf-8"))
        assert sorted(listed) == sorted(file.path.relative_to(spec.suite).as_posix() for file in suite_files(spec)), spec.id
        assert all(isinstance(seconds, float | int) and seconds >= 0 for seconds in listed.values())


def jobs_for(*argv: str) -> int:
    """The jobs `ctxconform run ARGV` would use."""
    from ctxconform.conformance.cli._main import _parser  # noqa: PLC0415 - only this helper needs it

    options = _parser().parse_args(["run", *argv])
    return _jobs(options, [parse_adapter(text) for text in options.adapter or ["reference"]])


def test_a_whole_run_uses_a_child_per_cpu_unless_children_would_share_or_idle() -> None:
    """Unasked, a whole run starts one child per CPU (at most AUTO_JOBS); a selection or a server it did not start, one."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    assert jobs_for() == min(AUTO_JOBS, cpus)
    assert jobs_for("--adapter", "stdio:python -m somewhere") == min(AUTO_JOBS, cpus)
    assert jobs_for("--adapter", "http://127.0.0.1:9") == 1
    assert jobs_for("--adapter", "reference", "--adapter", "mcp+http://127.0.0.1:9/mcp") == 1
    for selection in (
        ["--test", "x.py::t"],
        ["--keyword", "write"],
        ["--requirement", "shared-context/3.3/version-increments"],
        ["--level", "MUST"],
    ):
        assert jobs_for(*selection) == 1
    assert jobs_for("-j", "3", "--keyword", "write") == 3


@pytest.mark.parametrize(
    ("codes", "expected"),
    [([0, 0], 0), ([0, 1], 1), ([5, 0], 0), ([5, 5], 5), ([1, 3], 3), ([0, -9], -9), ([2, 1], 2)],
)
def test_the_children_exit_codes_give_the_worst_one(codes: list[int], expected: int) -> None:
    """An error beats failures, failures beat success, and a group with no test does not make the run one."""
    assert _exit_code(codes) == expected


def _tests(report_dir: Path) -> list[tuple[str, str, list[tuple[str, str]]]]:
    (implementation,) = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))["implementations"]
    return [(t["id"], t["verdict"], [(c["requirement"], c["verdict"]) for c in t["charges"]]) for t in implementation["tests"]]


def test_a_run_in_three_children_reports_what_one_child_does(tmp_path: Path) -> None:
    """-j 3 over three specs gives the same test ids, order, verdicts and charges as -j 1."""
    cli = Cli(tmp_path)
    selection = [arg for rid in REQUIREMENTS for arg in ("--requirement", rid)]
    specs = [arg for rid in REQUIREMENTS for arg in ("--spec", rid.split("/")[0])]
    for jobs in ("1", "3"):
        done = cli("run", "-j", jobs, *specs, *selection, "--seed", "5", "--quiet", "--report-dir", f"r{jobs}")
        assert done.returncode == 0, done.stdout + done.stderr
    one, three = _tests(tmp_path / "r1"), _tests(tmp_path / "r3")
    assert len({test_id.split("/")[0] for test_id, _, _ in one}) == 3  # the tests of three suites ran
    assert three == one
