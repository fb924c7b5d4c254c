"""Mutants of the reference: each breaks exactly one requirement, to prove the suite catches it.

Name one as an adapter: ``python:ctxconform.reference.mutants:versions_do_not_increment``.
"""

from __future__ import annotations

from ctxconform.reference.mutants._catalogue import MUTANTS, Mutant
from ctxconform.reference.mutants._context_assembly import keeps_annotation_nodes, tree_context_first, truncates_system_context
from ctxconform.reference.mutants._read_context import log_oldest_first, notes_truncate_at_50
from ctxconform.reference.mutants._shared_context import accepts_long_keys, versions_do_not_increment

__all__ = [
    "MUTANTS",
    "Mutant",
    "accepts_long_keys",
    "keeps_annotation_nodes",
    "log_oldest_first",
    "notes_truncate_at_50",
    "tree_context_first",
    "truncates_system_context",
    "versions_do_not_increment",
]
