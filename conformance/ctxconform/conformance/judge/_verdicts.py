"""Verdicts: how a test ended, and how a requirement's verdict follows from its tests."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal

__all__ = ["BAD", "VERDICTS", "Verdict", "worst"]

Verdict = Literal["PASS", "FAIL", "SKIP", "XFAIL", "XPASS", "ERRORED", "TIMEOUT", "CRASH", "PROTOCOL", "HARNESS", "UNTESTED"]
# Worst first: a requirement takes the worst verdict of the tests that name it.
VERDICTS: Final[tuple[Verdict, ...]] = (
    "HARNESS",
    "CRASH",
    "TIMEOUT",
    "PROTOCOL",
    "ERRORED",
    "FAIL",
    "XPASS",
    "XFAIL",
    "PASS",
    "SKIP",
    "UNTESTED",
)
BAD: Final[frozenset[str]] = frozenset({"HARNESS", "CRASH", "TIMEOUT", "PROTOCOL", "ERRORED", "FAIL", "XPASS"})


def worst(verdicts: Iterable[Verdict]) -> Verdict:
    """Return the worst of some verdicts (UNTESTED when there are none)."""
    return min(verdicts, key=VERDICTS.index, default="UNTESTED")
