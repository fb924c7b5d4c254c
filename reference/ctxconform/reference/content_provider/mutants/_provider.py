"""Mutants of section 4.1, ContentProvider."""

from __future__ import annotations

from dataclasses import replace

from ctxconform.reference.content_provider import ComposedRequest, ContentProviders

from ._base import CATALOGUE


@CATALOGUE.mutant("content-provider/4.1/holds-all-prompt-context")
class PadsAnEmptyRequest(ContentProviders):
    """The reference, except that a request with no Consumable item gets a made-up "Continue." input item."""

    def compose(self, execution_id: str) -> ComposedRequest:
        """Compose the next request, with a "Continue." item when it would have no input."""
        composed = super().compose(execution_id)
        if composed.input:
            return composed
        return replace(composed, input=({"type": "text", "register": "User", "text": "Continue."},))
