"""content-provider behind the adapter protocol: each operation's arguments checked, carried out, answered as JSON."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Final

from ctxconform.reference._handler import Opening, SpecHandler
from ctxconform.reference.content_provider import _args
from ctxconform.reference.content_provider._codec import from_document, record_from_json, register_json, to_document
from ctxconform.reference.content_provider._model import SPEC_VERSION
from ctxconform.reference.content_provider._service import ContentProviders
from ctxconform.reference.content_provider._sqlite import SQLiteProviderStore
from ctxconform.reference.content_provider._store import MemoryProviderStore, ProviderStore
from ctxconform.reference.content_provider._trace import TokenTotals
from ctxconform.reference.exceptions import SpecError

__all__ = [
    "HANDLER_FACTORY",
    "SPEC_ID",
    "ContentProviderFactory",
    "ContentProviderHandler",
    "open_handler",
    "open_provider_store",
]

Json = dict[str, Any]
Operation = Callable[[ContentProviders, Json], Json]
SPEC_ID: Final = "content-provider"


def open_provider_store(state_dir: Path, store_url: str | None = None, synchronous: str = "full") -> ProviderStore:
    """In memory for the store URL `memory:`; otherwise SQLite in the state directory, committing as `synchronous` says."""
    if store_url == "memory:":
        return MemoryProviderStore()
    return SQLiteProviderStore(state_dir / "content-provider.sqlite3", synchronous)


def _execution(args: object, op: str, *more: str) -> tuple[str, Json]:
    fields = _args.fields(args, op, ("executionId", *more))
    return _args.identifier(fields["executionId"], "executionId"), fields


def _provider_answer(execution_id: str, service: ContentProviders) -> Json:
    return {"executionId": execution_id, "provider": to_document(service.provider(execution_id))}


def _create_provider(service: ContentProviders, args: Json) -> Json:
    execution_id, _ = _execution(args, "create_provider")
    service.create(execution_id)
    return _provider_answer(execution_id, service)


def _get_provider(service: ContentProviders, args: Json) -> Json:
    execution_id, _ = _execution(args, "get_provider")
    return _provider_answer(execution_id, service)


def _end_execution(service: ContentProviders, args: Json) -> Json:
    execution_id, _ = _execution(args, "end_execution")
    service.end(execution_id)
    return {"executionId": execution_id, "ended": True}


def _add_register(service: ContentProviders, args: Json) -> Json:
    execution_id, fields = _execution(args, "add_register", "name", "classification")
    name, classification = _args.register_name(fields["name"]), _args.classification(fields["classification"])
    return {"register": register_json(service.add_register(execution_id, name, classification))}


def _append_item(service: ContentProviders, args: Json) -> Json:
    execution_id, fields = _execution(args, "append_item", "register", "text")
    name, text = _args.register_name(fields["register"], "register"), _args.text(fields["text"], "text")
    register = service.append(execution_id, name, text)
    return {"register": register.name, "count": len(register.items)}


def _record_tool_call(service: ContentProviders, args: Json) -> Json:
    execution_id, fields = _execution(args, "record_tool_call", "record")
    manifest = service.record(execution_id, record_from_json(fields["record"]))
    return {"register": manifest.name, "count": len(manifest.items)}


def _compose(service: ContentProviders, args: Json) -> Json:
    execution_id, _ = _execution(args, "compose")
    return service.compose(execution_id).to_json()


def _mark_delivered(service: ContentProviders, args: Json) -> Json:
    execution_id, _ = _execution(args, "mark_delivered")
    return {"cleared": service.delivered(execution_id)}


def _mark_failed(service: ContentProviders, args: Json) -> Json:
    execution_id, _ = _execution(args, "mark_failed")
    return {"cleared": service.failed(execution_id)}


def _begin_trace(service: ContentProviders, args: Json) -> Json:
    execution_id, _ = _execution(args, "begin_trace")
    return {"invocation": service.begin_trace(execution_id).invocation}


def _add_trace_step(service: ContentProviders, args: Json) -> Json:
    execution_id, fields = _execution(args, "add_trace_step", "step")
    trace = service.add_step(execution_id, _args.json_object(fields["step"], "step"))
    return {"invocation": trace.invocation, "steps": len(trace.steps)}


def _end_trace(service: ContentProviders, args: Json) -> Json:
    execution_id, fields = _execution(args, "end_trace", "tokens", "summary")
    tokens, summary = _tokens(fields["tokens"]), _args.json_object(fields["summary"], "summary")
    return service.end_trace(execution_id, tokens, summary).to_json()


def _tokens(value: object) -> TokenTotals:
    fields = _args.fields(value, "tokens", ("prompt", "completion", "total"), ("reasoning", "cached"))
    counts = {name: _args.count(count, f"tokens.{name}") for name, count in fields.items()}
    return TokenTotals(**counts)


def _get_traces(service: ContentProviders, args: Json) -> Json:
    execution_id, _ = _execution(args, "get_traces")
    return {"traces": [trace.to_json() for trace in service.traces(execution_id)]}


def _persist(service: ContentProviders, args: Json) -> Json:
    execution_id, fields = _execution(args, "persist", "sessionId")
    session_id = _args.identifier(fields["sessionId"], "sessionId")
    return {"sessionId": session_id, "provider": to_document(service.persist(execution_id, session_id))}


def _rehydrate(service: ContentProviders, args: Json) -> Json:
    source = "provider" if isinstance(args, dict) and "provider" in args else "sessionId"
    execution_id, fields = _execution(args, "rehydrate", source)
    if source == "provider":
        service.create(execution_id, from_document(fields["provider"]))
    else:
        service.rehydrate(execution_id, _args.identifier(fields["sessionId"], "sessionId"))
    return _provider_answer(execution_id, service)


_OPERATIONS: Final[dict[str, Operation]] = {
    "create_provider": _create_provider,
    "get_provider": _get_provider,
    "end_execution": _end_execution,
    "add_register": _add_register,
    "append_item": _append_item,
    "record_tool_call": _record_tool_call,
    "compose": _compose,
    "mark_delivered": _mark_delivered,
    "mark_failed": _mark_failed,
    "begin_trace": _begin_trace,
    "add_trace_step": _add_trace_step,
    "end_trace": _end_trace,
    "get_traces": _get_traces,
    "persist": _persist,
    "rehydrate": _rehydrate,
}


@dataclass
class ContentProviderHandler:
    """content-provider: executions, registers, composition, delivery, traces, persist and rehydrate."""

    operations: ClassVar[tuple[str, ...]] = tuple(_OPERATIONS)
    service: ContentProviders
    version: str = SPEC_VERSION
    features: tuple[str, ...] = ()
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def call(self, op: str, args: Json, context: Json) -> Json:  # noqa: ARG002 - the execution travels in the arguments
        """Carry out one operation, whole or not at all."""
        operation = _OPERATIONS.get(op)
        if operation is None:
            raise SpecError("UNKNOWN_OP", f"content-provider has no operation {_args.shown(op)}; see the README's table")
        with self._lock:
            return operation(self.service, args)

    def close(self) -> None:
        """Close the store."""
        self.service.close()


def open_handler(
    state_dir: Path,
    store_url: str | None = None,
    synchronous: str = "full",
    service: Callable[[ProviderStore], ContentProviders] = ContentProviders,
    handler: Callable[[ContentProviders], ContentProviderHandler] = ContentProviderHandler,
) -> ContentProviderHandler:
    """A `handler` over a `service` over a store in the state directory (or in memory for `memory:`); a variant swaps either."""
    return handler(service(open_provider_store(state_dir, store_url, synchronous)))


@dataclass(frozen=True)
class ContentProviderFactory:
    """Opens content-provider over the run's store; `open` is the override point a mutant replaces."""

    open: Callable[[Path, str | None, str], SpecHandler] = open_handler
    spec: str = SPEC_ID

    def __call__(self, opening: Opening) -> SpecHandler:
        """A handler over the state folder, the store URL and how its SQLite store commits."""
        return self.open(opening.state_dir, opening.store_url, opening.synchronous)


HANDLER_FACTORY: Final = ContentProviderFactory()
