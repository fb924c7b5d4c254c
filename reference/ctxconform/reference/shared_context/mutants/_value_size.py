"""Mutants that break section 4.1 of shared-context, Value Size."""

from __future__ import annotations

from ctxconform.reference.shared_context import SharedContext
from ctxconform.reference.shared_context.mutants._base import CATALOGUE


@CATALOGUE.mutant("shared-context/4.1/value-size-limit", name="value_limit_is_1024_tokens")
class ValueLimitIs1024Tokens(SharedContext):
    """The reference, except that values of up to 1024 tokens are accepted."""

    max_value_tokens = 1024
