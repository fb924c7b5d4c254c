"""The in-process transport: a call runs on the calling thread, and a hang still becomes a TIMEOUT."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ctxconform.conformance.exceptions import ImplementationErrored, ImplementationTimeout
from ctxconform.conformance.transports import _inprocess
from ctxconform.conformance.transports._inprocess import InProcessTransport, _Signals


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


Opener = Callable[[type], InProcessTransport]


@pytest.fixture
def opened() -> Iterator[Opener]:
    """Opens transports on a factory, and closes those still open after the test."""
    transports: list[InProcessTransport] = []

    def open_one(factory: type) -> InProcessTransport:
        transport = InProcessTransport(factory)
        transport.open()
        transports.append(transport)
        return transport

    yield open_one
    for transport in transports:
        transport.close(0)


@pytest.mark.parametrize("factory", [Sleeps, Spins])
def test_a_hanging_call_is_a_timeout_on_the_main_thread(factory: type, opened: Opener) -> None:
    """A handler that sleeps, or spins and swallows the first interrupt, is a TIMEOUT soon after its deadline."""
    transport = opened(factory)
    started = time.monotonic()
    with pytest.raises(ImplementationTimeout):
        transport.exchange({"type": "call", "seq": 1}, 0.2)
    assert time.monotonic() - started < 5


def test_no_timer_is_left_pending_after_a_call(opened: Opener) -> None:
    """After a call that answers or one that times out, no timer signal is pending."""
    for factory in (Echoes, Sleeps):
        with contextlib.suppress(ImplementationTimeout):
            opened(factory).exchange({"type": "call", "seq": 1}, 0.2)
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_the_signal_handlers_are_restored_when_the_last_user_releases_them() -> None:
    """Handlers installed for two open transports stay until both release them; then the previous ones are back."""
    before = signal.getsignal(signal.SIGALRM), signal.getsignal(signal.SIGINT)
    signals = _Signals()  # not the module's: other tests' transports may hold that one
    assert signals.acquire()
    assert signals.acquire()
    assert signals.ours()
    assert signals.release()
    assert signals.ours()
    assert signals.release()
    assert (signal.getsignal(signal.SIGALRM), signal.getsignal(signal.SIGINT)) == before


def test_an_implementation_that_takes_the_timer_signal_still_times_out(opened: Opener) -> None:
    """A handler that installs its own SIGALRM handler leaves the next calls to the worker thread, which still times out."""

    class TakesTheTimer(Sleeps):
        """Takes SIGALRM for itself on its first call, then sleeps on the next."""

        calls = 0

        def handle(self, message: dict[str, Any]) -> dict[str, Any]:
            """Install a handler of its own, then sleep from the second call on."""
            self.calls += 1
            if self.calls == 1:
                signal.signal(signal.SIGALRM, signal.SIG_IGN)
                return {}
            return super().handle(message)

    before = signal.getsignal(signal.SIGALRM)
    transport = opened(TakesTheTimer)
    try:
        transport.exchange({"type": "call", "seq": 1}, 5)
        with pytest.raises(ImplementationTimeout):
            transport.exchange({"type": "call", "seq": 2}, 0.2)
    finally:
        transport.close(0)
        signal.signal(signal.SIGALRM, before)


def test_a_keyboard_interrupt_the_implementation_raises_is_errored(opened: Opener) -> None:
    """KeyboardInterrupt raised by the handler is ERRORED, not taken for the user's Ctrl-C."""
    with pytest.raises(ImplementationErrored, match="KeyboardInterrupt"):
        opened(RaisesKeyboardInterrupt).exchange({"type": "call", "seq": 1}, 5)


def test_off_the_main_thread_a_hanging_call_is_still_a_timeout(opened: Opener) -> None:
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


def test_an_answer_is_a_copy_whatever_thread_calls(opened: Opener) -> None:
    """The answer is a JSON copy of what the handler returned, on the main thread as on another."""
    message = {"type": "call", "seq": 1, "args": {"a": [1, 2]}}
    answer = opened(Echoes).exchange(message, 5)
    assert answer == message
    assert answer is not message


@pytest.fixture
def sigint(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """SIGINT as the test's parameter sets it (Python's KeyboardInterrupt, or ignored), whatever this process inherited.

    The transports get handlers of their own for the test: one another test left open would have saved SIGINT as
    it was then, and keep it.
    """
    # A process a shell starts in the background without job control inherits SIGINT ignored.
    monkeypatch.setattr(_inprocess, "_SIGNALS", _Signals())
    before = signal.signal(signal.SIGINT, request.param)
    yield
    signal.signal(signal.SIGINT, before)


@pytest.mark.parametrize("sigint", [signal.default_int_handler], indirect=True)
@pytest.mark.usefixtures("sigint")  # set up before `opened`, so the transport opens with it in place
def test_ctrl_c_during_a_call_stops_the_run_instead_of_erroring_the_implementation(opened: Opener) -> None:
    """A SIGINT arriving while the implementation works is the user's Ctrl-C: a KeyboardInterrupt, not ERRORED."""

    class CtrlCArrives:
        """The user presses Ctrl-C while this call runs."""

        def handle(self, message: dict[str, Any]) -> dict[str, Any]:  # noqa: ARG002 - the protocol's signature
            """Receive SIGINT, then sleep."""
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
            return {}

    with pytest.raises(KeyboardInterrupt) as raised:
        opened(CtrlCArrives).exchange({"type": "call", "seq": 1}, 10)
    assert not isinstance(raised.value.__cause__, ImplementationErrored)


@pytest.mark.parametrize("sigint", [signal.SIG_IGN], indirect=True)
@pytest.mark.usefixtures("sigint")
def test_an_ignored_sigint_stays_ignored_while_a_call_runs(opened: Opener) -> None:
    """Where SIGINT is ignored (a run started in the background), the transport leaves it so: a SIGINT changes nothing."""

    class SigintArrives:
        """A SIGINT reaches the process while this call runs."""

        def handle(self, message: dict[str, Any]) -> dict[str, Any]:
            """Receive SIGINT, then answer."""
            os.kill(os.getpid(), signal.SIGINT)
            return {"seq": message["seq"]}

    assert opened(SigintArrives).exchange({"type": "call", "seq": 7}, 10) == {"seq": 7}
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
