"""The checks suite tests make: each names the requirement it checks, notes when it held, and fails that one alone."""

from __future__ import annotations

from typing import Any

from ctxconform.conformance.exceptions import ABSENT, RequirementFailure
from ctxconform.conformance.judge._ledger import current_ledger
from ctxconform.conformance.judge._schemas import schema_errors

__all__ = ["check", "check_equal", "check_in", "check_schema", "fail"]


def check(
    requirement: str, holds: bool, message: str, *, sent: object = ABSENT, received: object = ABSENT, expected: object = ABSENT
) -> None:
    """Hold `requirement` when `holds`; otherwise fail it with `message` and what was sent, received and expected."""
    ledger = current_ledger()
    ledger.guard(requirement)
    if not holds:
        raise RequirementFailure(requirement, message, sent=sent, received=received, expected=expected)
    ledger.hold(requirement)


def fail(requirement: str, message: str, *, sent: object = ABSENT, received: object = ABSENT, expected: object = ABSENT) -> None:
    """Fail `requirement` unconditionally (a check whose condition the caller already tested)."""
    check(requirement, False, message, sent=sent, received=received, expected=expected)


def check_equal(requirement: str, received: object, expected: object, what: str, *, sent: object = ABSENT) -> None:
    """Check that `what` came back equal to `expected`."""
    check(
        requirement, received == expected, f"{what} is not as the spec requires", sent=sent, received=received, expected=expected
    )


def check_in(requirement: str, received: object, allowed: Any, what: str, *, sent: object = ABSENT) -> None:
    """Check that `what` is one of the `allowed` values."""
    check(
        requirement,
        received in allowed,
        f"{what} is none of the values the spec allows",
        sent=sent,
        received=received,
        expected={"one of": sorted(allowed, key=str) if isinstance(allowed, (set, frozenset)) else allowed},
    )


def check_schema(requirement: str, schema: str, value: object, what: str, *, sent: object = ABSENT) -> None:
    """Check that `value` matches the kit schema `schema` (a path below schemas/)."""
    errors = schema_errors(schema, value)
    check(requirement, not errors, f"{what} does not match {schema}: {'; '.join(errors)}", sent=sent, received=value)
