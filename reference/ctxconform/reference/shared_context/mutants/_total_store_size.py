"""Mutants that break section 4.2 of shared-context, Total Store Size."""

from __future__ import annotations

from ctxconform.reference.shared_context import MAX_STORE_TOKENS, Session
from ctxconform.reference.shared_context.mutants._base import CATALOGUE, StoreLimit


@CATALOGUE.mutant(
    "shared-context/4.2/store-size-limit",
    "shared-context/8.2/limits-approximate-counting",
)
class StoreLimitCheckedBeforeWrite(StoreLimit):
    """The reference, except that a write is refused only when the store is already full, so it may overfill it."""

    def refuses(self, session: Session, total: int) -> bool:  # noqa: ARG002 - the new total is what it forgets
        return session.total_tokens >= MAX_STORE_TOKENS


@CATALOGUE.mutant("shared-context/4.2/store-size-limit", "shared-context/5/store-full", edge="boundaries")
class StoreLimitExclusive(StoreLimit):
    """The reference, except that the store must stay under 10,000 tokens (`<` where the limit allows `<=`)."""

    def refuses(self, session: Session, total: int) -> bool:  # noqa: ARG002 - the new total alone decides
        return not total < MAX_STORE_TOKENS
