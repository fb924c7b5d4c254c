"""The mutants of the context-assembly reference, one module per section of the spec they break first."""

from __future__ import annotations

from ctxconform.reference.mutants import Mutant

from . import (  # noqa: F401 - each section module registers its mutants when imported
    _buffer_mode,
    _dialogue_mode,
    _exclusion_filtering,
    _guarantees,
    _multi_source_edges,
    _provider_handling,
    _system_context_combination,
    _token_estimation,
    _truncation,
    _user_preferences,
)
from ._base import CATALOGUE

__all__ = ["MUTANTS"]

MUTANTS: tuple[Mutant, ...] = tuple(CATALOGUE.mutants)
"""Every context-assembly mutant."""
