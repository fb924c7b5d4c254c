"""Mutants of the reference: each breaks exactly one behaviour, to prove the suite catches it.

Each spec package of the reference keeps its own in `<spec>/mutants/`, split by section of the spec. Name one as
an adapter: ``python:ctxconform.reference.mutants:versions_do_not_increment``.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from ctxconform.reference._implementation import spec_packages
from ctxconform.reference.mutants._catalogue import EDGES, Catalogue, Mutant

__all__ = ["EDGES", "MUTANTS", "Catalogue", "Mutant", "mutant_named"]


@cache
def _by_name() -> dict[str, Mutant]:
    found: dict[str, Mutant] = {}
    for package in spec_packages():
        for mutant in importlib.import_module(f"{package.__name__}.mutants").MUTANTS:
            if mutant.name in found:
                raise RuntimeError(f"two mutants are called {mutant.name}: rename one")
            found[mutant.name] = mutant
    return found


def mutant_named(name: str) -> Mutant:
    """Return the mutant called `name`; raise KeyError when there is none."""
    return _by_name()[name]


def __getattr__(name: str) -> Any:
    # Found on first use, so that starting the reference never imports a mutant; `MUTANTS` is every spec's, and
    # `python:ctxconform.reference.mutants:NAME` reaches each mutant's factory.
    if name == "MUTANTS":
        return tuple(_by_name().values())
    if not name.islower() or name.startswith("_"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        return _by_name()[name].factory
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no mutant {name!r}") from None
