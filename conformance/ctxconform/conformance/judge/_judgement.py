"""Judging one test: its verdict, what it charges to each requirement, and a message a reader can act on.

The charging rules (README, "How verdicts are made"): a check charges exactly the requirement it names; a
requirement is evidenced only by checks of it that ran and held; a transport failure is charged to the requirement
the call in flight served; a test skipped for an undeclared feature charges SKIP to that feature's requirements;
HARNESS is kept for bugs of the kit.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Final

import pytest

from ctxconform.conformance.exceptions import (
    ABSENT,
    ConfigurationError,
    RequirementFailure,
    TransportFailure,
    Uncarriable,
    UndeclaredRequirement,
)
from ctxconform.conformance.judge._clip import clip
from ctxconform.conformance.judge._ledger import Ledger, lookup
from ctxconform.conformance.judge._results import Charge
from ctxconform.conformance.judge._specs import specs
from ctxconform.conformance.judge._verdicts import VERDICTS, Verdict, worst

__all__ = ["Failure", "Judgement", "failures_of", "judge"]

_SHOWN: Final = 1200  # characters of each JSON value in a message
_MESSAGE: Final = 8000


@dataclass(frozen=True)
class Failure:
    """One failure found in a test: the requirements it is charged to, its verdict and its description."""

    requirements: tuple[str, ...]
    verdict: Verdict
    message: str


@dataclass(frozen=True)
class Judgement:
    """How one test ended and what it charged."""

    verdict: Verdict
    charges: tuple[Charge, ...]
    message: str


def judge(report: pytest.TestReport | None, call: pytest.CallInfo[None] | None, ledger: Ledger) -> Judgement:
    """Judge one test from its report (None: it passed) and the ledger of the checks that held."""
    if report is None or report.passed:
        return Judgement("PASS", _charges(ledger, [], "PASS", ""), "")
    if report.skipped:
        reason = _skip_reason(report)
        return Judgement("SKIP", _charges(ledger, [], "SKIP", reason), reason)
    if call is None or call.excinfo is None:
        return Judgement(
            "HARNESS", _charges(ledger, [], "HARNESS", "the test failed outside any check"), report.longreprtext[-2000:]
        )
    found = list(failures_of(call.excinfo.value, ledger))
    if all(f.verdict == "SKIP" for f in found):
        reason = found[0].message if found else "skipped"
        return Judgement("SKIP", _charges(ledger, [], "SKIP", reason), reason)
    bad = [f for f in found if f.verdict != "SKIP"]
    verdict = worst(f.verdict for f in bad)
    message = bad[0].message if len(bad) == 1 else _numbered(bad)
    if verdict == "HARNESS" and not any(f.requirements for f in bad):
        message = f"{message}\n{report.longreprtext[-3000:]}"
    return Judgement(verdict, _charges(ledger, bad, verdict, ""), message[-_MESSAGE:])


def failures_of(error: BaseException, ledger: Ledger) -> Iterator[Failure]:
    """The failures an exception stands for, each charged by the rules in the module docstring."""
    if isinstance(error, BaseExceptionGroup):  # hypothesis: several distinct failures, each with its example
        for inner in error.exceptions:
            yield from failures_of(inner, ledger)
        return
    if isinstance(error, (pytest.skip.Exception, Uncarriable)):
        yield Failure((), "SKIP", str(error))
    elif isinstance(error, RequirementFailure):
        yield Failure((error.requirement,), "FAIL", _describe_check(error))
    elif isinstance(error, TransportFailure):
        # Without a call in flight (the implementation broke in an earlier test and could not be restarted) the
        # failure is charged to nothing: this test evidences none of its requirements.
        yield Failure(error.charged, error.verdict, _describe_transport(error, error.charged))  # type: ignore[arg-type]
    elif isinstance(error, UndeclaredRequirement):
        yield Failure((), "HARNESS", f"a bug of the suite: {error}{_where(error)}")
    elif isinstance(error, AssertionError):
        charged = _fallback(ledger)
        note = "a check that names no requirement failed; it is charged to the test's first requirement not yet evidenced"
        yield Failure(charged, "FAIL", f"{type(error).__name__}: {error}\n{note}{_where(error)}{_notes(error)}")
    else:
        yield Failure((), "HARNESS", f"a bug of the kit: {type(error).__name__}: {error}{_where(error)}{_notes(error)}")


def _fallback(ledger: Ledger) -> tuple[str, ...]:
    order = sorted(ledger.declared)
    fresh = [rid for rid in order if rid not in ledger.held]
    return tuple((fresh or order)[:1])


def _charges(ledger: Ledger, failures: list[Failure], verdict: Verdict, reason: str) -> tuple[Charge, ...]:
    charged: dict[str, Charge] = {}
    for failure in failures:
        for rid in failure.requirements:
            previous = charged.get(rid)
            if previous is None or VERDICTS.index(failure.verdict) < VERDICTS.index(previous.verdict):
                charged[rid] = Charge(
                    requirement=rid, verdict=failure.verdict, checks=ledger.held[rid], message=failure.message[:500]
                )
    for rid, count in ledger.held.items():
        charged.setdefault(rid, Charge(requirement=rid, verdict="PASS", checks=count))
    for rid, why in ledger.skipped.items():
        charged.setdefault(rid, Charge(requirement=rid, verdict="SKIP", message=why))
    if verdict in ("SKIP", "HARNESS"):
        for rid in sorted(ledger.declared - charged.keys()):
            charged[rid] = Charge(requirement=rid, verdict=verdict, message=reason[:500])
    return tuple(charged.values())


def _describe_check(error: RequirementFailure) -> str:
    lines = [f"[{error.requirement}] {error.message}"]
    for label, value in (("sent", error.sent), ("received", error.received), ("expected", error.expected)):
        if value is not ABSENT:
            lines.append(f"  {label}: {_json(value)}")
    lines.append(f"  the spec says: {_quote(error.requirement)}")
    return "\n".join(lines) + _where(error) + _notes(error)


def _describe_transport(error: TransportFailure, charged: tuple[str, ...]) -> str:
    detail = f"\n  stderr: {error.detail[-800:]}" if error.detail else ""
    charge = f"charged to {', '.join(charged)}" if charged else "charged to no requirement: no call of this test was in flight"
    return f"{error.verdict}: {error.message}{detail}\n  {charge}{_where(error)}{_notes(error)}"


def _quote(requirement: str) -> str:
    try:
        found = lookup(requirement)
    except ConfigurationError:
        return "(unknown requirement)"
    return f'"{found.quote}" ({found.section})'


def _json(value: object) -> str:
    text = json.dumps(clip(value), ensure_ascii=False, default=repr)
    return text if len(text) <= _SHOWN else f"{text[:_SHOWN]}... ({len(text) - _SHOWN} more characters)"


def _where(error: BaseException) -> str:
    """The suite line that made the failing check: the innermost frame in a test module, else in the suites."""
    frames = list(_frames(error.__traceback__))
    folders = tuple(spec.suite.parent for spec in specs().values())
    in_suites = [(path, line, name) for path, line, name in frames if _inside(path, folders)]
    tests = [frame for frame in in_suites if frame[0].name.startswith("test_")]
    chosen = tests or in_suites
    if not chosen:
        return ""
    path, line, name = chosen[-1]
    folder = next(folder for folder in folders if _inside(path, (folder,)))
    return f"\n  at {path.resolve().relative_to(folder)}:{line} in {name}"


def _frames(tb: TracebackType | None) -> Iterator[tuple[Path, int, str]]:
    while tb is not None:
        yield Path(tb.tb_frame.f_code.co_filename), tb.tb_lineno, tb.tb_frame.f_code.co_name
        tb = tb.tb_next


def _inside(path: Path, folders: tuple[Path, ...]) -> bool:
    resolved = path.resolve()
    return any(resolved.is_relative_to(folder) for folder in folders)


def _notes(error: BaseException) -> str:
    # Hypothesis's notes: the minimal example, then an "Explanation" of covered lines, which are the kit's, not the user's.
    text = "\n".join(str(note) for note in getattr(error, "__notes__", ()))
    text = text.split("\nExplanation:", 1)[0].strip()
    return ("\n" + text[-2000:]) if text else ""


def _numbered(failures: list[Failure]) -> str:
    parts = [f"{len(failures)} distinct failures:"]
    parts += [f"({index}) {failure.message}" for index, failure in enumerate(failures, start=1)]
    return "\n".join(parts)


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):  # (path, line, "Skipped: reason")
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)
