"""Reference implementations of the agent-context specifications, behind the adapter protocol."""

from __future__ import annotations

from ctxconform.reference._handler import HandlerFactory, Opening, SpecHandler
from ctxconform.reference._implementation import PROTOCOL_VERSION, Reference

__all__ = ["PROTOCOL_VERSION", "HandlerFactory", "Opening", "Reference", "SpecHandler"]
