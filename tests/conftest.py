"""Fixtures shared by the kit's own tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import COMPARED, COMPARISON_SELECTION, Cli

pytest_plugins = ["pytester"]


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    """The command line, run from a scratch folder."""
    return Cli(tmp_path)


@pytest.fixture(scope="session")
def comparison(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report folder of one comparison run: the reference in-process and over stdio, and a mutant, side by side."""
    folder = tmp_path_factory.mktemp("comparison")
    adapters = [arg for adapter in COMPARED for arg in ("--adapter", adapter)]
    done = Cli(folder)("run", *adapters, *COMPARISON_SELECTION, "--report-dir", "reports")
    assert done.returncode == 1, done.stdout + done.stderr
    (folder / "stdout.txt").write_text(done.stdout, encoding="utf-8")
    return folder / "reports"
