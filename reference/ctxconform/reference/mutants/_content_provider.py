"""Mutants of the content-provider reference."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, Final

from ctxconform.reference._implementation import Reference, SpecHandler
from ctxconform.reference.content_provider import (
    TOOL_CALL_MANIFEST,
    CompletionTrace,
    ComposedRequest,
    ContentProvider,
    ContentProviderHandler,
    ContentProviders,
    ProviderStore,
    Register,
    TokenTotals,
    ToolCall,
    open_handler,
    open_provider_store,
)
from ctxconform.reference.content_provider._model import Classification, register_key
from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.mutants._catalogue import Mutant, mutant

__all__ = ["MUTANTS"]

MUTANTS: list[Mutant] = []

Json = dict[str, Any]
_ORIGIN_SUMMARY: Final = ("status", "executionTimeMs", "responseId")
_MEMORY: Final = "memory:"


# --- Mutated services (the executions and their providers) ---------------------------


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


class _Cabinets(ContentProviders):
    """Providers of another ContentProvider class, new and rehydrated alike."""

    cabinet: type[ContentProvider] = ContentProvider

    def create(self, execution_id: str, provider: ContentProvider | None = None) -> ContentProvider:
        base = provider if provider is not None else ContentProvider.new()
        return super().create(execution_id, self.cabinet(base.registers))


class _SlotPerClassification(ContentProvider):
    def register(self, name: str, classification: Classification) -> Register:
        if self.find(name) is None:
            for key, register in list(self.registers.items()):
                if register.classification == classification and register is not self.manifest:
                    del self.registers[key]
        return super().register(name, classification)


class _RenamesOnAsk(ContentProvider):
    def register(self, name: str, classification: Classification) -> Register:
        found = super().register(name, classification)
        found.name = name
        return found


class _NoConflict(ContentProvider):
    def register(self, name: str, classification: Classification) -> Register:
        found = self.find(name)
        return found if found is not None else super().register(name, classification)


class _SlotProviders(_Cabinets):
    cabinet = _SlotPerClassification


class _RenamingProviders(_Cabinets):
    cabinet = _RenamesOnAsk


class _UnconflictedProviders(_Cabinets):
    cabinet = _NoConflict


class _TraceRegisters(ContentProviders):
    def begin_trace(self, execution_id: str) -> CompletionTrace:
        trace = super().begin_trace(execution_id)
        self.add_register(execution_id, f"Invocation {trace.invocation}", "Session")
        return trace


class _PadsEmptyRequest(ContentProviders):
    def compose(self, execution_id: str) -> ComposedRequest:
        composed = super().compose(execution_id)
        if composed.input:
            return composed
        return replace(composed, input=({"type": "text", "register": "User", "text": "Continue."},))


class _Prepends(ContentProviders):
    def append(self, execution_id: str, name: str, item: str) -> Register:
        register = super().append(execution_id, name, item)
        register.items.insert(0, register.items.pop())
        return register


class _SetOfItems(ContentProviders):
    def append(self, execution_id: str, name: str, item: str) -> Register:
        register = self.provider(execution_id).find(name)
        if register is not None and item in register.items:
            return register
        return super().append(execution_id, name, item)


class _Strips(ContentProviders):
    def append(self, execution_id: str, name: str, item: str) -> Register:
        return super().append(execution_id, name, item.strip())


class _InstructsOnce(ContentProviders):
    def __init__(self, store: ProviderStore) -> None:
        super().__init__(store)
        self.instructed: set[str] = set()

    def delivered(self, execution_id: str) -> int:
        cleared = super().delivered(execution_id)
        self.instructed.add(execution_id)
        return cleared

    def compose(self, execution_id: str) -> ComposedRequest:
        composed = super().compose(execution_id)
        return replace(composed, instructions="") if execution_id in self.instructed else composed


class _SkipsBlank(ContentProviders):
    def compose(self, execution_id: str) -> ComposedRequest:
        composed = super().compose(execution_id)
        kept = tuple(item for item in composed.input if item["type"] != "text" or item["text"].strip())
        return replace(composed, input=kept)


class _LeavesLast(ContentProviders):
    def delivered(self, execution_id: str) -> int:
        execution = self.execution(execution_id)
        if execution.pending is not None:
            execution.pending = {key: count - 1 for key, count in execution.pending.items()}
        return super().delivered(execution_id)


class _LazyManifest(ContentProviders):
    def create(self, execution_id: str, provider: ContentProvider | None = None) -> ContentProvider:
        return super().create(execution_id, provider if provider is not None else ContentProvider())

    def record(self, execution_id: str, record: ToolCall) -> Register:
        manifest = self.provider(execution_id).register(TOOL_CALL_MANIFEST, "Consumable")
        manifest.items.append(record)
        return manifest


class _SessionManifest(ContentProviders):
    def create(self, execution_id: str, provider: ContentProvider | None = None) -> ContentProvider:
        if provider is None:
            provider = ContentProvider({register_key(TOOL_CALL_MANIFEST): Register(TOOL_CALL_MANIFEST, "Session")})
        return super().create(execution_id, provider)


class _NormalizesOutput(ContentProviders):
    def record(self, execution_id: str, record: ToolCall) -> Register:
        return super().record(execution_id, replace(record, output_json=_normalized(record.output_json)))


def _normalized(text: str) -> str:
    try:
        return json.dumps(json.loads(text))
    except (ValueError, RecursionError):
        return text


class _CachingStore:
    """A store that keeps the saved provider object itself, in front of the real store."""

    def __init__(self, store: ProviderStore) -> None:
        self.store = store
        self.saved: dict[str, ContentProvider] = {}

    def save(self, session_id: str, provider: ContentProvider) -> None:
        self.store.save(session_id, provider)
        self.saved[session_id] = provider

    def load(self, session_id: str) -> ContentProvider | None:
        return self.saved[session_id] if session_id in self.saved else self.store.load(session_id)

    def close(self) -> None:
        self.store.close()


class _OnlyEndedTraces(ContentProviders):
    def traces(self, execution_id: str) -> list[CompletionTrace]:
        return [trace for trace in super().traces(execution_id) if trace.ended]


class _OverlappingTraces(ContentProviders):
    def begin_trace(self, execution_id: str) -> CompletionTrace:
        execution = self.execution(execution_id)
        trace = CompletionTrace(len(execution.traces) + 1)
        execution.traces.append(trace)
        return trace


class _LatestTraceOnly(ContentProviders):
    def begin_trace(self, execution_id: str) -> CompletionTrace:
        execution = self.execution(execution_id)
        number = execution.traces[-1].invocation + 1 if execution.traces else 1
        trace = super().begin_trace(execution_id)
        trace.invocation = number
        execution.traces[:] = [trace]
        return trace


class _SharedTraceList(ContentProviders):
    def __init__(self, store: ProviderStore) -> None:
        super().__init__(store)
        self.shared: list[CompletionTrace] = []

    def create(self, execution_id: str, provider: ContentProvider | None = None) -> ContentProvider:
        created = super().create(execution_id, provider)
        self.executions[execution_id].traces = self.shared
        return created


class _CoreTotalsOnly(ContentProviders):
    def end_trace(self, execution_id: str, tokens: TokenTotals, summary: Json) -> CompletionTrace:
        return super().end_trace(execution_id, TokenTotals(tokens.prompt, tokens.completion, tokens.total), summary)


class _OriginSummaryOnly(ContentProviders):
    def end_trace(self, execution_id: str, tokens: TokenTotals, summary: Json) -> CompletionTrace:
        kept = {name: value for name, value in summary.items() if name in _ORIGIN_SUMMARY}
        return super().end_trace(execution_id, tokens, kept)


class _SharedSteps(ContentProviders):
    def begin_trace(self, execution_id: str) -> CompletionTrace:
        trace = super().begin_trace(execution_id)
        trace.steps = self.execution(execution_id).traces[0].steps
        return trace


class _NewestTraceFirst(ContentProviders):
    def traces(self, execution_id: str) -> list[CompletionTrace]:
        return list(reversed(super().traces(execution_id)))


class _NewestStepFirst(ContentProviders):
    def add_step(self, execution_id: str, step: Json) -> CompletionTrace:
        trace = super().add_step(execution_id, step)
        trace.steps.insert(0, trace.steps.pop())
        return trace


class _StepsNeedAKind(ContentProviders):
    def add_step(self, execution_id: str, step: Json) -> CompletionTrace:
        if not isinstance(step.get("kind"), str):
            raise SpecError("INVALID_REQUEST", "a step must name its kind")
        return super().add_step(execution_id, step)


# --- Mutated handlers (how arguments are read) ----------------------------------------------


class _AnyClassificationHandler(ContentProviderHandler):
    def call(self, op: str, args: Json, context: Json) -> Json:
        unknown = isinstance(args, dict) and isinstance(args.get("classification"), str) and args["classification"] != "Session"
        if op == "add_register" and unknown:
            args = {**args, "classification": "Consumable"}
        return super().call(op, args, context)


class _LenientRehydrateHandler(ContentProviderHandler):
    def call(self, op: str, args: Json, context: Json) -> Json:
        if op == "rehydrate" and isinstance(args, dict) and isinstance(args.get("provider"), dict):
            args = {**args, "provider": {"registers": args["provider"].get("registers")}}
        return super().call(op, args, context)


class _BatchAppendHandler(ContentProviderHandler):
    def call(self, op: str, args: Json, context: Json) -> Json:
        if op == "append_item" and isinstance(args, dict) and isinstance(args.get("text"), list) and args["text"]:
            answer: Json = {}
            for text in args["text"]:
                answer = super().call(op, {**args, "text": text}, context)
            return answer
        return super().call(op, args, context)


# --- Building the mutants ------------------------------------------------------------------------


def _service(service: Callable[[ProviderStore], ContentProviders]) -> Reference:
    return Reference(content_provider=partial(open_handler, service=service))


def _handler(handler: type[ContentProviderHandler]) -> Reference:
    def build(state_dir: Path, store_url: str | None) -> SpecHandler:
        return handler(ContentProviders(open_provider_store(state_dir, store_url)))

    return Reference(content_provider=build)


def _in_memory(state_dir: Path, store_url: str | None) -> SpecHandler:  # noqa: ARG001 - the store URL is what it ignores
    return open_handler(state_dir, _MEMORY)


@mutant(
    "content-provider/4.3/session-not-cleared",
    "content-provider/4.3/session-persistent-across-calls",
    "content-provider/3/independent-of-choreography",
    catalogue=MUTANTS,
)
def clears_session_on_compose() -> Reference:
    """The reference, except that composing a request also empties every Session register."""
    return _service(_ClearsSession)


@mutant(
    "content-provider/4.3/consumable-kept-until-delivered",
    "content-provider/4.3/consumable-cleared-after-delivery",
    "content-provider/3/independent-of-choreography",
    catalogue=MUTANTS,
)
def consumes_before_delivery() -> Reference:
    """The reference, except that composing a request clears the Consumable items it carries, before any delivery."""
    return _service(_ConsumesEarly)


@mutant("content-provider/3/exactly-two-classifications", catalogue=MUTANTS)
def unknown_classification_is_consumable() -> Reference:
    """The reference, except that add_register takes any classification but Session as Consumable."""
    return _handler(_AnyClassificationHandler)


@mutant("content-provider/3/independent-of-choreography", catalogue=MUTANTS)
def invocations_become_registers() -> Reference:
    """The reference, except that beginning a trace also adds an empty register named after the invocation."""
    return _service(_TraceRegisters)


@mutant("content-provider/4.1/holds-all-prompt-context", catalogue=MUTANTS)
def pads_an_empty_request() -> Reference:
    """The reference, except that a request with no Consumable item gets a made-up "Continue." input item."""
    return _service(_PadsEmptyRequest)


@mutant("content-provider/4.2/multiple-registers", catalogue=MUTANTS)
def one_register_per_classification() -> Reference:
    """The reference, except that a new register replaces the register of the same classification (the manifest aside)."""
    return _service(_SlotProviders)


@mutant("content-provider/4.2/stable-name", catalogue=MUTANTS)
def register_takes_the_latest_spelling() -> Reference:
    """The reference, except that asking for a register in another case renames it to that spelling."""
    return _service(_RenamingProviders)


@mutant(
    "content-provider/4.2/ordered-line-items",
    "content-provider/5.3/state-holders-only",
    "content-provider/4.3/consumable-cleared-after-delivery",
    catalogue=MUTANTS,
)
def appends_to_the_front() -> Reference:
    """The reference, except that an appended item goes before the register's other items."""
    return _service(_Prepends)


@mutant("content-provider/4.2/classified", "content-provider/4.4/manifest-consumable", catalogue=MUTANTS)
def other_classification_is_no_conflict() -> Reference:
    """The reference, except that asking for a register with the other classification gives it back instead of a conflict."""
    return _service(_UnconflictedProviders)


@mutant("content-provider/4.2/items-accumulate", "content-provider/5.3/state-holders-only", catalogue=MUTANTS)
def registers_drop_duplicate_items() -> Reference:
    """The reference, except that an item the register already holds is not appended again."""
    return _service(_SetOfItems)


@mutant("content-provider/4.3/session-persistent-across-calls", catalogue=MUTANTS)
def instructions_only_until_first_delivery() -> Reference:
    """The reference, except that after a successful delivery requests carry an empty instructions lane."""
    return _service(_InstructsOnce)


@mutant("content-provider/4.3/consumable-for-llm", catalogue=MUTANTS)
def blank_consumables_held_back() -> Reference:
    """The reference, except that blank Consumable items are left out of the request (yet cleared by its delivery)."""
    return _service(_SkipsBlank)


@mutant("content-provider/4.3/consumable-cleared-after-delivery", catalogue=MUTANTS)
def delivery_leaves_the_last_item() -> Reference:
    """The reference, except that a delivery leaves the last item each Consumable register's request carried."""
    return _service(_LeavesLast)


@mutant("content-provider/4.4/manifest-required", "content-provider/4.4/manifest-consumable", catalogue=MUTANTS)
def manifest_made_on_first_tool_call() -> Reference:
    """The reference, except that a new provider has no ToolCallManifest until a tool call is recorded."""
    return _service(_LazyManifest)


@mutant("content-provider/4.4/manifest-consumable", catalogue=MUTANTS)
def manifest_is_session_context() -> Reference:
    """The reference, except that a new provider's ToolCallManifest is classified Session."""
    return _service(_SessionManifest)


@mutant("content-provider/4.4/manifest-records", catalogue=MUTANTS)
def tool_output_reserialized() -> Reference:
    """The reference, except that a tool call's outputJson is parsed and serialized again rather than kept as given."""
    return _service(_NormalizesOutput)


@mutant("content-provider/5.2/composed-solely-of-registers", catalogue=MUTANTS)
def rehydrate_ignores_extra_fields() -> Reference:
    """The reference, except that rehydrate ignores what a serialized provider holds beside its registers."""
    return _handler(_LenientRehydrateHandler)


@mutant("content-provider/5.2/registers-only-containment", catalogue=MUTANTS)
def list_item_appended_as_items() -> Reference:
    """The reference, except that append_item takes a list of texts as several items instead of refusing it."""
    return _handler(_BatchAppendHandler)


@mutant("content-provider/5.3/state-holders-only", catalogue=MUTANTS)
def items_are_trimmed() -> Reference:
    """The reference, except that appended items are stripped of leading and trailing whitespace."""
    return _service(_Strips)


@mutant("content-provider/6.2/persist-and-rehydrate", catalogue=MUTANTS)
def persisted_provider_is_shared() -> Reference:
    """The reference, except that a persisted provider is cached by reference, so later changes reach the saved one."""
    return _service(lambda store: ContentProviders(_CachingStore(store)))


@mutant("content-provider/6.2/durable-across-restart", catalogue=MUTANTS)
def persists_in_memory_only() -> Reference:
    """The reference, except that persisted providers are kept in memory, lost when the implementation restarts."""
    return Reference(content_provider=_in_memory)


@mutant("content-provider/7.1/diagnostic-visibility", catalogue=MUTANTS)
def open_traces_hidden() -> Reference:
    """The reference, except that get_traces lists only the traces that have ended."""
    return _service(_OnlyEndedTraces)


@mutant("content-provider/7.2/one-trace-per-invocation", catalogue=MUTANTS)
def traces_overlap() -> Reference:
    """The reference, except that begin_trace opens another trace while one is still open."""
    return _service(_OverlappingTraces)


@mutant("content-provider/7.2/multiple-traces", "content-provider/3/multi-invocation-flows", catalogue=MUTANTS)
def keeps_only_the_latest_trace() -> Reference:
    """The reference, except that beginning a trace drops the traces before it (numbering goes on)."""
    return _service(_LatestTraceOnly)


@mutant("content-provider/7.3/list-of-traces", catalogue=MUTANTS)
def executions_share_one_trace_list() -> Reference:
    """The reference, except that every execution's traces go into one list all executions share."""
    return _service(_SharedTraceList)


@mutant("content-provider/7.3/token-totals", catalogue=MUTANTS)
def drops_reasoning_and_cached_tokens() -> Reference:
    """The reference, except that an ended trace keeps only the prompt, completion and total token counts."""
    return _service(_CoreTotalsOnly)


@mutant("content-provider/7.3/summary-data", catalogue=MUTANTS)
def summary_keeps_origin_fields_only() -> Reference:
    """The reference, except that a trace's summary keeps only status, executionTimeMs and responseId."""
    return _service(_OriginSummaryOnly)


@mutant("content-provider/7.3/steps-list", catalogue=MUTANTS)
def traces_share_one_step_list() -> Reference:
    """The reference, except that every trace of an execution shares the first trace's list of steps."""
    return _service(_SharedSteps)


@mutant("content-provider/7.3/order-implies-invocation-order", catalogue=MUTANTS)
def newest_trace_first() -> Reference:
    """The reference, except that get_traces lists the most recent invocation first."""
    return _service(_NewestTraceFirst)


@mutant("content-provider/7.4/steps-capture-diagnostics", catalogue=MUTANTS)
def newest_step_first() -> Reference:
    """The reference, except that a trace lists its most recent step first."""
    return _service(_NewestStepFirst)


@mutant("content-provider/7.4/step-schema-deferred", catalogue=MUTANTS)
def steps_need_a_kind() -> Reference:
    """The reference, except that a step without a string kind is refused."""
    return _service(_StepsNeedAKind)
