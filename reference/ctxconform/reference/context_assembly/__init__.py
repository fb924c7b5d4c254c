"""The reference implementation of context assembly (Loom): dialogue and buffer modes, three truncation strategies."""

from __future__ import annotations

from ctxconform.reference.context_assembly._assemble import Assembler, assemble
from ctxconform.reference.context_assembly._finder import Finder
from ctxconform.reference.context_assembly._handler import (
    HANDLER_FACTORY,
    SPEC_ID,
    SPEC_VERSION,
    ContextAssemblyFactory,
    ContextAssemblyHandler,
)
from ctxconform.reference.context_assembly._tokens import (
    DEFAULT_MINIMUM_RECENT,
    DEFAULT_MODEL_LIMIT,
    DEFAULT_STRATEGY,
    DEFAULT_TOKEN_BUFFER,
    MARKER,
    estimate,
)
from ctxconform.reference.context_assembly._tree import Step, content_text
from ctxconform.reference.context_assembly._truncate import Fitted, Piece

__all__ = [
    "DEFAULT_MINIMUM_RECENT",
    "DEFAULT_MODEL_LIMIT",
    "DEFAULT_STRATEGY",
    "DEFAULT_TOKEN_BUFFER",
    "HANDLER_FACTORY",
    "MARKER",
    "SPEC_ID",
    "SPEC_VERSION",
    "Assembler",
    "ContextAssemblyFactory",
    "ContextAssemblyHandler",
    "Finder",
    "Fitted",
    "Piece",
    "Step",
    "assemble",
    "content_text",
    "estimate",
]
