"""The session of one run: starts the implementation, heals it after a test broke it, stops it, and writes the results."""

from __future__ import annotations

import contextlib
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Final

import pytest

from ctxconform.conformance.exceptions import ConfigurationError, ImplementationUnavailable
from ctxconform.conformance.judge._clip import clip, clip_text
from ctxconform.conformance.judge._judgement import Judgement, judge
from ctxconform.conformance.judge._ledger import Ledger
from ctxconform.conformance.judge._results import (
    Charge,
    CollectedLine,
    EventLine,
    ProblemLine,
    StartedLine,
    TestLine,
    write_line,
)
from ctxconform.conformance.judge._specs import start_options
from ctxconform.conformance.run._request import SuiteRequest
from ctxconform.conformance.transports._adapters import connect, parse_adapter
from ctxconform.conformance.transports._implementation import Implementation

__all__ = ["Harness", "requirement_ids"]

_MARKS: Final = {
    "PASS": ".",
    "FAIL": "F",
    "SKIP": "s",
    "XFAIL": "x",
    "XPASS": "X",
    "ERRORED": "E",
    "TIMEOUT": "T",
    "CRASH": "C",
    "PROTOCOL": "P",
    "HARNESS": "H",
}


_MESSAGE: Final = 8000
_LINE_DEPTH: Final = 64  # a result line's own nesting plus a clipped transcript's


def requirement_ids(item: pytest.Item) -> tuple[str, ...]:
    """Return the requirement ids a test names through its `requirement` markers."""
    return tuple(rid for mark in item.iter_markers("requirement") for rid in mark.args)


class Harness:
    """The plugin's state for one run: the implementation, restarts and the results file."""

    def __init__(self, request: SuiteRequest) -> None:
        self.request = request
        self._implementation: Implementation | None = None
        self._state_root: Path | None = None
        self._state_dir: Path | None = None
        self._results = request.results
        self._progress = request.progress
        self._started_at: dict[str, float] = {}
        self._done = 0
        self._clock = time.monotonic()
        self._current = ""
        self._exhausted = False
        self._restarts = 0
        self._fixture: tuple[pytest.FixtureDef[Any], pytest.FixtureRequest] | None = None
        self._set_up: set[tuple[int, str]] = set()
        self._unreported: dict[str, pytest.Item] = {}
        self._total = 0
        self._problem = False

    def implementation(self) -> Implementation:
        """Return the running implementation, starting it on first use (exit code 3 when it cannot start)."""
        if self._implementation is None:
            adapter_text = self.request.adapter
            try:
                adapter = parse_adapter(adapter_text)
                self._state_root = Path(tempfile.mkdtemp(prefix="ctxconform-state-"))
                # Two private folders above the state: a name that climbs out of it (`../x`) lands where the suites
                # look for it, and is removed with the run, instead of in the shared temporary folder.
                self._state_dir = self._state_root / "run" / "state"
                timeout = self.request.timeout
                options = start_options(self._state_dir)
                implementation = connect(adapter, self._state_dir, timeout=timeout, options=options)
                implementation.start()
            except ConfigurationError as error:
                self._write(ProblemLine(event="configuration", message=error.message))
                pytest.exit(error.message, returncode=2)
            except ImplementationUnavailable as error:
                self._write(ProblemLine(event="unavailable", message=str(error)))
                pytest.exit(str(error), returncode=3)
            self._implementation = implementation
            self._write(StartedLine(adapter=adapter_text, implementation=implementation.info.describe()))
        return self._implementation

    def features(self, spec: str) -> frozenset[str]:
        """The optional features the implementation declares for `spec`."""
        return self.implementation().features(spec)

    def heal(self) -> None:
        """Restart an implementation that an earlier test broke, within the restart budget, and redo its setup."""
        implementation = self.implementation()
        failure = implementation.broken
        if failure is None:
            return
        # Fresh exceptions: re-raising one object would grow its traceback with every test.
        if self._restarts >= self.request.max_restarts:
            if not self._exhausted:
                self._exhausted = True
                self._event("restarts-exhausted", f"{self._restarts} restarts used; later tests fail at once")
            raise type(failure)(f"{failure.message} (no restarts left)", detail=failure.detail)
        self._forget_setup()
        self._restarts += 1  # only the harness's own restarts count, not those a durability test asks for
        try:
            implementation.restart()
        except ImplementationUnavailable as error:
            self._event("restart-failed", str(error))
            raise type(failure)(f"{failure.message}; the restart failed: {error}", detail=failure.detail) from None
        self._event("restarted", f"after {failure.verdict}: {failure.message}", restarts=self._restarts)

    def setting_up(self, fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest) -> None:
        """Keep the `implementation` fixture, and note fixtures set up again after a restart."""
        if fixturedef.argname == "implementation":
            self._fixture = (fixturedef, request)
            return
        key = (id(fixturedef), request.node.nodeid)
        if fixturedef.scope != "function" and key in self._set_up:
            self._event("setup-replayed", f"fixture {fixturedef.argname!r} ({fixturedef.scope}) set up again")
        self._set_up.add(key)

    def _forget_setup(self) -> None:
        # Tearing down the implementation fixture tears down every fixture built on it, so pytest sets them up again
        # against the restarted implementation. Their teardowns hit the broken one and fail fast: nothing to report.
        if self._fixture is None:
            return
        fixturedef, request = self._fixture
        with contextlib.suppress(Exception):
            fixturedef.finish(request)  # type: ignore[arg-type]  # finish() only reads request.node

    def begin(self, item: pytest.Item) -> None:
        """Note a test's start and clear the transcript."""
        self._current = item.nodeid
        self._started_at[item.nodeid] = time.monotonic()
        if self._implementation is not None:
            self._implementation.transcript.clear()

    def expect(self, items: list[pytest.Item]) -> None:
        """Note the tests the run selected: each must report, or the run reports it as HARNESS at the end.

        They are written too, so the parent can tell which never reported if this process is killed.
        """
        self._unreported = {item.nodeid: item for item in items}
        self._total = len(items)
        for item in items:
            self._write(CollectedLine(id=item.nodeid, requirements=list(requirement_ids(item))))

    def finish(self, item: pytest.Item, ledger: Ledger | None, judgement: Judgement | None) -> None:
        """Write one result line for a finished test (judged now when no phase was: a test pytest never ran)."""
        ledger = ledger or Ledger(test=item.nodeid, declared=frozenset(requirement_ids(item)))
        try:
            judgement = judgement or judge(None, None, ledger)
            line = self._test_line(item, judgement, self._transcript() if judgement.verdict not in ("PASS", "SKIP") else [])
        except Exception as error:  # a test must report whatever broke its judgement
            why = f"a bug of the kit: the test's result could not be recorded: {type(error).__name__}: {error}"
            judgement = _harness(item, why)
            line = self._test_line(item, judgement, [])
        self._unreported.pop(item.nodeid, None)
        self._write(line)
        self._show(judgement.verdict)

    def unreported(self, why: str) -> None:
        """Write a HARNESS line for each selected test that did not report: the run ended before it did.

        Not after a problem line: a run that could not begin has no test results to miss.
        """
        if self._problem:
            return
        if self._implementation is not None:  # what it holds is the last test's, not theirs
            self._implementation.transcript.clear()
        for item in list(self._unreported.values()):
            self.finish(item, None, _harness(item, f"the run ended before this test reported ({why}); see the pytest log"))

    def _test_line(self, item: pytest.Item, judgement: Judgement, transcript: list[dict[str, Any]]) -> TestLine:
        ids = requirement_ids(item)
        return TestLine(
            id=item.nodeid,
            name=item.name,
            spec=ids[0].split("/")[0] if ids else None,
            requirements=list(ids),
            charges=list(judgement.charges),
            verdict=judgement.verdict,
            duration_s=round(max(0.0, time.monotonic() - self._started_at.pop(item.nodeid, time.monotonic())), 6),
            message=clip_text(judgement.message, _MESSAGE),
            transcript=transcript,
        )

    def close(self) -> None:
        """Stop the implementation and remove its state."""
        if self._implementation is not None:
            refused = self._implementation.stop()
            if refused:
                self._current = ""
                self._event("stop-forced", refused)
            self._implementation = None
        if self._state_root is not None:
            shutil.rmtree(self._state_root, ignore_errors=True)
        if self._progress and self._done % 60 and self._done != self._total:
            sys.stderr.write("\n")

    def _transcript(self) -> list[dict[str, Any]]:
        if self._implementation is None:
            return []
        exchanges = list(self._implementation.transcript)[-10:]
        # Clipped already: clipping again would cut each clipped text's note of what it left out.
        return [{"call": e.call, "reply": e.reply, "failure": e.failure} for e in exchanges]

    def _event(self, kind: str, message: str, **fields: Any) -> None:
        at = round(time.monotonic() - self._clock, 3)
        self._write(EventLine(event=kind, at_s=at, test=self._current, message=message, **fields))  # type: ignore[arg-type]

    def _write(self, line: StartedLine | ProblemLine | EventLine | TestLine | CollectedLine) -> None:
        self._problem = self._problem or isinstance(line, ProblemLine)
        if not self._results:
            return
        try:
            write_line(self._results, line)
        except ValueError:  # a value pydantic cannot encode (a lone surrogate in a dict key): write it clipped
            write_line(self._results, type(line).model_validate(clip(line.model_dump(), depth=_LINE_DEPTH)))

    def _show(self, verdict: str) -> None:
        if not self._progress:
            return
        self._done += 1
        sys.stderr.write(_MARKS.get(verdict, "?"))
        if self._done % 60 == 0 or self._done == self._total:
            sys.stderr.write(f" {self._done}/{self._total}\n")
        sys.stderr.flush()


def _harness(item: pytest.Item, message: str) -> Judgement:
    """A HARNESS judgement charged to each requirement of the test: the kit, not the implementation, failed it."""
    charges = tuple(Charge(requirement=rid, verdict="HARNESS", message=message[:500]) for rid in requirement_ids(item))
    return Judgement("HARNESS", charges, message)
