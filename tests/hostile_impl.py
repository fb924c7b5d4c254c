"""Hostile implementations: the reference under names, versions and messages built to break reports and terminals.

`python:hostile_impl:HostileName` reports a lone surrogate and control bytes as its name, version and language;
`python:hostile_impl:HostileReplies` also answers every call with an error whose code and message are hostile;
`python hostile_impl.py` is a stdio child that writes hostile bytes to stderr and exits before it starts.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Final

from ctxconform.reference import Reference

# A lone surrogate (legal JSON: "\ud800"), a Markdown row forged after a newline, raw HTML, a javascript: link, NUL,
# and terminal escapes: an OSC window title, a screen clear, and a colour left on.
HOSTILE: Final = (
    "impl\ud800x|y\n| forged | row |\n<img src=x onerror=alert(1)>[a](javascript:alert(1))\x00\x1b]0;pwned\x07\x1b[2J\x1b[31m"
)


@dataclass
class HostileName(Reference):
    """The reference, conformant, under a hostile name, version and language."""

    name: str = HOSTILE

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        """Answer as the reference, with the hostile strings in the start reply."""
        answer = super().handle(message)
        if answer.get("type") == "started":
            answer["implementation"] = {"name": HOSTILE, "version": HOSTILE, "language": HOSTILE}
        return answer


@dataclass
class HostileReplies(HostileName):
    """Every call fails with a hostile error code and message."""

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        """Answer a call with a hostile error."""
        if message.get("type") == "call":
            return {"type": "reply", "seq": message["seq"], "error": {"code": HOSTILE, "message": HOSTILE}}
        return super().handle(message)


def raising() -> HostileName:
    """A factory that raises before there is an implementation to start."""
    raise RuntimeError("this factory needs settings it was not given")


if __name__ == "__main__":
    sys.stderr.buffer.write(HOSTILE.encode("utf-8", "replace") + b"\n")
    sys.stderr.flush()
    raise SystemExit(1)
