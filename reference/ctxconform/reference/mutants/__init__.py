"""Mutants of the reference: each breaks exactly one requirement, to prove the suite catches it.

Name one as an adapter: ``python:ctxconform.reference.mutants:versions_do_not_increment``.
"""

from __future__ import annotations

from ctxconform.reference.mutants._catalogue import MUTANTS, Mutant
from ctxconform.reference.mutants._content_provider import clears_session_on_compose, consumes_before_delivery
from ctxconform.reference.mutants._context_assembly import keeps_annotation_nodes, tree_context_first, truncates_system_context
from ctxconform.reference.mutants._context_snapshot import hashes_without_header
from ctxconform.reference.mutants._read_context import log_oldest_first, notes_truncate_at_50
from ctxconform.reference.mutants._shared_context import accepts_long_keys, versions_do_not_increment

__all__ = [
    "MUTANTS",
    "Mutant",
    "accepts_long_keys",
    "clears_session_on_compose",
    "consumes_before_delivery",
    "hashes_without_header",
    "keeps_annotation_nodes",
    "log_oldest_first",
    "notes_truncate_at_50",
    "tree_context_first",
    "truncates_system_context",
    "versions_do_not_increment",
]
