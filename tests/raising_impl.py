"""In-process implementations that fail in ways a plain `except ValueError` misses; every test must still report.

`python:raising_impl:RaisesUnicodeError` raises UnicodeEncodeError, a lone surrogate in its message, on every list_keys
call; `RaisesSystemExit` calls sys.exit there; `SurrogateReplies` answers it with a result holding lone surrogates;
`KillsItsProcess` sends SIGKILL to the process it runs in (the suite's pytest child) on its first list_keys call.
"""

from __future__ import annotations

import os
import signal
import sys
from dataclasses import dataclass
from typing import Any, Final

from ctxconform.reference import Reference

LONE: Final = "\ud800"


def _lists_keys(message: dict[str, Any]) -> bool:
    args = message.get("args")
    return message.get("type") == "call" and isinstance(args, dict) and args.get("action") == "list_keys"


@dataclass
class RaisesUnicodeError(Reference):
    """The reference, except that list_keys raises UnicodeEncodeError with a lone surrogate in its message."""

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        """Answer as the reference; list_keys encodes a lone surrogate and raises."""
        if _lists_keys(message):
            raise UnicodeEncodeError("utf-8", LONE, 0, 1, f"surrogates not allowed: {LONE}")
        return super().handle(message)


@dataclass
class SurrogateReplies(Reference):
    """The reference, except that list_keys answers a result holding a lone surrogate."""

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        """Answer as the reference; list_keys answers with a lone surrogate in its result."""
        answer = super().handle(message)
        if _lists_keys(message) and isinstance(answer.get("result"), dict):
            answer["result"] = {**answer["result"], "keys": [{"key": LONE}], LONE: LONE}
        return answer


@dataclass
class RaisesSystemExit(Reference):
    """The reference, except that list_keys calls sys.exit, which is no Exception."""

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        """Answer as the reference; list_keys exits."""
        if _lists_keys(message):
            sys.exit(f"exit {LONE}")
        return super().handle(message)


@dataclass
class KillsItsProcess(Reference):
    """The reference, except that list_keys kills the process it runs in: no test after it can report itself."""

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        """Answer as the reference; list_keys sends SIGKILL to this process."""
        if _lists_keys(message):
            os.kill(os.getpid(), signal.SIGKILL)
        return super().handle(message)
