"""The pytest plugin: runs the conformance suites against an adapter and records a verdict per test.

It is registered through the ``pytest11`` entry point and stays inert until a suite test asks for
the ``implementation`` fixture, so it never changes other projects' test runs.
"""

from __future__ import annotations

import sys
from collections.abc import Generator
from pathlib import Path
from typing import Any, Final

import pytest

from ctxconform.conformance.exceptions import ConfigurationError
from ctxconform.conformance.judge._judgement import Judgement, judge
from ctxconform.conformance.judge._ledger import Ledger, activate, lookup
from ctxconform.conformance.judge._registry import Level, Requirement
from ctxconform.conformance.judge._results import CollectedLine, write_line
from ctxconform.conformance.judge._unique import reseed
from ctxconform.conformance.run._profiles import register_profiles
from ctxconform.conformance.run._request import SuiteRequest, add_options
from ctxconform.conformance.run._session import Harness, requirement_ids
from ctxconform.conformance.transports._implementation import Implementation

__all__ = ["implementation"]

register_profiles()

_HARNESS: Final = pytest.StashKey["Harness"]()
_JUDGEMENT: Final = pytest.StashKey[Judgement]()
_LEDGER: Final = pytest.StashKey[Ledger]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the ctxconform options."""
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers and the harness."""
    config.addinivalue_line("markers", "requirement(*ids): the requirement ids a conformance test checks")
    config.addinivalue_line("markers", "edge(name): the class of edge input a test draws (identifiers, wrong-types, ...)")
    config.stash[_HARNESS] = Harness(SuiteRequest.from_config(config))


def pytest_unconfigure(config: pytest.Config) -> None:
    """Stop the implementation."""
    harness = config.stash.get(_HARNESS, None)
    if harness is not None:
        harness.close()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Refuse unknown requirement ids; deselect tests below the requested level or not naming a requested requirement."""
    request = config.stash[_HARNESS].request
    if request.collect:
        _write_listing(request.collect, items)
        return
    level = request.level
    wanted = frozenset(_lookup(rid).id for rid in request.requirements)
    tests = frozenset(request.tests)
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        (keep if _selected(item, level, wanted, tests) else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def pytest_collection_finish(session: pytest.Session) -> None:
    """Note the tests the run will run, after every plugin (-k too) has deselected its share."""
    harness = session.config.stash[_HARNESS]
    if not harness.request.collect:
        harness.expect(session.items)
    if session.config.getoption("--ctxconform-adapter") is None and any(_is_suite_test(i) for i in session.items):
        _say(session.config, _DEFAULT_ADAPTER)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Give each selected test that never reported a verdict: a run that ended early is never conformant."""
    harness = session.config.stash.get(_HARNESS, None)
    if harness is not None:
        harness.unreported(f"pytest exit {int(exitstatus)}")


_DEFAULT_ADAPTER: Final = (
    "ctxconform: no --ctxconform-adapter given, so the suites test the reference implementation;"
    " pass --ctxconform-adapter=stdio:COMMAND (or python:, mcp+stdio:, http://...) to test yours"
)


def _is_suite_test(item: pytest.Item) -> bool:
    return "implementation" in getattr(item, "fixturenames", ())


def _say(config: pytest.Config, line: str) -> None:
    """One line on pytest's terminal, or on stderr when it has none (-p no:terminal)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(line, yellow=True)
    else:
        print(line, file=sys.stderr)


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
        item.config.stash[_HARNESS].finish(item, item.stash.get(_LEDGER, None), item.stash.get(_JUDGEMENT, None))
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
