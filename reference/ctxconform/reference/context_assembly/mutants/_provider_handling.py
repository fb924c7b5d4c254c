"""Mutants of section "Provider Handling": where the combined system context goes."""

from __future__ import annotations

from ctxconform.reference.context_assembly import Assembler, Fitted

from ._base import CATALOGUE, Json


@CATALOGUE.mutant("context-assembly/provider-handling/dedicated-field")
class SystemContextAlsoFirstMessage(Assembler):
    """The reference, except that the system context is also sent as a first user message."""

    def result(self, fitted: Fitted, system: str, *, buffer_mode: bool) -> Json:
        """The reference's result, with the system context repeated as the first message in dialogue mode."""
        result = super().result(fitted, system, buffer_mode=buffer_mode)
        if system and not buffer_mode:
            result["messages"].insert(0, {"role": "user", "content": system})
        return result
