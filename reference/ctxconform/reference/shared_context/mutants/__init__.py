"""The mutants of the shared-context reference, one module per section of the spec that each mutant breaks first."""

from __future__ import annotations

from typing import Final

from ctxconform.reference.mutants import Mutant
from ctxconform.reference.shared_context.mutants import (
    _concurrency,
    _delete,
    _durability,
    _entry,
    _error_handling,
    _key_namespace,
    _key_naming,
    _list_keys,
    _operations,
    _participants,
    _read,
    _session,
    _session_lifecycle,
    _storage_backend,
    _total_store_size,
    _value_size,
    _write,
)
from ctxconform.reference.shared_context.mutants._base import CATALOGUE

__all__ = ["MUTANTS"]

# Importing a section's module registers its mutants; these are the sections in the order of the spec.
_SECTIONS: Final = (
    _session,  # 2.1
    _participants,  # 2.2
    _entry,  # 2.3
    _key_namespace,  # 2.4
    _operations,  # 3
    _list_keys,  # 3.1
    _read,  # 3.2
    _write,  # 3.3
    _delete,  # 3.4
    _value_size,  # 4.1
    _total_store_size,  # 4.2
    _key_naming,  # 4.3
    _concurrency,  # 4.4
    _durability,  # 4.5
    _error_handling,  # 5
    _storage_backend,  # 8.1
    _session_lifecycle,  # 8.4
)

MUTANTS: tuple[Mutant, ...] = tuple(CATALOGUE.mutants)
