"""Where the kit's data lives: the installed package, or the checkout during development."""

from __future__ import annotations

from functools import cache
from pathlib import Path

__all__ = ["data_dir", "fixtures_dir", "schemas_dir"]

_HERE = Path(__file__).resolve().parent


@cache
def data_dir() -> Path:
    """Return the folder holding `schemas/` and `fixtures/`."""
    checkout = _HERE.parents[3]
    # The checkout wins: an editable install may also carry a copy that goes stale.
    if (checkout / "schemas" / "protocol").is_dir() and (checkout / "pyproject.toml").is_file():
        return checkout
    return _HERE.parent / "_data"


def schemas_dir() -> Path:
    """Return the folder of JSON Schemas."""
    return data_dir() / "schemas"


def fixtures_dir() -> Path:
    """Return the folder of input fixtures and golden outputs."""
    return data_dir() / "fixtures"
