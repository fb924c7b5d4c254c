"""Fixtures shared by the kit's own tests."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from helpers import COMPARED, COMPARISON_SELECTION, Cli

pytest_plugins = ["pytester"]
# The toy spec's suite runs in its own pytest child (test_toy_spec.py), against toy implementations.
collect_ignore = ["toy"]


def pytest_configure() -> None:
    """The suite runs of the kit's tests take the dev profile unless a test names one: they check the harness."""
    # The ci profile draws twice the examples and makes a run half as long again; depth is the main job's concern.
    os.environ.setdefault("CTXCONFORM_PROFILE", "dev")


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    """The command line, run from a scratch folder."""
    return Cli(tmp_path)


@pytest.fixture(scope="session")
def comparison(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report folder of one comparison run: the reference in-process and over stdio, and a mutant, side by side."""
    # Under xdist the workers share one run: the first to claim it runs it, the others wait for its outcome.
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "comparison"
    try:
        folder.mkdir()
    except FileExistsError:
        return _wait_for(folder)
    adapters = [arg for adapter in COMPARED for arg in ("--adapter", adapter)]
    done = Cli(folder)("run", *adapters, *COMPARISON_SELECTION, "--report-dir", "reports")
    (folder / "stdout.txt").write_text(done.stdout, encoding="utf-8")
    (folder / "outcome").write_text(f"{done.returncode}\n{done.stdout}{done.stderr}", encoding="utf-8")
    assert done.returncode == 1, done.stdout + done.stderr
    return folder / "reports"


def _wait_for(folder: Path) -> Path:
    deadline = time.monotonic() + 900
    while not (folder / "outcome").exists():
        assert time.monotonic() < deadline, "the comparison run of another worker did not finish in 15 minutes"
        time.sleep(0.5)
    code, _, output = (folder / "outcome").read_text(encoding="utf-8").partition("\n")
    assert code == "1", output
    return folder / "reports"
