"""Mutants of section 3, Implementation Goals & Constraints."""

from __future__ import annotations

from ctxconform.reference.content_provider import CompletionTrace, ContentProviderHandler, ContentProviders
from ctxconform.reference.exceptions import SpecError

from ._base import CATALOGUE, Json


@CATALOGUE.mutant("content-provider/3/exactly-two-classifications")
class UnknownClassificationIsConsumable(ContentProviderHandler):
    """The reference, except that add_register takes any classification but Session as Consumable."""

    def call(self, op: str, args: Json, context: Json) -> Json:
        """Carry out one operation, add_register with an unknown classification as if it said Consumable."""
        unknown = isinstance(args, dict) and isinstance(args.get("classification"), str) and args["classification"] != "Session"
        if op == "add_register" and unknown:
            args = {**args, "classification": "Consumable"}
        return super().call(op, args, context)


@CATALOGUE.mutant("content-provider/3/independent-of-choreography")
class InvocationsBecomeRegisters(ContentProviders):
    """The reference, except that beginning a trace also adds an empty register named after the invocation."""

    def begin_trace(self, execution_id: str) -> CompletionTrace:
        """Open the next invocation's trace and add a Session register named after it."""
        trace = super().begin_trace(execution_id)
        self.add_register(execution_id, f"Invocation {trace.invocation}", "Session")
        return trace


@CATALOGUE.mutant("content-provider/3/multi-invocation-flows", edge="degenerate")
class EmptyRequestIsNotPending(ContentProviders):
    """The reference, except that a request that carried no Consumable item counts as no pending request (`if not pending`)."""

    def delivered(self, execution_id: str) -> int:
        """Refuse the delivery of a request that carried nothing, else clear what it carried."""
        if not self.execution(execution_id).pending:
            raise SpecError("NO_PENDING_REQUEST", "no composed request is pending; call compose first")
        return super().delivered(execution_id)
