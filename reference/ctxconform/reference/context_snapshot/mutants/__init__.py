"""The context-snapshot mutants, one module per section of the document: each breaks one behaviour the suite must catch."""

from __future__ import annotations

from ctxconform.reference.mutants import Mutant

# Importing a section module registers its mutants in the catalogue.
from . import _blob_retention, _definition, _enums, _items, _purpose, _structs  # noqa: F401
from ._base import CATALOGUE

__all__ = ["MUTANTS"]

MUTANTS: tuple[Mutant, ...] = tuple(CATALOGUE.mutants)
