"""The reference implementation of context assembly (Loom): dialogue and buffer modes, three truncation strategies."""

from __future__ import annotations

from ctxconform.reference.context_assembly._assemble import assemble
from ctxconform.reference.context_assembly._tokens import (
    DEFAULT_MINIMUM_RECENT,
    DEFAULT_MODEL_LIMIT,
    DEFAULT_STRATEGY,
    DEFAULT_TOKEN_BUFFER,
    MARKER,
    estimate,
)

__all__ = [
    "DEFAULT_MINIMUM_RECENT",
    "DEFAULT_MODEL_LIMIT",
    "DEFAULT_STRATEGY",
    "DEFAULT_TOKEN_BUFFER",
    "MARKER",
    "SPEC_VERSION",
    "assemble",
    "estimate",
]

SPEC_VERSION = "Draft"
