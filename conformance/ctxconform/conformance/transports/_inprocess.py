"""The in-process transport: an implementation object in this Python process, messages copied through JSON."""

from __future__ import annotations

import importlib
import json
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from types import FrameType
from typing import Any, Final, Protocol

from ctxconform.conformance.exceptions import (
    ImplementationErrored,
    ImplementationTimeout,
    ImplementationUnavailable,
    ProtocolViolation,
)
from ctxconform.conformance.judge._clip import clip_text

__all__ = ["InProcessTransport", "MessageHandler"]

# How often an implementation that caught the first interrupt is interrupted again, until it gives up its call.
_AGAIN: Final = 0.5
# signal.getsignal turns every answer into an enum member, failing (raise, catch) for a Python handler: 3 us of each
# call; the C function it wraps answers in 0.05 us.
_getsignal: Callable[[int], object] = getattr(importlib.import_module("_signal"), "getsignal", signal.getsignal)


class MessageHandler(Protocol):
    """An in-process implementation: answers one protocol message with one reply."""

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        """Answer one protocol message."""


class InProcessTransport:
    """Calls `factory().handle(message)` so that a hang becomes a TIMEOUT, not a stuck run.

    On the main thread of a POSIX process the call runs right there and a timer signal interrupts it at the deadline
    (the handlers are installed while the transport is open); elsewhere, or when something else took the timer
    signal, it runs on a worker thread that is abandoned at the deadline. Handing a call to a thread and back costs
    100-300 us, several times what most calls of the reference take.
    """

    def __init__(self, factory: Callable[[], MessageHandler]) -> None:
        self._factory = factory
        self._handler: MessageHandler | None = None
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ctxconform-impl")
        self._signals = False

    def open(self) -> None:
        """Build the implementation object; a factory that raises gives no implementation to start."""
        try:
            self._handler = self._factory()
        except Exception as error:  # the factory is the implementation's code
            reason = f"its factory raised {_described(error)}; fix the factory"
            raise ImplementationUnavailable("python:", reason) from error
        if not self._signals:
            self._signals = _SIGNALS.acquire()

    def exchange(self, message: dict[str, Any], timeout: float) -> object:
        """Hand a JSON copy of the message to the implementation and return a JSON copy of its answer."""
        handler = self._handler
        assert handler is not None, "harness bug: exchange before open"
        # Not escaped to ASCII: the copy is the same, and a megabyte of emoji copies five times faster.
        copy = json.loads(json.dumps(message, ensure_ascii=False))
        inline = self._signals and _SIGNALS.ours() and threading.current_thread() is threading.main_thread()
        answer = _inline(handler, copy, timeout) if inline else self._threaded(handler, copy, timeout)
        try:
            return json.loads(json.dumps(answer, ensure_ascii=False, allow_nan=False))
        except RecursionError as error:
            raise ProtocolViolation("the answer nests lists and objects too deep to copy; flatten it") from error
        except Exception as error:  # its own types' methods run while it is copied
            raise ProtocolViolation(f"the answer is not JSON-serializable: {_described(error)}") from error

    def _threaded(self, handler: MessageHandler, message: dict[str, Any], timeout: float) -> object:
        future = self._worker.submit(handler.handle, message)
        try:
            return future.result(timeout=timeout)
        except FutureTimeout as error:
            raise ImplementationTimeout(f"no answer within {timeout:g} s") from error
        except BaseException as error:
            # Anything the implementation raised, SystemExit too, is the protocol's "errored"; a Ctrl-C here is not.
            if not future.done() or future.exception(timeout=0) is not error:
                raise
            raise ImplementationErrored(f"the implementation raised {_described(error)}") from error

    def close(self, timeout: float) -> None:  # noqa: ARG002 - nothing here to wait for
        """Drop the implementation object; a stuck worker thread is abandoned."""
        self._handler = None
        if self._signals:
            self._signals = not _SIGNALS.release()
        self._worker.shutdown(wait=False, cancel_futures=True)
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ctxconform-impl")


class _Overtime(BaseException):
    """Raised inside the implementation's call when its deadline passes (a BaseException, so `except Exception` misses it)."""


class _UserInterrupt(KeyboardInterrupt):
    """Ctrl-C during an inline call: the user's, unlike a KeyboardInterrupt the implementation raises itself."""


class _Signals:
    """The timer and Ctrl-C handlers of inline calls, installed while any transport on the main thread is open."""

    def __init__(self) -> None:
        self.active = False
        self._users = 0
        self._saved: tuple[Any, Any] = (None, None)
        self._on_alarm = self.on_alarm  # one bound method, so that `ours` can compare identity

    def acquire(self) -> bool:
        """Install the handlers for one more open transport; False where they cannot be (not the main thread)."""
        if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
            return False
        if self._users == 0:
            self._saved = (signal.getsignal(signal.SIGALRM), signal.getsignal(signal.SIGINT))
            signal.signal(signal.SIGALRM, self._on_alarm)
            if self._saved[1] is signal.default_int_handler:
                signal.signal(signal.SIGINT, _on_interrupt)
        self._users += 1
        return True

    def release(self) -> bool:
        """Restore the handlers once the last open transport closes; False where they cannot be (another thread)."""
        if threading.current_thread() is not threading.main_thread():
            return False
        self._users -= 1
        if self._users == 0:
            alarm, interrupt = self._saved
            signal.signal(signal.SIGALRM, alarm)
            if interrupt is signal.default_int_handler:
                signal.signal(signal.SIGINT, interrupt)
        return True

    def ours(self) -> bool:
        """Whether the timer signal still reaches `on_alarm` (the implementation may have taken it)."""
        return _getsignal(signal.SIGALRM) is self._on_alarm

    def on_alarm(self, signum: int, frame: FrameType | None) -> None:  # noqa: ARG002 - a signal handler's signature
        """Interrupt the inline call in progress; a signal landing between calls does nothing."""
        if self.active:
            raise _Overtime


def _on_interrupt(signum: int, frame: FrameType | None) -> None:  # noqa: ARG001 - a signal handler's signature
    raise _UserInterrupt


_SIGNALS: Final = _Signals()


def _inline(handler: MessageHandler, message: dict[str, Any], timeout: float) -> object:
    """Run the call on this thread; interrupt it at the deadline, and again every `_AGAIN` s if it catches that."""
    started = time.monotonic()
    _SIGNALS.active = True
    signal.setitimer(signal.ITIMER_REAL, timeout, _AGAIN)
    try:
        try:
            answer = handler.handle(message)
        finally:
            _SIGNALS.active = False
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _Overtime:
        raise ImplementationTimeout(f"no answer within {timeout:g} s") from None
    except _UserInterrupt:
        raise
    except BaseException as error:
        # Anything the implementation raised, SystemExit and KeyboardInterrupt too, is the protocol's "errored".
        raise ImplementationErrored(f"the implementation raised {_described(error)}") from error
    finally:
        # Again: a signal landing on the first line of the inner `finally` skips the rest of it.
        _SIGNALS.active = False
        signal.setitimer(signal.ITIMER_REAL, 0)
    if time.monotonic() - started > timeout:
        raise ImplementationTimeout(f"no answer within {timeout:g} s (it caught the interrupt and answered late)")
    return answer


def _described(error: BaseException) -> str:
    """The exception's type and message, bounded and printable whatever the implementation put in it."""
    try:
        text = str(error)
    except Exception:  # its __str__ is the implementation's code too
        text = "(its message could not be read)"
    return f"{type(error).__name__}: {clip_text(text, 2000)}"
