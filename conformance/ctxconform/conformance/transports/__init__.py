"""Transports: how the kit reaches an implementation named by a connection string, and speaks the adapter protocol to it."""

from __future__ import annotations

from ctxconform.conformance.transports._adapters import SCHEMES, Adapter, Scheme, connect, parse_adapter
from ctxconform.conformance.transports._implementation import Implementation
from ctxconform.conformance.transports._protocol import Reply, SpecInfo, Started
from ctxconform.conformance.transports._transcript import Exchange

__all__ = [
    "SCHEMES",
    "Adapter",
    "Exchange",
    "Implementation",
    "Reply",
    "Scheme",
    "SpecInfo",
    "Started",
    "connect",
    "parse_adapter",
]
