"""Judging: the specs and their registries, the checks a test makes, and the verdicts that follow from them."""

from __future__ import annotations

from ctxconform.conformance.judge._registry import Registry, Requirement
from ctxconform.conformance.judge._specs import Spec, load_registry, resolve_specs, specs
from ctxconform.conformance.judge._verdicts import VERDICTS, Verdict

__all__ = ["VERDICTS", "Registry", "Requirement", "Spec", "Verdict", "load_registry", "resolve_specs", "specs"]
