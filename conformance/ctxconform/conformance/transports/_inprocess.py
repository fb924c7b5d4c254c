"""The in-process transport: an implementation object in this Python process, messages copied through JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Protocol

from ctxconform.conformance.exceptions import ImplementationErrored, ImplementationTimeout, ProtocolViolation

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
        """Build the implementation object."""
        self._handler = self._factory()

    def exchange(self, message: dict[str, Any], timeout: float) -> object:
        """Hand a JSON copy of the message to the implementation and return a JSON copy of its answer."""
        handler = self._handler
        assert handler is not None, "harness bug: exchange before open"
        future = self._worker.submit(handler.handle, json.loads(json.dumps(message)))
        try:
            answer = future.result(timeout=timeout)
        except FutureTimeout as error:
            raise ImplementationTimeout(f"no answer within {timeout:g} s") from error
        except Exception as error:  # the implementation raised: the protocol's "errored"
            raise ImplementationErrored(f"the implementation raised {type(error).__name__}: {error}") from error
        try:
            return json.loads(json.dumps(answer, allow_nan=False))
        except (TypeError, ValueError) as error:
            raise ProtocolViolation(f"the answer is not JSON-serializable: {error}") from error

    def close(self, timeout: float) -> None:  # noqa: ARG002 - nothing here to wait for
        """Drop the implementation object; a stuck worker thread is abandoned."""
        self._handler = None
        self._worker.shutdown(wait=False, cancel_futures=True)
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ctxconform-impl")
