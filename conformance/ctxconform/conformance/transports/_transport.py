"""What every transport provides: send one protocol message, get one decoded message back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

__all__ = ["Translator", "Transport", "command_for", "start_environment"]


class Transport(Protocol):
    """A channel to one running implementation."""

    def open(self) -> None:
        """Make the implementation ready (start a process, build an object); raise ImplementationUnavailable."""

    def exchange(self, message: dict[str, Any], timeout: float) -> object:
        """Send a message and return the decoded answer; raise a TransportFailure when that fails."""

    def close(self, timeout: float) -> None:
        """Stop the implementation and release everything; never raises, never leaves a process behind."""


class Translator:
    """The `exchange` of a transport that speaks another protocol: start, stop and each call are translated."""

    def exchange(self, message: dict[str, Any], timeout: float) -> object:
        """Translate one protocol message and the answer back."""
        if message["type"] == "start":
            return self._start(message, timeout)
        if message["type"] == "stop":
            self.close(timeout)
            return {"type": "stopped"}
        return {"type": "reply", "seq": message["seq"], **self._call(message, timeout)}

    def close(self, timeout: float) -> None:
        """Release the connection (and end the implementation, when the transport started it)."""
        raise NotImplementedError

    def _start(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        """The `started` answer to a start message."""
        raise NotImplementedError

    def _call(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        """The reply body (`result`, `error` or `errored`) of a call message."""
        raise NotImplementedError


def start_environment(message: Mapping[str, Any]) -> dict[str, str]:
    """The CTXCONFORM_* variables a child server learns the start message from: the state dir and every option."""
    env = {"CTXCONFORM_STATE_DIR": str(message["state_dir"])}
    for options in (message.get("options") or {}).values():
        env.update({f"CTXCONFORM_{key.upper()}": str(value) for key, value in options.items()})
    return env


def command_for(command: Sequence[str], env: Mapping[str, str], **defaults: str) -> list[str]:
    """The command with its `{placeholders}` filled from the CTXCONFORM_* variables (`{state_dir}`, ...)."""
    fields = {**defaults, **{key.removeprefix("CTXCONFORM_").lower(): value for key, value in env.items()}}
    return [part.format_map(fields) for part in command]
