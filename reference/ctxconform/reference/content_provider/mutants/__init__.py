"""The content-provider mutants, one module per section of the spec: each breaks one behaviour the suite must catch."""

from __future__ import annotations

from ctxconform.reference.mutants import Mutant

# Importing a section module registers its mutants in the catalogue.
from . import (  # noqa: F401
    _classifications,
    _goals_and_constraints,
    _persistence,
    _provider,
    _register_organization,
    _registers,
    _structural_responsibility,
    _tool_call_manifest,
    _trace_granularity,
    _trace_purpose,
    _trace_steps,
    _trace_structure,
)
from ._base import CATALOGUE

__all__ = ["MUTANTS"]

MUTANTS: tuple[Mutant, ...] = tuple(CATALOGUE.mutants)
