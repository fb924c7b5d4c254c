"""Mutants of section 5.3, Structural Responsibility."""

from __future__ import annotations

from ctxconform.reference.content_provider import ContentProviders, Register

from ._base import CATALOGUE


@CATALOGUE.mutant("content-provider/5.3/state-holders-only")
class ItemsAreTrimmed(ContentProviders):
    """The reference, except that appended items are stripped of leading and trailing whitespace."""

    def append(self, execution_id: str, name: str, item: str) -> Register:
        """Append a text item stripped of its outer whitespace."""
        return super().append(execution_id, name, item.strip())
