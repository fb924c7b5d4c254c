"""Every exception the harness raises, with typed fields; each message says what to do."""

from __future__ import annotations

__all__ = [
    "ConfigurationError",
    "ImplementationCrashed",
    "ImplementationErrored",
    "ImplementationTimeout",
    "ImplementationUnavailable",
    "ProtocolViolation",
    "RequirementFailure",
    "TransportFailure",
    "Uncarriable",
    "UndeclaredRequirement",
]


class ConfigurationError(Exception):
    """The kit was asked for something it cannot do: a bad option, adapter string or file (exit code 2)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ImplementationUnavailable(Exception):
    """The implementation could not be started at all (exit code 3)."""

    def __init__(self, adapter: str, reason: str) -> None:
        super().__init__(f"cannot start {adapter!r}: {reason}")
        self.adapter = adapter
        self.reason = reason


class TransportFailure(Exception):
    """The implementation failed at the protocol level; `verdict` names how."""

    verdict = "PROTOCOL"

    def __init__(self, message: str, *, detail: str = "", charged: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail
        # The requirements the call in flight served; the client sets them, the plugin charges them.
        self.charged = charged


class ImplementationTimeout(TransportFailure):
    """The implementation did not answer within the call's timeout."""

    verdict = "TIMEOUT"


class ImplementationCrashed(TransportFailure):
    """The implementation's process exited or closed its output while a call was pending."""

    verdict = "CRASH"


class ProtocolViolation(TransportFailure):
    """The implementation wrote something that is not a valid protocol message, or answered the wrong seq."""

    verdict = "PROTOCOL"


class ImplementationErrored(TransportFailure):
    """The implementation answered `errored`: it failed unexpectedly instead of giving a result or a spec error."""

    verdict = "ERRORED"


class _Absent:
    """The value of `sent`, `received` or `expected` when a failure has none to show."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()


class RequirementFailure(AssertionError):
    """A check failed: the requirement it breaks, why, and what was sent, received and expected (clipped copies)."""

    def __init__(
        self,
        requirement: str,
        message: str,
        *,
        sent: object = ABSENT,
        received: object = ABSENT,
        expected: object = ABSENT,
    ) -> None:
        # Imported here: the judge wing imports this module, and importing it first would be a cycle.
        from ctxconform.conformance.judge._clip import clip, clip_text  # noqa: PLC0415

        super().__init__(f"[{requirement}] {clip_text(message)}")
        self.requirement = requirement
        self.message = clip_text(message)
        # Clipped copies: hypothesis keeps failing examples' exceptions, and a received value may take 64 MiB.
        self.sent = sent if sent is ABSENT else clip(sent)
        self.received = received if received is ABSENT else clip(received)
        self.expected = expected if expected is ABSENT else clip(expected)


class UndeclaredRequirement(Exception):
    """A suite test checked a requirement it does not declare: a bug of the suite (HARNESS), never of the implementation."""

    def __init__(self, requirement: str, test: str) -> None:
        super().__init__(
            f"{test} checks {requirement} without declaring it: add it to the test's requirement marker or check another"
        )
        self.requirement = requirement
        self.test = test


class Uncarriable(Exception):
    """A call's input cannot be carried by the transport in use; the test is skipped with this reason."""

    def __init__(self, transport: str, reason: str) -> None:
        super().__init__(f"the {transport} transport cannot carry this input: {reason}")
        self.transport = transport
        self.reason = reason
