"""The one client base of the suites: every call checked the same way, and charged to the requirement it serves.

A spec's suite describes its operations once (`Operations`); `Client.call` sends through the harness, skips a
request that needs a feature the implementation does not declare, turns a transport failure into one charged to the
requirement the call served, and returns a `Checked` reply whose result is checked against the operation's schema.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, ParamSpec, TypeVar

import pytest

from ctxconform.conformance.exceptions import RequirementFailure, TransportFailure, Uncarriable
from ctxconform.conformance.judge._ledger import current_ledger
from ctxconform.conformance.judge._schemas import schema_errors
from ctxconform.conformance.transports._implementation import Implementation
from ctxconform.conformance.transports._protocol import Reply

__all__ = ["Checked", "Client", "Operation", "Operations"]

Json = dict[str, Any]
P = ParamSpec("P")
T = TypeVar("T")


def _lean(method: Callable[P, T]) -> Callable[P, T]:
    """`method`, whose failures keep none of its frames' locals.

    A reply may take 64 MiB, and the kit's frames below a failing check hold it; hypothesis caches each failing
    example's exception with its traceback, so without this every failing example would keep its whole reply.
    """

    @functools.wraps(method)
    def lean(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return method(*args, **kwargs)
        except Exception as failure:
            del args, kwargs
            _forget_locals(failure.__traceback__)
            raise

    return lean


def _forget_locals(tb: TracebackType | None) -> None:
    if tb is not None:
        tb = tb.tb_next  # the wrapper's own frame is still running; those below it have ended
    while tb is not None:
        with contextlib.suppress(RuntimeError):  # a frame still running (none should be) keeps its locals
            tb.tb_frame.clear()
        tb = tb.tb_next


@dataclass(frozen=True)
class Operation:
    """What the kit checks on every call to one operation of a spec."""

    requirement: str
    schema: str | None = None
    feature: str | None = None


@dataclass(frozen=True)
class Operations:
    """A spec's operations: what each call serves, and the shape and requirement of its error objects."""

    spec: str
    table: Mapping[str, Operation]
    error_schema: str | None = None
    error_requirement: str | None = None

    def of(self, op: str, serves: str | None = None) -> Operation:
        """The rules of `op`; a call to an operation the table lacks serves `serves`, else the error requirement."""
        found = self.table.get(op)
        if found is not None:
            return found
        if serves is not None:
            return Operation(serves)
        if self.error_requirement is None:
            message = f"{self.spec} has no operation {op!r} and no error requirement: add it to the suite's Operations"
            raise LookupError(message)
        return Operation(self.error_requirement)


@dataclass(frozen=True)
class Checked:
    """One reply and what it answers: its result is read through checks that name their requirement."""

    reply: Reply
    op: str
    sent: object
    serves: str
    operation: Operation = field(repr=False)

    @property
    def ok(self) -> bool:
        """Whether the call succeeded with a result."""
        return self.reply.ok

    @property
    def code(self) -> str | None:
        """The error code, or None."""
        return self.reply.code

    @property
    def error(self) -> Json | None:
        """The error object, or None."""
        return self.reply.error

    @property
    def raw(self) -> Any:
        """The result as sent, unchecked (None for an error)."""
        return self.reply.result

    @property
    @_lean
    def result(self) -> Any:
        """The result checked against the operation's schema; a refusal fails the requirement the call serves."""
        return self._result(self.serves)

    @_lean
    def expect(self, requirement: str) -> Any:
        """Return the schema-checked result; fail `requirement` when the call was refused, hold it when it was not."""
        if requirement not in (self.operation.requirement, self.serves):
            current_ledger().guard(requirement)
        result = self._result(requirement)
        current_ledger().hold(requirement)
        return result

    def _result(self, requirement: str) -> Any:
        if not self.reply.ok:
            _call_failure(requirement, f"{self.op} was refused where the spec requires a result", self)
        schema = self.operation.schema
        errors = schema_errors(schema, self.reply.result) if schema else []
        if errors:
            _call_failure(
                self.operation.requirement, f"{self.op} answered a result that breaks {schema}: {'; '.join(errors)}", self
            )
        current_ledger().hold(self.operation.requirement)
        return self.reply.result

    @_lean
    def refused(self, requirement: str, *codes: str) -> str:
        """Fail `requirement` unless the call was refused with one of `codes` (any code when none are given)."""
        ledger = current_ledger()
        ledger.guard(requirement)
        if self.reply.ok:
            expected = {"error": {"code": " or ".join(codes) or "any spec error code"}}
            raise RequirementFailure(
                requirement,
                f"{self.op} succeeded where the spec requires a refusal",
                sent=self.sent,
                received=self.reply.result,
                expected=expected,
            )
        if codes and self.code not in codes:
            raise RequirementFailure(
                requirement,
                f"{self.op} was refused with the wrong code",
                sent=self.sent,
                received=self.reply.error,
                expected={"code": list(codes)},
            )
        ledger.hold(requirement)
        return str(self.code)


def _call_failure(requirement: str, message: str, checked: Checked) -> None:
    received = checked.reply.result if checked.reply.ok else {"error": checked.reply.error}
    raise RequirementFailure(requirement, message, sent=checked.sent, received=received)


class Client:
    """Calls one spec's operations on the implementation under test; each spec's client adds its own verbs."""

    def __init__(self, implementation: Implementation, operations: Operations) -> None:
        self.implementation = implementation
        self.operations = operations

    @property
    def spec(self) -> str:
        """The spec this client speaks."""
        return self.operations.spec

    @_lean
    def call(
        self,
        op: str,
        args: object,
        context: Json | None = None,
        *,
        serves: str | None = None,
        needs: str | tuple[str, ...] = (),
    ) -> Checked:
        """Send one call and return its checked reply; see the module docstring for what is checked and charged."""
        operation = self.operations.of(op, serves)
        ledger = current_ledger()
        for feature in (operation.feature, *((needs,) if isinstance(needs, str) else needs)):
            if feature is not None:
                ledger.need(self.spec, feature)
        served = serves or (None if ledger.setting_up else _sole(ledger.declared)) or operation.requirement
        try:
            reply = self.implementation.call(self.spec, op, args, context)
        except Uncarriable as limit:
            pytest.skip(str(limit))
        except TransportFailure as failure:
            error_requirement = self.operations.error_requirement if failure.verdict == "ERRORED" else None
            failure.charged = tuple(dict.fromkeys(r for r in (served, error_requirement) if r))
            raise
        checked = Checked(reply, op, _sent(args, context), served, operation)
        if not reply.ok and self.operations.error_schema is not None:
            self._check_error(checked)
        return checked

    def _check_error(self, checked: Checked) -> None:
        requirement = self.operations.error_requirement or checked.operation.requirement
        errors = schema_errors(str(self.operations.error_schema), checked.reply.error)
        if errors:
            _call_failure(
                requirement, f"{checked.op}'s error object breaks {self.operations.error_schema}: {'; '.join(errors)}", checked
            )
        current_ledger().hold(requirement)


def _sole(declared: frozenset[str]) -> str | None:
    return next(iter(declared)) if len(declared) == 1 else None


def _sent(args: object, context: Json | None) -> object:
    return {"args": args, "context": context} if context else args
