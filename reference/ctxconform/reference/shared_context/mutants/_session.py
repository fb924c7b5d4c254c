"""Mutants that break section 2.1 of shared-context, Session."""

from __future__ import annotations

from ctxconform.reference.shared_context import MAX_STORE_TOKENS, Session
from ctxconform.reference.shared_context.mutants._base import CATALOGUE, StoreLimit, Tracking, session_of


@CATALOGUE.mutant("shared-context/2.1/one-store-per-session")
class SessionsShareOneTokenBudget(Tracking, StoreLimit):
    """The reference, except that the 10,000-token limit counts the values of every session together."""

    def refuses(self, session: Session, total: int) -> bool:
        others = (session_of(self, sid) for sid in self.known - {session.session_id})
        return total + sum(other.total_tokens for other in others if other is not None) > MAX_STORE_TOKENS
