"""The ledger of one test: every check that held, per requirement, and the features the implementation declares.

Checks write to the ledger of the test being run; the plugin opens one before a test's fixtures are set up and reads
it when the test has ended. A requirement is evidenced only by a check of it that ran: nothing else writes here.
"""

from __future__ import annotations

import contextlib
import difflib
from collections import Counter
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Final

from ctxconform.conformance.exceptions import ConfigurationError, UndeclaredRequirement
from ctxconform.conformance.judge._registry import Requirement
from ctxconform.conformance.judge._specs import load_registry, spec_of

__all__ = ["Ledger", "activate", "current_ledger", "lookup", "open_ledger"]


def lookup(requirement_id: str) -> Requirement:
    """Return a requirement by id; raise ConfigurationError for an id no registry holds."""
    registry = load_registry(spec_of(requirement_id))
    try:
        return registry[requirement_id]
    except KeyError:
        # Matched after the spec's prefix, which every id shares and would make any two look alike.
        prefix = f"{registry.spec}/"
        tails = sorted(rid.removeprefix(prefix) for rid in registry.ids)
        close = difflib.get_close_matches(requirement_id.removeprefix(prefix), tails, n=1)
        hint = f"; did you mean {prefix + close[0]!r}?" if close else ""
        raise ConfigurationError(
            f"unknown requirement id {requirement_id!r}{hint} (`ctxconform requirements` lists them; a test naming it:"
            " add it to the registry or fix the test)"
        ) from None


@dataclass
class Ledger:
    """What one test evidenced: the checks that held, per requirement, and what it may check."""

    test: str
    declared: frozenset[str]
    features: Callable[[str], frozenset[str]] | None = None
    held: Counter[str] = field(default_factory=Counter)
    skipped: dict[str, str] = field(default_factory=dict)
    setting_up: bool = True  # calls made while fixtures are set up serve their operation's requirement

    def guard(self, requirement: str) -> None:
        """Refuse a requirement the test does not declare; skip the test when its feature is not declared."""
        if self.declared and requirement not in self.declared:
            raise UndeclaredRequirement(requirement, self.test)
        feature = lookup(requirement).feature
        if feature is not None:
            self.need(requirement.split("/", maxsplit=1)[0], feature)

    def need(self, spec: str, feature: str) -> None:
        """Skip the rest of the test (before anything is sent) when the implementation does not declare `feature`."""
        if self.features is None or feature in self.features(spec):
            return
        for rid in self.declared:
            if lookup(rid).feature == feature:
                self.skipped[rid] = f"the implementation does not declare feature {feature}"
        # Imported here: the CLI looks requirements up in this module and starts faster without pytest.
        import pytest  # noqa: PLC0415

        pytest.skip(f"the implementation does not declare feature {feature} of {spec}")

    def hold(self, requirement: str) -> None:
        """Note that a check of `requirement` ran and held."""
        self.held[requirement] += 1


_NOWHERE: Final = Ledger(test="(outside a conformance test)", declared=frozenset())
_CURRENT: ContextVar[Ledger] = ContextVar("ctxconform_ledger", default=_NOWHERE)


def current_ledger() -> Ledger:
    """The ledger of the test being run (a permissive one outside the plugin, so clients work in plain scripts)."""
    return _CURRENT.get()


@contextlib.contextmanager
def open_ledger(ledger: Ledger) -> Iterator[Ledger]:
    """Make `ledger` the current one until the block ends."""
    token = _CURRENT.set(ledger)
    try:
        yield ledger
    finally:
        _CURRENT.reset(token)


def activate(ledger: Ledger | None) -> None:
    """Make `ledger` the current one from now on (None: none), for the plugin's hooks, which no block spans."""
    _CURRENT.set(_NOWHERE if ledger is None else ledger)
