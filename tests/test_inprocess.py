"""The in-process transport: a call runs on the calling thread, and a hang still becomes a TIMEOUT."""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from typing import Any

import pytest

from ctxconform.conformance.exceptions import ImplementationErrored, ImplementationTimeout
from ctxconform.conformance.transports._inprocess import InProcessTransport


class Sleeps:
    """Sleeps far past any timeout."""

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:  # noqa: ARG002 - the protocol's signature
        """Sleep a minute."""
        time.sleep(60)
        return {}


class Spins:
    """Loops forever in Python code, catching everything it can, and answers once it is interrupted twice."""

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:  # noqa: ARG002 - the protocol's signature
        """Spin until interrupted twice."""
        caught = 0
        while caught < 2:
            try:
                while True:
                    pass
            except BaseException:
                caught += 1
        return {"late": True}


class RaisesKeyboardInterrupt:
    """Raises KeyboardInterrupt itself: the implementation's error, not the user's Ctrl-C."""

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:  # noqa: ARG002 - the protocol's signature
        """Raise KeyboardInterrupt."""
        raise KeyboardInterrupt


class Echoes:
    """Answers with the message."""

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        """Return the message."""
        return message


def opened(factory: type) -> InProcessTransport:
    """A transport on `factory`, opened."""
    transport = InProcessTransport(factory)
    transport.open()
    return transport


@pytest.mark.parametrize("factory", [Sleeps, Spins])
def test_a_hanging_call_is_a_timeout_on_the_main_thread(factory: type) -> None:
    """A handler that sleeps, or spins and swallows the first interrupt, is a TIMEOUT soon after its deadline."""
    transport = opened(factory)
    started = time.monotonic()
    with pytest.raises(ImplementationTimeout):
        transport.exchange({"type": "call", "seq": 1}, 0.2)
    assert time.monotonic() - started < 5


def test_the_alarm_handler_is_restored_and_disarmed_after_each_call() -> None:
    """After a call, with or without a timeout, SIGALRM has its previous handler and no timer is pending."""
    before = signal.getsignal(signal.SIGALRM)
    for factory in (Echoes, Sleeps):
        transport = opened(factory)
        with contextlib.suppress(ImplementationTimeout):
            transport.exchange({"type": "call", "seq": 1}, 0.2)
        assert signal.getsignal(signal.SIGALRM) is before
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_keyboard_interrupt_the_implementation_raises_is_errored() -> None:
    """KeyboardInterrupt raised by the handler is ERRORED, not taken for the user's Ctrl-C."""
    with pytest.raises(ImplementationErrored, match="KeyboardInterrupt"):
        opened(RaisesKeyboardInterrupt).exchange({"type": "call", "seq": 1}, 5)


def test_off_the_main_thread_a_hanging_call_is_still_a_timeout() -> None:
    """Where no timer signal can reach (another thread), the call runs on a worker and a hang is a TIMEOUT."""
    outcome: list[BaseException | object] = []

    def call() -> None:
        transport = opened(Sleeps)
        try:
            outcome.append(transport.exchange({"type": "call", "seq": 1}, 0.2))
        except BaseException as error:
            outcome.append(error)
        finally:
            transport.close(0)

    thread = threading.Thread(target=call)
    thread.start()
    thread.join(10)
    assert len(outcome) == 1
    assert isinstance(outcome[0], ImplementationTimeout)


def test_an_answer_is_a_copy_whatever_thread_calls() -> None:
    """The answer is a JSON copy of what the handler returned, on the main thread as on another."""
    message = {"type": "call", "seq": 1, "args": {"a": [1, 2]}}
    answer = opened(Echoes).exchange(message, 5)
    assert answer == message
    assert answer is not message
