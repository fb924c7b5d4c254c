"""Fixtures shared by the kit's own tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import Cli

pytest_plugins = ["pytester"]


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    """The command line, run from a scratch folder."""
    return Cli(tmp_path)
