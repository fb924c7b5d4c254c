"""ctxconform: conformance suites, adapters, requirement registries and reports for agent-context specifications."""

from __future__ import annotations

from ctxconform.conformance._adapters import Adapter, connect, parse_adapter
from ctxconform.conformance._implementation import Exchange, Implementation
from ctxconform.conformance._protocol import Reply, SpecInfo, Started
from ctxconform.conformance._registry import Registry, Requirement, load_registry
from ctxconform.conformance._report import Report
from ctxconform.conformance._specs import SPECS

__all__ = [
    "SPECS",
    "Adapter",
    "Exchange",
    "Implementation",
    "Registry",
    "Reply",
    "Report",
    "Requirement",
    "SpecInfo",
    "Started",
    "connect",
    "load_registry",
    "parse_adapter",
]
