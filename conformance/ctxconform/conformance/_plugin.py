"""The pytest plugin: runs the conformance suites against an adapter and records a verdict per test.

It is registered through the ``pytest11`` entry point and stays inert until a suite test asks for
the ``implementation`` fixture, so it never changes other projects' test runs.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import tempfile
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any, Final

import pytest

from ctxconform.conformance._adapters import connect, parse_adapter
from ctxconform.conformance._clip import clip
from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance._judgement import Judgement, judge
from ctxconform.conformance._ledger import Ledger, activate, lookup
from ctxconform.conformance._profiles import register_profiles
from ctxconform.conformance._registry import LEVELS, Level, Requirement
from ctxconform.conformance._results import CollectedLine, EventLine, ProblemLine, StartedLine, TestLine, write_line
from ctxconform.conformance._specs import start_options
from ctxconform.conformance._unique import reseed
from ctxconform.conformance.exceptions import ConfigurationError, ImplementationUnavailable

__all__ = ["Harness", "requirement_ids"]

register_profiles()

_HARNESS: Final = pytest.StashKey["Harness"]()
_JUDGEMENT: Final = pytest.StashKey[Judgement]()
_LEDGER: Final = pytest.StashKey[Ledger]()
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


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the ctxconform options."""
    group = parser.getgroup("ctxconform", "conformance suites")
    group.addoption("--ctxconform-adapter", default="reference", help="connection string of the implementation under test")
    group.addoption(
        "--ctxconform-level", default="MAY", choices=LEVELS, help="run tests of requirements at this level or stronger"
    )
    group.addoption("--ctxconform-results", default=None, help="write one JSON line per test result to this file")
    group.addoption("--ctxconform-timeout", type=float, default=10.0, help="seconds each call may take")
    group.addoption("--ctxconform-max-restarts", type=int, default=5, help="how often a broken implementation is restarted")
    group.addoption("--ctxconform-progress", action="store_true", help="print a compact progress line on stderr")
    group.addoption("--ctxconform-collect", default=None, help="write each collected test's requirement ids to this file")
    group.addoption(
        "--ctxconform-requirement", action="append", default=[], help="run only the tests naming this requirement id (repeatable)"
    )
    group.addoption("--ctxconform-test", action="append", default=[], help="run only the test of this exact node id (repeatable)")


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers and the harness."""
    config.addinivalue_line("markers", "requirement(*ids): the requirement ids a conformance test checks")
    config.stash[_HARNESS] = Harness(config)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Stop the implementation."""
    harness = config.stash.get(_HARNESS, None)
    if harness is not None:
        harness.close()


def requirement_ids(item: pytest.Item) -> tuple[str, ...]:
    """Return the requirement ids a test names through its `requirement` markers."""
    return tuple(rid for mark in item.iter_markers("requirement") for rid in mark.args)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Refuse unknown requirement ids; deselect tests below the requested level or not naming a requested requirement."""
    listing = config.getoption("--ctxconform-collect")
    if listing:
        _write_listing(Path(listing), items)
        return
    level = config.getoption("--ctxconform-level")
    wanted = frozenset(_lookup(rid).id for rid in config.getoption("--ctxconform-requirement"))
    tests = frozenset(config.getoption("--ctxconform-test"))
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        (keep if _selected(item, level, wanted, tests) else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def _selected(item: pytest.Item, level: Level, wanted: frozenset[str], tests: frozenset[str]) -> bool:
    if tests and item.nodeid not in tests:
        return False
    requirements = [_lookup(rid) for rid in requirement_ids(item)]
    if requirements and not any(r.at_least(level) for r in requirements):
        return False
    return not wanted or bool(wanted & {r.id for r in requirements})


def _write_listing(path: Path, items: list[pytest.Item]) -> None:
    path.unlink(missing_ok=True)
    for item in items:
        write_line(path, CollectedLine(id=item.nodeid, requirements=list(requirement_ids(item))))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before any fixture: restart an implementation an earlier test broke, and skip undeclared features."""
    harness = item.config.stash[_HARNESS]
    harness.begin(item)
    reseed(item.config.getoption("hypothesis_seed", None), item.nodeid)
    ids = requirement_ids(item)
    ledger = Ledger(test=item.nodeid, declared=frozenset(ids), features=harness.features)
    item.stash[_LEDGER] = ledger
    activate(ledger)
    if "implementation" not in getattr(item, "fixturenames", ()):
        return
    harness.heal()
    if not ids:
        return
    implementation = harness.implementation()
    spec = ids[0].split("/")[0]
    if spec not in implementation.info.specs:
        pytest.skip(f"the implementation does not implement {spec}")
    feature_of = {rid: _lookup(rid).feature for rid in ids}
    declared = implementation.features(spec)
    for rid, feature in feature_of.items():
        if feature is not None and feature not in declared:
            ledger.skipped[rid] = f"the implementation does not declare feature {feature}"
    features = set(feature_of.values())
    if None not in features and not features & declared:
        pytest.skip(f"the implementation does not declare feature(s) {', '.join(sorted(map(str, features)))}")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """The fixtures are set up: from now on a call serves the test's own requirement."""
    ledger = item.stash.get(_LEDGER, None)
    if ledger is not None:
        ledger.setting_up = False


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest) -> Generator[None, Any, Any]:
    """Note the fixtures that hold state of the implementation, so a restart can set them up again."""
    harness = request.config.stash[_HARNESS]
    harness.setting_up(fixturedef, request)
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Turn each phase's outcome into a verdict, kept until the test is recorded."""
    report: pytest.TestReport = yield
    if report.when == "call" or (report.when == "setup" and not report.passed):
        item.stash[_JUDGEMENT] = judge(report, call, item.stash[_LEDGER])
    elif report.when == "teardown":
        activate(None)
        item.config.stash[_HARNESS].finish(item)
    return report


@pytest.fixture(scope="session")
def implementation(request: pytest.FixtureRequest) -> Implementation:
    """The implementation under test, started once per run and restarted when a test broke it."""
    return request.config.stash[_HARNESS].implementation()


def _lookup(requirement_id: str) -> Requirement:
    try:
        return lookup(requirement_id)
    except ConfigurationError as error:
        raise pytest.UsageError(error.message) from None


class Harness:
    """The plugin's state for one run: the implementation, restarts and the results file."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self._implementation: Implementation | None = None
        self._state_dir: Path | None = None
        self._results = config.getoption("--ctxconform-results")
        self._progress = config.getoption("--ctxconform-progress")
        self._started_at: dict[str, float] = {}
        self._done = 0
        self._clock = time.monotonic()
        self._current = ""
        self._exhausted = False
        self._restarts = 0
        self._fixture: tuple[pytest.FixtureDef[Any], pytest.FixtureRequest] | None = None
        self._set_up: set[tuple[int, str]] = set()

    def implementation(self) -> Implementation:
        """Return the running implementation, starting it on first use (exit code 3 when it cannot start)."""
        if self._implementation is None:
            adapter_text = self.config.getoption("--ctxconform-adapter")
            try:
                adapter = parse_adapter(adapter_text)
                self._state_dir = Path(tempfile.mkdtemp(prefix="ctxconform-state-"))
                timeout = self.config.getoption("--ctxconform-timeout")
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
        if self._restarts >= self.config.getoption("--ctxconform-max-restarts"):
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

    def finish(self, item: pytest.Item) -> None:
        """Write one result line for a finished test."""
        ledger = item.stash.get(_LEDGER, None) or Ledger(test=item.nodeid, declared=frozenset(requirement_ids(item)))
        judgement = item.stash.get(_JUDGEMENT, None) or judge(None, None, ledger)
        ids = requirement_ids(item)
        line = TestLine(
            id=item.nodeid,
            name=item.name,
            spec=ids[0].split("/")[0] if ids else None,
            requirements=list(ids),
            charges=list(judgement.charges),
            verdict=judgement.verdict,
            duration_s=round(max(0.0, time.monotonic() - self._started_at.pop(item.nodeid, time.monotonic())), 6),
            message=judgement.message,
            transcript=self._transcript() if judgement.verdict not in ("PASS", "SKIP") else [],
        )
        self._write(line)
        self._show(judgement.verdict)

    def close(self) -> None:
        """Stop the implementation and remove its state."""
        if self._implementation is not None:
            refused = self._implementation.stop()
            if refused:
                self._current = ""
                self._event("stop-forced", refused)
            self._implementation = None
        if self._state_dir is not None:
            shutil.rmtree(self._state_dir, ignore_errors=True)
        if self._progress and self._done:
            sys.stderr.write("\n")

    def _transcript(self) -> list[dict[str, Any]]:
        if self._implementation is None:
            return []
        exchanges = list(self._implementation.transcript)[-10:]
        return [clip({"call": e.call, "reply": e.reply, "failure": e.failure}) for e in exchanges]  # type: ignore[misc]

    def _event(self, kind: str, message: str, **fields: Any) -> None:
        at = round(time.monotonic() - self._clock, 3)
        self._write(EventLine(event=kind, at_s=at, test=self._current, message=message, **fields))  # type: ignore[arg-type]

    def _write(self, line: StartedLine | ProblemLine | EventLine | TestLine) -> None:
        if self._results:
            write_line(Path(self._results), line)

    def _show(self, verdict: str) -> None:
        if not self._progress:
            return
        self._done += 1
        sys.stderr.write(_MARKS.get(verdict, "?"))
        if self._done % 60 == 0:
            sys.stderr.write(f" {self._done}\n")
        sys.stderr.flush()
