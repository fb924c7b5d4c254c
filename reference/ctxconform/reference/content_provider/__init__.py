"""The reference implementation of AGN-030, prompt context providers: registers, lanes, delivery, traces, persistence."""

from __future__ import annotations

from ctxconform.reference.content_provider._codec import from_document, to_document
from ctxconform.reference.content_provider._compose import ComposedRequest, compose
from ctxconform.reference.content_provider._handler import (
    HANDLER_FACTORY,
    SPEC_ID,
    ContentProviderFactory,
    ContentProviderHandler,
    open_handler,
    open_provider_store,
)
from ctxconform.reference.content_provider._model import (
    CLASSIFICATIONS,
    SPEC_VERSION,
    TOOL_CALL_MANIFEST,
    Classification,
    ContentProvider,
    Register,
    ToolCall,
)
from ctxconform.reference.content_provider._service import ContentProviders, Execution
from ctxconform.reference.content_provider._sqlite import SQLiteProviderStore
from ctxconform.reference.content_provider._store import MemoryProviderStore, ProviderStore
from ctxconform.reference.content_provider._trace import CompletionTrace, TokenTotals

__all__ = [
    "CLASSIFICATIONS",
    "HANDLER_FACTORY",
    "SPEC_ID",
    "SPEC_VERSION",
    "TOOL_CALL_MANIFEST",
    "Classification",
    "CompletionTrace",
    "ComposedRequest",
    "ContentProvider",
    "ContentProviderFactory",
    "ContentProviderHandler",
    "ContentProviders",
    "Execution",
    "MemoryProviderStore",
    "ProviderStore",
    "Register",
    "SQLiteProviderStore",
    "TokenTotals",
    "ToolCall",
    "compose",
    "from_document",
    "open_handler",
    "open_provider_store",
    "to_document",
]
