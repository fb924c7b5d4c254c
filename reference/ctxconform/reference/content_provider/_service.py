"""The executions and their providers (the AgentRequestHandler's part): registers, delivery, traces, persistence."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ctxconform.reference.content_provider._compose import ComposedRequest, compose
from ctxconform.reference.content_provider._model import (
    TOOL_CALL_MANIFEST,
    Classification,
    ContentProvider,
    Register,
    ToolCall,
    register_key,
)
from ctxconform.reference.content_provider._store import ProviderStore
from ctxconform.reference.content_provider._trace import CompletionTrace, TokenTotals
from ctxconform.reference.exceptions import SpecError

__all__ = ["ContentProviders", "Execution"]

Json = dict[str, Any]


@dataclass
class Execution:
    """One agent execution's pipeline context: its provider, the request awaiting delivery, and its traces."""

    provider: ContentProvider
    pending: Mapping[str, int] | None = None
    traces: list[CompletionTrace] = field(default_factory=list)

    def open_trace(self) -> CompletionTrace:
        """The trace of the invocation under way; NO_OPEN_TRACE when there is none."""
        if not self.traces or self.traces[-1].ended:
            raise SpecError("NO_OPEN_TRACE", "no trace is open; call begin_trace first")
        return self.traces[-1]


class ContentProviders:
    """Every live execution, one provider each (5.1), and the store providers are persisted in (6.2)."""

    def __init__(self, store: ProviderStore) -> None:
        self.store = store
        self.executions: dict[str, Execution] = {}

    def execution(self, execution_id: str) -> Execution:
        """The live execution; PROVIDER_NOT_FOUND when there is none."""
        found = self.executions.get(execution_id)
        if found is None:
            raise SpecError("PROVIDER_NOT_FOUND", f"execution {execution_id!r} has no provider; create_provider or rehydrate it")
        return found

    def provider(self, execution_id: str) -> ContentProvider:
        """The execution's provider."""
        return self.execution(execution_id).provider

    def create(self, execution_id: str, provider: ContentProvider | None = None) -> ContentProvider:
        """Give an execution its one provider: a new one, or one rehydrated."""
        if execution_id in self.executions:
            raise SpecError("PROVIDER_EXISTS", f"execution {execution_id!r} already has its provider; use another executionId")
        created = provider if provider is not None else ContentProvider.new()
        self.executions[execution_id] = Execution(created)
        return created

    def end(self, execution_id: str) -> None:
        """Release an execution, its provider and its traces."""
        self.execution(execution_id)
        del self.executions[execution_id]

    def add_register(self, execution_id: str, name: str, classification: Classification) -> Register:
        """Get or add a register."""
        return self.provider(execution_id).register(name, classification)

    def append(self, execution_id: str, name: str, item: str) -> Register:
        """Append a text item to a register other than the manifest."""
        register = self.provider(execution_id).find(name)
        if register is None:
            raise SpecError("REGISTER_NOT_FOUND", f"no register {name!r}; add it with add_register first")
        if register_key(name) == register_key(TOOL_CALL_MANIFEST):
            raise SpecError("MANIFEST_RECORDS_ONLY", f"{TOOL_CALL_MANIFEST} holds tool call records; use record_tool_call")
        register.items.append(item)
        return register

    def record(self, execution_id: str, record: ToolCall) -> Register:
        """Append a tool call record to the manifest."""
        manifest = self.provider(execution_id).manifest
        manifest.items.append(record)
        return manifest

    def compose(self, execution_id: str) -> ComposedRequest:
        """Compose the next request; it is pending until delivered or failed (a later compose replaces it)."""
        execution = self.execution(execution_id)
        composed = compose(execution.provider)
        execution.pending = composed.carries
        return composed

    def delivered(self, execution_id: str) -> int:
        """The pending request reached the LLM: clear the Consumable items it carried, and only those."""
        execution = self.execution(execution_id)
        cleared = 0
        for key, count in _pending(execution).items():
            register = execution.provider.registers.get(key)
            if register is not None:
                del register.items[:count]
                cleared += count
        execution.pending = None
        return cleared

    def failed(self, execution_id: str) -> int:
        """The pending request did not reach the LLM: clear nothing."""
        execution = self.execution(execution_id)
        _pending(execution)
        execution.pending = None
        return 0

    def begin_trace(self, execution_id: str) -> CompletionTrace:
        """Open the trace of the next invocation."""
        execution = self.execution(execution_id)
        if execution.traces and not execution.traces[-1].ended:
            raise SpecError("TRACE_OPEN", f"invocation {len(execution.traces)}'s trace is open; end_trace it first")
        trace = CompletionTrace(len(execution.traces) + 1)
        execution.traces.append(trace)
        return trace

    def add_step(self, execution_id: str, step: Json) -> CompletionTrace:
        """Add a step to the open trace."""
        trace = self.execution(execution_id).open_trace()
        trace.steps.append(step)
        return trace

    def end_trace(self, execution_id: str, tokens: TokenTotals, summary: Json) -> CompletionTrace:
        """Populate the open trace with its totals and summary, and end it."""
        trace = self.execution(execution_id).open_trace()
        trace.tokens, trace.summary = tokens, summary
        return trace

    def traces(self, execution_id: str) -> list[CompletionTrace]:
        """The execution's traces, in invocation order."""
        return list(self.execution(execution_id).traces)

    def persist(self, execution_id: str, session_id: str) -> ContentProvider:
        """Save the execution's provider under the session id."""
        provider = self.provider(execution_id)
        self.store.save(session_id, provider)
        return provider

    def rehydrate(self, execution_id: str, session_id: str) -> ContentProvider:
        """Give a new execution the provider persisted under the session id."""
        if execution_id in self.executions:
            raise SpecError("PROVIDER_EXISTS", f"execution {execution_id!r} already has its provider; rehydrate into a new one")
        loaded = self.store.load(session_id)
        if loaded is None:
            raise SpecError("SESSION_NOT_FOUND", f"nothing was persisted under session {session_id!r}; persist it first")
        return self.create(execution_id, loaded)

    def close(self) -> None:
        """Forget the executions and close the store."""
        self.executions.clear()
        self.store.close()


def _pending(execution: Execution) -> Mapping[str, int]:
    if execution.pending is None:
        raise SpecError("NO_PENDING_REQUEST", "no composed request is pending; call compose first")
    return execution.pending
