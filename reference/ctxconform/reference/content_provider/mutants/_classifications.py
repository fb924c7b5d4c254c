"""Mutants of section 4.3, Context Classifications."""

from __future__ import annotations

from dataclasses import replace

from ctxconform.reference.content_provider import ComposedRequest, ContentProviders, ProviderStore

from ._base import CATALOGUE


@CATALOGUE.mutant(
    "content-provider/4.3/session-not-cleared",
    "content-provider/4.3/session-persistent-across-calls",
    "content-provider/3/independent-of-choreography",
)
class ClearsSessionOnCompose(ContentProviders):
    """The reference, except that composing a request also empties every Session register."""

    def compose(self, execution_id: str) -> ComposedRequest:
        """Compose the next request, then empty the Session registers."""
        composed = super().compose(execution_id)
        for register in self.provider(execution_id).registers.values():
            if register.classification == "Session":
                register.items.clear()
        return composed


@CATALOGUE.mutant(
    "content-provider/4.3/consumable-kept-until-delivered",
    "content-provider/4.3/consumable-cleared-after-delivery",
    "content-provider/3/independent-of-choreography",
)
class ConsumesBeforeDelivery(ContentProviders):
    """The reference, except that composing a request clears the Consumable items it carries, before any delivery."""

    def compose(self, execution_id: str) -> ComposedRequest:
        """Compose the next request and clear the Consumable items it carries at once."""
        composed = super().compose(execution_id)
        execution = self.execution(execution_id)
        for key, count in composed.carries.items():
            del execution.provider.registers[key].items[:count]
        execution.pending = {}  # already consumed: the delivery report has nothing left to clear
        return composed


@CATALOGUE.mutant("content-provider/4.3/session-persistent-across-calls")
class InstructionsOnlyUntilFirstDelivery(ContentProviders):
    """The reference, except that after a successful delivery requests carry an empty instructions lane."""

    def __init__(self, store: ProviderStore) -> None:
        super().__init__(store)
        self.instructed: set[str] = set()

    def delivered(self, execution_id: str) -> int:
        """Clear what the pending request carried, and remember that the execution was instructed."""
        cleared = super().delivered(execution_id)
        self.instructed.add(execution_id)
        return cleared

    def compose(self, execution_id: str) -> ComposedRequest:
        """Compose the next request, without instructions once the execution was instructed."""
        composed = super().compose(execution_id)
        return replace(composed, instructions="") if execution_id in self.instructed else composed


@CATALOGUE.mutant("content-provider/4.3/consumable-for-llm")
class BlankConsumablesHeldBack(ContentProviders):
    """The reference, except that blank Consumable items are left out of the request (yet cleared by its delivery)."""

    def compose(self, execution_id: str) -> ComposedRequest:
        """Compose the next request without its blank text items."""
        composed = super().compose(execution_id)
        kept = tuple(item for item in composed.input if item["type"] != "text" or item["text"].strip())
        return replace(composed, input=kept)


@CATALOGUE.mutant("content-provider/4.3/consumable-cleared-after-delivery")
class DeliveryLeavesTheLastItem(ContentProviders):
    """The reference, except that a delivery leaves the last item each Consumable register's request carried."""

    def delivered(self, execution_id: str) -> int:
        """Clear all but the last item of each Consumable register the pending request carried."""
        execution = self.execution(execution_id)
        if execution.pending is not None:
            execution.pending = {key: count - 1 for key, count in execution.pending.items()}
        return super().delivered(execution_id)
