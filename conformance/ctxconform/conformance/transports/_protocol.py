"""The adapter protocol's messages as the harness sees them, checked against `schemas/protocol/` both ways."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from ctxconform.conformance.exceptions import ImplementationErrored, ProtocolViolation
from ctxconform.conformance.judge._clip import clip_text
from ctxconform.conformance.judge._schemas import schema_errors

__all__ = ["MAX_NESTING", "PROTOCOL_VERSION", "Reply", "SpecInfo", "Started", "check_incoming", "check_outgoing", "nesting"]

PROTOCOL_VERSION: Final = 1
# Deeper than this, a message is refused before anything recursive (validation, checks, reports) walks it; the
# suites send values up to 500 levels deep, and a reply may carry one back inside its envelope.
MAX_NESTING: Final = 600
MAX_NAME: Final = 256  # characters of the implementation's name, version and language shown in reports
MAX_DETAIL: Final = 2000  # characters of an implementation's own message or traceback kept in a failure
Json = dict[str, Any]


@dataclass(frozen=True)
class SpecInfo:
    """What an implementation declares for one spec: its version and optional features."""

    version: str
    features: frozenset[str]


@dataclass(frozen=True)
class Started:
    """The implementation's answer to start: who it is and what it implements."""

    name: str
    version: str
    language: str
    specs: dict[str, SpecInfo] = field(default_factory=dict)

    @classmethod
    def from_message(cls, message: Json) -> Started:
        """Build from a validated `started` message; its name, version and language clipped to MAX_NAME characters."""
        implementation = message["implementation"]
        specs = {name: SpecInfo(entry["version"], frozenset(entry["features"])) for name, entry in message["specs"].items()}
        name, version, language = (clip_text(implementation[k], MAX_NAME) for k in ("name", "version", "language"))
        return cls(name, version, language, specs)

    def describe(self) -> Json:
        """Return a JSON description for reports."""
        return {
            "name": self.name,
            "version": self.version,
            "language": self.language,
            "specs": {k: {"version": v.version, "features": sorted(v.features)} for k, v in self.specs.items()},
        }


@dataclass(frozen=True)
class Reply:
    """One answer to a call: a spec result, or a spec error (code and message)."""

    seq: int
    result: Any = None
    error: Json | None = None

    @property
    def ok(self) -> bool:
        """Whether the call succeeded with a result."""
        return self.error is None

    @property
    def code(self) -> str | None:
        """The error code, or None for a result."""
        return None if self.error is None else str(self.error["code"])

    @classmethod
    def from_message(cls, message: Json) -> Reply:
        """Build from a validated reply; an `errored` reply raises ImplementationErrored."""
        if "errored" in message:
            errored = message["errored"]
            detail = clip_text(str(errored.get("traceback", "")), MAX_DETAIL)
            raise ImplementationErrored(
                f"the implementation failed: {clip_text(str(errored['message']), MAX_DETAIL)}", detail=detail
            )
        return cls(message["seq"], message.get("result"), message.get("error"))


def check_outgoing(kind: str, message: Json) -> None:
    """Refuse to send a message that breaks the protocol schema: that would be the harness's own bug."""
    errors = schema_errors(f"protocol/{kind}.json", message)
    if errors:
        raise AssertionError(f"harness bug: outgoing {kind} message is invalid: {'; '.join(errors)}")


def check_incoming(kind: str, message: object) -> Json:
    """Return the message when it is a valid `kind` message, else raise ProtocolViolation."""
    if not isinstance(message, dict):
        raise ProtocolViolation(f"expected a JSON object ({kind}), got {type(message).__name__}")
    if nesting(message, MAX_NESTING) > MAX_NESTING:
        raise ProtocolViolation(f"the {kind} message nests lists and objects deeper than {MAX_NESTING} levels; flatten it")
    errors = schema_errors(f"protocol/{kind}.json", message)
    if errors:
        raise ProtocolViolation(f"invalid {kind} message: {'; '.join(errors[:5])}")
    return message


def nesting(value: object, limit: int) -> int:
    """How deep lists and objects nest in `value`, counted without recursion; stops once past `limit`."""
    # Level by level: a level's containers and no tuple per item, which halves the cost of every reply's check.
    level, items = 0, [value]
    while containers := [item for item in items if isinstance(item, (list, dict))]:
        level += 1
        if level > limit:
            break
        items = []
        for container in containers:
            items.extend(container.values() if isinstance(container, dict) else container)
    return level
