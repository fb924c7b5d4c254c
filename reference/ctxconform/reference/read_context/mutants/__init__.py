"""The read-context mutants, one module per section of ADR-059 that the requirement each breaks first belongs to."""

from __future__ import annotations

from ctxconform.reference.mutants import Mutant
from ctxconform.reference.read_context.mutants import (
    _conflicts,
    _consequences,
    _implementation_notes,
    _loading_order,
    _response_shape,
    _summarization,
    _tolerance,
)
from ctxconform.reference.read_context.mutants._base import CATALOGUE

__all__ = ["MUTANTS"]

# Importing a section module registers its mutants in CATALOGUE; this names them all, in the order of the ADR.
_SECTIONS = (_loading_order, _response_shape, _summarization, _tolerance, _conflicts, _consequences, _implementation_notes)

MUTANTS: tuple[Mutant, ...] = tuple(CATALOGUE.mutants)
