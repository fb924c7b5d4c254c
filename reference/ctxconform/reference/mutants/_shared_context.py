"""Mutants of the shared-context reference."""

from __future__ import annotations

import re

from ctxconform.reference._implementation import Reference
from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.mutants._catalogue import Mutant, mutant
from ctxconform.reference.shared_context import Entry, SharedContext, check_key

__all__ = ["MUTANTS"]

MUTANTS: list[Mutant] = []


class _NoIncrement(SharedContext):
    def next_version(self, old: Entry | None) -> int:  # noqa: ARG002 - ignoring the old version is the mutation
        return 1


class _LongKeys(SharedContext):
    def check_key(self, key: object) -> str:
        if isinstance(key, str) and re.fullmatch(r"[a-z0-9_]{65,80}", key):
            return key
        if isinstance(key, str) and not key:
            raise SpecError("INVALID_KEY", "empty key")
        return check_key(key)


@mutant("shared-context/3.3/version-increments", catalogue=MUTANTS)
def versions_do_not_increment() -> Reference:
    """The reference, except that overwriting a key keeps version 1."""
    return Reference(name="mutant:versions_do_not_increment", shared_context=_NoIncrement)


@mutant("shared-context/4.3/key-max-length", catalogue=MUTANTS)
def accepts_long_keys() -> Reference:
    """The reference, except that write accepts keys of up to 80 characters."""
    return Reference(name="mutant:accepts_long_keys", shared_context=_LongKeys)
