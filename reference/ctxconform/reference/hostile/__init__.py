"""Hostile implementations: stdio programs that attack the harness, each with the verdict it must get.

Mutants prove the suites catch what the spec forbids; these prove the harness survives what an implementation may do
to it (huge, endless, deep or broken replies, daemons, floods, silence) and still gives the implementation's verdict,
within a memory bound, leaving no process behind. ``ctxconform hostile`` runs them all and prints a table; run one by
hand with ``ctxconform run --adapter "stdio:python -m ctxconform.reference.hostile NAME"``.
"""

from __future__ import annotations

from typing import Final

from ctxconform.reference.hostile._catalogue import SELECTION, Fake
from ctxconform.reference.hostile._fakes import HOSTILE

__all__ = ["FAKES", "SELECTION", "Fake", "fake_named"]

FAKES: Final[tuple[Fake, ...]] = tuple(HOSTILE.fakes)
"""Every hostile implementation, in the order they are defined."""


def fake_named(name: str) -> Fake:
    """Return the fake called `name`; raise KeyError when there is none."""
    for fake in FAKES:
        if fake.name == name:
            return fake
    raise KeyError(name)
