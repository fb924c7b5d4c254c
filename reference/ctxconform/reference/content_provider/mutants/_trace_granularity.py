"""Mutants of section 7.2, Granularity (of CompletionTraces)."""

from __future__ import annotations

from ctxconform.reference.content_provider import CompletionTrace, ContentProviders

from ._base import CATALOGUE


@CATALOGUE.mutant("content-provider/7.2/one-trace-per-invocation")
class TracesOverlap(ContentProviders):
    """The reference, except that begin_trace opens another trace while one is still open."""

    def begin_trace(self, execution_id: str) -> CompletionTrace:
        """Open the trace of the next invocation, whether or not one is open."""
        execution = self.execution(execution_id)
        trace = CompletionTrace(len(execution.traces) + 1)
        execution.traces.append(trace)
        return trace


@CATALOGUE.mutant("content-provider/7.2/multiple-traces", "content-provider/3/multi-invocation-flows")
class KeepsOnlyTheLatestTrace(ContentProviders):
    """The reference, except that beginning a trace drops the traces before it (numbering goes on)."""

    def begin_trace(self, execution_id: str) -> CompletionTrace:
        """Open the trace of the next invocation in place of the execution's earlier traces."""
        execution = self.execution(execution_id)
        number = execution.traces[-1].invocation + 1 if execution.traces else 1
        trace = super().begin_trace(execution_id)
        trace.invocation = number
        execution.traces[:] = [trace]
        return trace
