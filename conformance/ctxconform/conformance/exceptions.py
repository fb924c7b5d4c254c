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

    def __init__(self, message: str, *, detail: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail


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


class RequirementFailure(AssertionError):
    """A check failed and it is known which requirement it breaks."""

    def __init__(self, requirement: str, message: str) -> None:
        super().__init__(f"[{requirement}] {message}")
        self.requirement = requirement
        self.message = message
