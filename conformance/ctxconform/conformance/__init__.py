"""ctxconform: conformance suites, adapters, requirement registries and reports for agent-context specifications."""

from __future__ import annotations

from collections.abc import Mapping

from ctxconform.conformance._moved import install
from ctxconform.conformance.judge import Registry, Requirement, Spec, load_registry, specs
from ctxconform.conformance.report import Report
from ctxconform.conformance.transports import Adapter, Exchange, Implementation, Reply, SpecInfo, Started, connect, parse_adapter

__all__ = [
    "SPECS",
    "Adapter",
    "Exchange",
    "Implementation",
    "Registry",
    "Reply",
    "Report",
    "Requirement",
    "Spec",
    "SpecInfo",
    "Started",
    "connect",
    "load_registry",
    "parse_adapter",
    "specs",
]


install()


def __getattr__(name: str) -> Mapping[str, Spec]:
    # `SPECS` was a hand-kept table; it is now `specs()`, found from the suites' `Spec` values.
    if name == "SPECS":
        return specs()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
