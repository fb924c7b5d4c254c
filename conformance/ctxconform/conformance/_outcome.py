"""A reply as a suite test sees it: success, error code, and the check that a call was refused."""

from __future__ import annotations

from dataclasses import dataclass

from ctxconform.conformance._protocol import Reply
from ctxconform.conformance.exceptions import RequirementFailure

__all__ = ["CheckedReply"]


@dataclass(frozen=True)
class CheckedReply:
    """One reply and the operation (or action) it answers; each spec's client adds its result checks."""

    reply: Reply
    action: str = ""

    @property
    def ok(self) -> bool:
        """Whether the call succeeded with a result."""
        return self.reply.ok

    @property
    def code(self) -> str | None:
        """The error code, or None."""
        return self.reply.code

    def refused(self, requirement: str, *codes: str) -> str:
        """Fail `requirement` unless the call was refused with one of `codes` (any code when none are given)."""
        what = self.action or "the call"
        if self.reply.ok:
            expected = " or ".join(codes) or "a refusal"
            raise RequirementFailure(requirement, f"{what} answered {str(self.reply.result)[:300]}; expected {expected}")
        if codes and self.code not in codes:
            raise RequirementFailure(requirement, f"{what} was refused with {self.code}; expected {' or '.join(codes)}")
        return str(self.code)
