"""The in-process transport: an implementation object in this Python process, messages copied through JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Protocol

from ctxconform.conformance.exceptions import (
    ImplementationErrored,
    ImplementationTimeout,
    ImplementationUnavailable,
    ProtocolViolation,
)
from ctxconform.conformance.judge._clip import clip_text

__all__ = ["InProcessTransport", "MessageHandler"]


class MessageHandler(Protocol):
    """An in-process implementation: answers one protocol message with one reply."""

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        """Answer one protocol message."""


class InProcessTransport:
    """Calls `factory().handle(message)` on a worker thread, so a hang becomes a TIMEOUT, not a stuck run."""

    def __init__(self, factory: Callable[[], MessageHandler]) -> None:
        self._factory = factory
        self._handler: MessageHandler | None = None
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ctxconform-impl")

    def open(self) -> None:
        """Build the implementation object; a factory that raises gives no implementation to start."""
        try:
            self._handler = self._factory()
        except Exception as error:  # the factory is the implementation's code
            reason = f"its factory raised {_described(error)}; fix the factory"
            raise ImplementationUnavailable("python:", reason) from error

    def exchange(self, message: dict[str, Any], timeout: float) -> object:
        """Hand a JSON copy of the message to the implementation and return a JSON copy of its answer."""
        handler = self._handler
        assert handler is not None, "harness bug: exchange before open"
        future = self._worker.submit(handler.handle, json.loads(json.dumps(message)))
        try:
            answer = future.result(timeout=timeout)
        except FutureTimeout as error:
            raise ImplementationTimeout(f"no answer within {timeout:g} s") from error
        except BaseException as error:
            # Anything the implementation raised, SystemExit too, is the protocol's "errored"; a Ctrl-C here is not.
            if not future.done() or future.exception(timeout=0) is not error:
                raise
            raise ImplementationErrored(f"the implementation raised {_described(error)}") from error
        try:
            return json.loads(json.dumps(answer, allow_nan=False))
        except RecursionError as error:
            raise ProtocolViolation("the answer nests lists and objects too deep to copy; flatten it") from error
        except Exception as error:  # its own types' methods run while it is copied
            raise ProtocolViolation(f"the answer is not JSON-serializable: {_described(error)}") from error

    def close(self, timeout: float) -> None:  # noqa: ARG002 - nothing here to wait for
        """Drop the implementation object; a stuck worker thread is abandoned."""
        self._handler = None
        self._worker.shutdown(wait=False, cancel_futures=True)
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ctxconform-impl")


def _described(error: BaseException) -> str:
    """The exception's type and message, bounded and printable whatever the implementation put in it."""
    try:
        text = str(error)
    except Exception:  # its __str__ is the implementation's code too
        text = "(its message could not be read)"
    return f"{type(error).__name__}: {clip_text(text, 2000)}"
