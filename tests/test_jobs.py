"""`ctxconform run -j N`: the specs split over children at once, with the same tests, order and verdicts as one child."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxconform.conformance.judge._specs import resolve_specs
from ctxconform.conformance.run._runner import _exit_code, spec_groups
from helpers import Cli

REQUIREMENTS = (
    "shared-context/3.3/version-increments",
    "read-context/loading-order/response-key-order",
    "content-provider/3/deterministic-composition",
)


def test_groups_hold_every_spec_once_in_the_runs_order() -> None:
    """Every spec lands in exactly one group, at most N groups, and each group keeps the order the run gave."""
    chosen = tuple(resolve_specs(None))
    for jobs in (1, 2, 3, len(chosen), 64):
        groups = spec_groups(chosen, jobs)
        assert len(groups) == min(jobs, len(chosen))
        assert sorted(s.id for g in groups for s in g) == sorted(s.id for s in chosen)
        order = [s.id for s in chosen]
        assert all([s.id for s in g] == sorted((s.id for s in g), key=order.index) for g in groups)


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
