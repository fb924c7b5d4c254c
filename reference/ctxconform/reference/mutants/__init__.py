"""Mutants of the reference: each breaks exactly one behaviour, to prove the suite catches it.

Name one as an adapter: ``python:ctxconform.reference.mutants:versions_do_not_increment``.
"""

from __future__ import annotations

from ctxconform.reference.mutants import (
    _content_provider,
    _context_assembly,
    _context_snapshot,
    _read_context,
    _shared_context,
)
from ctxconform.reference.mutants._catalogue import Factory, Mutant

__all__ = ["MUTANTS", "Mutant", "mutant_named"]

MUTANTS: tuple[Mutant, ...] = (
    *_shared_context.MUTANTS,
    *_read_context.MUTANTS,
    *_context_assembly.MUTANTS,
    *_content_provider.MUTANTS,
    *_context_snapshot.MUTANTS,
)
_BY_NAME = {m.name: m for m in MUTANTS}
if len(_BY_NAME) != len(MUTANTS):
    raise RuntimeError("two mutants share a name: rename one")


def mutant_named(name: str) -> Mutant:
    """Return the mutant called `name`; raise KeyError when there is none."""
    return _BY_NAME[name]


def __getattr__(name: str) -> Factory:
    # So that `python:ctxconform.reference.mutants:NAME` reaches each mutant's factory.
    try:
        return _BY_NAME[name].factory
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no mutant {name!r}") from None
