"""Mutants of section 7.1, Purpose (of CompletionTraces)."""

from __future__ import annotations

from ctxconform.reference.content_provider import CompletionTrace, ContentProviders

from ._base import CATALOGUE


@CATALOGUE.mutant("content-provider/7.1/diagnostic-visibility")
class OpenTracesHidden(ContentProviders):
    """The reference, except that get_traces lists only the traces that have ended."""

    def traces(self, execution_id: str) -> list[CompletionTrace]:
        """The execution's ended traces, in invocation order."""
        return [trace for trace in super().traces(execution_id) if trace.ended]
