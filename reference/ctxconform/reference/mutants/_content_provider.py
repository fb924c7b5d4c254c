"""Mutants of the content-provider reference."""

from __future__ import annotations

from functools import partial

from ctxconform.reference._implementation import Reference
from ctxconform.reference.content_provider import ComposedRequest, ContentProviders, open_handler
from ctxconform.reference.mutants._catalogue import Mutant, mutant

__all__ = ["MUTANTS"]

MUTANTS: list[Mutant] = []


class _ClearsSession(ContentProviders):
    def compose(self, execution_id: str) -> ComposedRequest:
        composed = super().compose(execution_id)
        for register in self.provider(execution_id).registers.values():
            if register.classification == "Session":
                register.items.clear()
        return composed


class _ConsumesEarly(ContentProviders):
    def compose(self, execution_id: str) -> ComposedRequest:
        composed = super().compose(execution_id)
        execution = self.execution(execution_id)
        for key, count in composed.carries.items():
            del execution.provider.registers[key].items[:count]
        execution.pending = {}  # already consumed: the delivery report has nothing left to clear
        return composed


@mutant("content-provider/4.3/session-not-cleared", catalogue=MUTANTS)
def clears_session_on_compose() -> Reference:
    """The reference, except that composing a request also empties every Session register."""
    return Reference(name="mutant:clears_session_on_compose", content_provider=partial(open_handler, service=_ClearsSession))


@mutant("content-provider/4.3/consumable-kept-until-delivered", catalogue=MUTANTS)
def consumes_before_delivery() -> Reference:
    """The reference, except that composing a request clears the Consumable items it carries, before any delivery."""
    return Reference(name="mutant:consumes_before_delivery", content_provider=partial(open_handler, service=_ConsumesEarly))
