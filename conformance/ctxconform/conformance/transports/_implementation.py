"""A running implementation under test: start, numbered calls with timeouts, restart, stop, and a transcript."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from ctxconform.conformance.exceptions import (
    ImplementationUnavailable,
    ProtocolViolation,
    TransportFailure,
)
from ctxconform.conformance.transports._protocol import PROTOCOL_VERSION, Reply, Started, check_incoming, check_outgoing
from ctxconform.conformance.transports._transcript import Transcript
from ctxconform.conformance.transports._transport import Transport

__all__ = ["START_TIMEOUT", "Implementation"]

Json = dict[str, Any]
_TRANSCRIPT: Final = 50
# Starting takes longer than a call (a runtime to load, a store to open): start waits this long, or the call
# timeout when that is longer.
START_TIMEOUT: Final = 30.0
# The end of a failed start's stderr kept in its message: where a crash usually says why.
_START_DETAIL: Final = 4000


class Implementation:
    """The harness's handle on one implementation, over any transport."""

    def __init__(
        self,
        adapter: str,
        transport: Transport,
        state_dir: Path,
        *,
        timeout: float = 10.0,
        options: Json | None = None,
        start_timeout: float = START_TIMEOUT,
        reopen: Callable[[], Transport] | None = None,
    ) -> None:
        self.adapter = adapter
        self.state_dir = state_dir
        self.options = options or {}
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.restarts = 0
        self.transcript = Transcript(_TRANSCRIPT)
        self._transport = transport
        self._reopen = reopen
        self._seq = 0
        self._started: Started | None = None
        self._broken: TransportFailure | None = None

    def __repr__(self) -> str:
        # No address: the falsifying examples in a report name the implementation, and two runs must read the same.
        return f"Implementation({self.adapter!r})"

    @property
    def info(self) -> Started:
        """What the implementation said about itself at start."""
        assert self._started is not None, "harness bug: implementation not started"
        return self._started

    @property
    def broken(self) -> TransportFailure | None:
        """The failure that broke the connection, if any; calls fail fast until restart."""
        return self._broken

    def features(self, spec: str) -> frozenset[str]:
        """Return the optional features the implementation declares for a spec."""
        entry = self.info.specs.get(spec)
        return frozenset() if entry is None else entry.features

    def start(self) -> Started:
        """Open the transport and exchange start/started; raise ImplementationUnavailable on any failure."""
        self.state_dir.mkdir(parents=True, exist_ok=True)
        message: Json = {"type": "start", "protocol": PROTOCOL_VERSION, "state_dir": str(self.state_dir)}
        if self.options:
            message["options"] = self.options
        check_outgoing("start", message)
        try:
            self._transport.open()
            answer = check_incoming("started", self._receive(message, max(self.timeout, self.start_timeout)))
        except TransportFailure as failure:
            self._transport.close(1.0)
            raise ImplementationUnavailable(
                self.adapter, f"{failure.verdict}: {failure.message}\n{failure.detail[-_START_DETAIL:]}".strip()
            ) from failure
        except ImplementationUnavailable as unavailable:
            self._transport.close(1.0)
            raise ImplementationUnavailable(self.adapter, unavailable.reason) from unavailable
        self._started = Started.from_message(answer)
        self._broken = None
        return self._started

    def call(self, spec: str, op: str, args: object, context: Json | None = None) -> Reply:
        """Send one call and return its reply; raise a TransportFailure (and stay broken) when the protocol fails."""
        if self._broken is not None:
            raise type(self._broken)(f"{self._broken.message} (earlier in this test)", detail=self._broken.detail)
        self._seq += 1
        message: Json = {"type": "call", "seq": self._seq, "spec": spec, "op": op, "args": args}
        if context:
            message["context"] = context
        check_outgoing("call", message)
        try:
            answer = self._exchange_reply(message)
        except TransportFailure as failure:
            self.transcript.record(message, None, f"{failure.verdict}: {failure.message}")
            if failure.verdict != "ERRORED":
                self._broken = failure
            raise
        self.transcript.record(message, answer)
        return Reply.from_message(answer)

    def another(self) -> Implementation:
        """Return a second, unstarted instance of the same adapter on the same state (two writers at once).

        Raise ImplementationUnavailable when the transport cannot make one (a server the harness did not start).
        """
        if self._reopen is None:
            raise ImplementationUnavailable(self.adapter, "this transport cannot start a second instance")
        return Implementation(
            self.adapter,
            self._reopen(),
            self.state_dir,
            timeout=self.timeout,
            options=self.options,
            start_timeout=self.start_timeout,
            reopen=self._reopen,
        )

    def restart(self) -> Started:
        """Stop and start again against the same state directory."""
        self.stop()
        self.restarts += 1
        return self.start()

    def stop(self) -> str | None:
        """Ask the implementation to stop, then make sure it is gone; say why when it had to be stopped by force."""
        refused = None
        if self._started is not None and self._broken is None:
            try:
                check_incoming("stopped", self._receive({"type": "stop"}, min(self.timeout, 5.0)))
            except TransportFailure as failure:  # it is stopped by force below
                refused = f"it did not answer stop ({failure.verdict}: {failure.message}) and was ended by force"
        # A broken child gets little grace: it already failed to answer once.
        self._transport.close(0.2 if self._broken is not None else 2.0)
        self._started = None
        return refused

    def _receive(self, message: Json, timeout: float) -> object:
        try:
            return self._transport.exchange(message, timeout)
        except RecursionError as error:  # a transport's decoder met a message nested too deep
            raise ProtocolViolation("the answer nests lists and objects too deep to decode; flatten it") from error

    def _exchange_reply(self, message: Json) -> Json:
        answer = check_incoming("reply", self._receive(message, self.timeout))
        if answer["seq"] != message["seq"]:
            raise ProtocolViolation(f"reply for seq {answer['seq']} while seq {message['seq']} was pending")
        if "error" in answer:
            answer = {**answer, "error": dict(answer["error"])}
        return answer
