"""The pytest plugin: runs the conformance suites against an adapter and records a verdict per test.

It is registered through the ``pytest11`` entry point and stays inert until a suite test asks for
the ``implementation`` fixture, so it never changes other projects' test runs.
"""

from __future__ import annotations

import contextlib
import json
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
from ctxconform.conformance._profiles import register_profiles
from ctxconform.conformance._registry import LEVELS, Level, Requirement, load_registry
from ctxconform.conformance._specs import start_options
from ctxconform.conformance._unique import reseed
from ctxconform.conformance._verdicts import Verdict, classify
from ctxconform.conformance.exceptions import ConfigurationError, ImplementationUnavailable

__all__ = ["Harness", "requirement_ids"]

register_profiles()

_HARNESS: Final = pytest.StashKey["Harness"]()
_VERDICT: Final = pytest.StashKey[tuple[Verdict, tuple[str, ...], str]]()
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
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        (keep if _selected(item, level, wanted) else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def _selected(item: pytest.Item, level: Level, wanted: frozenset[str]) -> bool:
    requirements = [_lookup(rid) for rid in requirement_ids(item)]
    if requirements and not any(r.at_least(level) for r in requirements):
        return False
    return not wanted or bool(wanted & {r.id for r in requirements})


def _write_listing(path: Path, items: list[pytest.Item]) -> None:
    with path.open("w", encoding="utf-8") as out:
        for item in items:
            out.write(json.dumps({"id": item.nodeid, "requirements": list(requirement_ids(item))}) + "\n")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before any fixture: restart an implementation an earlier test broke, and skip undeclared features."""
    harness = item.config.stash[_HARNESS]
    harness.begin(item)
    reseed(item.config.getoption("hypothesis_seed", None), item.nodeid)
    ids = requirement_ids(item)
    if "implementation" not in getattr(item, "fixturenames", ()):
        return
    harness.heal()
    if not ids:
        return
    implementation = harness.implementation()
    features = {_lookup(rid).feature for rid in ids}
    spec = ids[0].split("/")[0]
    if spec not in implementation.info.specs:
        pytest.skip(f"the implementation does not implement {spec}")
    if None not in features and not features & implementation.features(spec):
        pytest.skip(f"the implementation does not declare feature(s) {', '.join(sorted(map(str, features)))}")


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
        item.stash[_VERDICT] = _verdict(report, call)
    elif report.when == "teardown":
        item.config.stash[_HARNESS].finish(item)
    return report


@pytest.fixture(scope="session")
def implementation(request: pytest.FixtureRequest) -> Implementation:
    """The implementation under test, started once per run and restarted when a test broke it."""
    return request.config.stash[_HARNESS].implementation()


def _verdict(report: pytest.TestReport, call: pytest.CallInfo[None]) -> tuple[Verdict, tuple[str, ...], str]:
    if report.passed:
        return "PASS", (), ""
    if report.skipped:
        return "SKIP", (), _skip_reason(report)
    if call.excinfo is None:
        return "HARNESS", (), report.longreprtext[-2000:]
    verdict, pinned = classify(call.excinfo.value)
    if report.when == "setup" and verdict == "FAIL":
        verdict = "HARNESS"
    if verdict == "HARNESS":
        return verdict, pinned, report.longreprtext[-4000:]
    return verdict, pinned, _describe(call.excinfo)


def _describe(excinfo: pytest.ExceptionInfo[BaseException]) -> str:
    # Cheaper than rendering the traceback, and all a reader needs: where, what, and hypothesis's example.
    error = excinfo.value
    entry = excinfo.traceback[-1] if excinfo.traceback else None
    where = f"{entry.path}:{entry.lineno + 1}\n" if entry is not None else ""
    detail = getattr(error, "detail", "")
    notes = "\n".join(getattr(error, "__notes__", ()))
    return "\n".join(part for part in (f"{where}{type(error).__name__}: {error}", detail[-1500:], notes) if part)[-4000:]


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):  # (path, line, "Skipped: reason")
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def _lookup(requirement_id: str) -> Requirement:
    spec = requirement_id.split("/", maxsplit=1)[0]
    try:
        return load_registry(spec)[requirement_id]
    except (KeyError, ConfigurationError) as error:
        raise pytest.UsageError(f"unknown requirement id {requirement_id!r}: add it to the registry or fix the test") from error


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
                self._write({"event": "configuration", "message": error.message})
                pytest.exit(error.message, returncode=2)
            except ImplementationUnavailable as error:
                self._write({"event": "unavailable", "message": str(error)})
                pytest.exit(str(error), returncode=3)
            self._implementation = implementation
            self._write({"event": "started", "adapter": adapter_text, "implementation": implementation.info.describe()})
        return self._implementation

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
        verdict, pinned, message = item.stash.get(_VERDICT, ("PASS", (), ""))
        ids = requirement_ids(item)
        record = {
            "event": "test",
            "id": item.nodeid,
            "name": item.name,
            "spec": ids[0].split("/")[0] if ids else None,
            "requirements": list(ids),
            "failed_requirements": list(pinned or (ids if verdict not in ("PASS", "SKIP") else ())),
            "verdict": verdict,
            "duration_s": round(max(0.0, time.monotonic() - self._started_at.pop(item.nodeid, time.monotonic())), 6),
            "message": message,
            "transcript": self._transcript() if verdict not in ("PASS", "SKIP") else [],
        }
        self._write(record)
        self._show(verdict)

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
        self._write({"event": kind, "at_s": at, "test": self._current, "message": message, **fields})

    def _write(self, record: dict[str, Any]) -> None:
        if self._results:
            with Path(self._results).open("a", encoding="utf-8") as out:
                out.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")

    def _show(self, verdict: str) -> None:
        if not self._progress:
            return
        self._done += 1
        sys.stderr.write(_MARKS.get(verdict, "?"))
        if self._done % 60 == 0:
            sys.stderr.write(f" {self._done}\n")
        sys.stderr.flush()
