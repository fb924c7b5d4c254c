"""Mutants of section 7.3, Structure (of CompletionTraces)."""

from __future__ import annotations

from ctxconform.reference.content_provider import (
    CompletionTrace,
    ContentProvider,
    ContentProviderHandler,
    ContentProviders,
    ProviderStore,
    TokenTotals,
)
from ctxconform.reference.exceptions import SpecError

from ._base import CATALOGUE, Json


@CATALOGUE.mutant("content-provider/7.3/list-of-traces")
class ExecutionsShareOneTraceList(ContentProviders):
    """The reference, except that every execution's traces go into one list all executions share."""

    def __init__(self, store: ProviderStore) -> None:
        super().__init__(store)
        self.shared: list[CompletionTrace] = []

    def create(self, execution_id: str, provider: ContentProvider | None = None) -> ContentProvider:
        """Give an execution its provider, and the trace list every execution shares."""
        created = super().create(execution_id, provider)
        self.executions[execution_id].traces = self.shared
        return created


@CATALOGUE.mutant("content-provider/7.3/token-totals")
class DropsReasoningAndCachedTokens(ContentProviders):
    """The reference, except that an ended trace keeps only the prompt, completion and total token counts."""

    def end_trace(self, execution_id: str, tokens: TokenTotals, summary: Json) -> CompletionTrace:
        """End the open trace with its prompt, completion and total counts only."""
        return super().end_trace(execution_id, TokenTotals(tokens.prompt, tokens.completion, tokens.total), summary)


@CATALOGUE.mutant("content-provider/7.3/summary-data")
class SummaryKeepsOriginFieldsOnly(ContentProviders):
    """The reference, except that a trace's summary keeps only status, executionTimeMs and responseId."""

    def end_trace(self, execution_id: str, tokens: TokenTotals, summary: Json) -> CompletionTrace:
        """End the open trace with the origin's summary fields only."""
        kept = {name: value for name, value in summary.items() if name in ("status", "executionTimeMs", "responseId")}
        return super().end_trace(execution_id, tokens, kept)


@CATALOGUE.mutant("content-provider/7.3/steps-list")
class TracesShareOneStepList(ContentProviders):
    """The reference, except that every trace of an execution shares the first trace's list of steps."""

    def begin_trace(self, execution_id: str) -> CompletionTrace:
        """Open the trace of the next invocation over the first trace's steps."""
        trace = super().begin_trace(execution_id)
        trace.steps = self.execution(execution_id).traces[0].steps
        return trace


@CATALOGUE.mutant("content-provider/7.3/order-implies-invocation-order")
class NewestTraceFirst(ContentProviders):
    """The reference, except that get_traces lists the most recent invocation first."""

    def traces(self, execution_id: str) -> list[CompletionTrace]:
        """The execution's traces, the most recent first."""
        return list(reversed(super().traces(execution_id)))


@CATALOGUE.mutant("content-provider/7.3/token-totals", edge="boundaries")
class ZeroTokenCountIsMissing(ContentProviderHandler):
    """The reference, except that a token count is checked for truthiness, so a count of 0 is refused as missing."""

    def call(self, op: str, args: Json, context: Json) -> Json:
        """Refuse token totals with a required count that is falsy, then carry out the operation."""
        tokens = args.get("tokens") if op == "end_trace" and isinstance(args, dict) else None
        if isinstance(tokens, dict) and not all(tokens.get(name) for name in ("prompt", "completion", "total")):
            raise SpecError("INVALID_REQUEST", "tokens needs prompt, completion and total")
        return super().call(op, args, context)
