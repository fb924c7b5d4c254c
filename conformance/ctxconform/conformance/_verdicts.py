"""Verdicts: how a test ended, and how a requirement's verdict follows from its tests."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal

from ctxconform.conformance.exceptions import RequirementFailure, TransportFailure

__all__ = ["BAD", "VERDICTS", "Verdict", "classify", "worst"]

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


def classify(error: BaseException) -> tuple[Verdict, tuple[str, ...]]:
    """Return the verdict an exception means, and the requirement ids it pins (if it knows them)."""
    if isinstance(error, BaseExceptionGroup):
        found = [classify(inner) for inner in error.exceptions]
        return worst(v for v, _ in found), tuple(dict.fromkeys(r for _, ids in found for r in ids))
    if isinstance(error, TransportFailure):
        return error.verdict, ()  # type: ignore[return-value]
    if isinstance(error, RequirementFailure):
        return "FAIL", (error.requirement,)
    if isinstance(error, AssertionError):
        return "FAIL", ()
    return "HARNESS", ()


def worst(verdicts: Iterable[Verdict]) -> Verdict:
    """Return the worst of some verdicts (UNTESTED when there are none)."""
    return min(verdicts, key=VERDICTS.index, default="UNTESTED")
