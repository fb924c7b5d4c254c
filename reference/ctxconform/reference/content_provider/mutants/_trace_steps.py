"""Mutants of section 7.4, Steps (of CompletionTraces)."""

from __future__ import annotations

from ctxconform.reference.content_provider import CompletionTrace, ContentProviders
from ctxconform.reference.exceptions import SpecError

from ._base import CATALOGUE, Json


@CATALOGUE.mutant("content-provider/7.4/steps-capture-diagnostics")
class NewestStepFirst(ContentProviders):
    """The reference, except that a trace lists its most recent step first."""

    def add_step(self, execution_id: str, step: Json) -> CompletionTrace:
        """Put a step first in the open trace."""
        trace = super().add_step(execution_id, step)
        trace.steps.insert(0, trace.steps.pop())
        return trace


@CATALOGUE.mutant("content-provider/7.4/step-schema-deferred", name="steps_need_a_kind")
class StepsNeedAKind(ContentProviders):
    """The reference, except that a step without a string kind is refused."""

    def add_step(self, execution_id: str, step: Json) -> CompletionTrace:
        """Add a step to the open trace, refusing one that names no kind."""
        if not isinstance(step.get("kind"), str):
            raise SpecError("INVALID_REQUEST", "a step must name its kind")
        return super().add_step(execution_id, step)
