"""Mutants of section "Exclusion Filtering": which nodes are left out of the context."""

from __future__ import annotations

from functools import partial
from typing import Any

from ctxconform.reference.context_assembly import Assembler

from ._base import CATALOGUE, Json, as_continuation, with_metadata, with_nodes


@CATALOGUE.mutant(
    "context-assembly/exclusion-filtering/annotation-edge-excluded",
    "context-assembly/dialogue-mode/filter-excluded",
    "context-assembly/buffer-mode/filter-excluded",
)
class KeepsAnnotationNodes(Assembler):
    """The reference, except that nodes reached through annotation edges stay in the context."""

    def run(self, request: Any) -> Json:
        """Assemble the request with every edge taken as a continuation edge."""
        if isinstance(request, dict) and isinstance(request.get("tree"), dict):
            edges = request["tree"].get("edges")
            if isinstance(edges, list):
                request = {**request, "tree": {**request["tree"], "edges": [as_continuation(e) for e in edges]}}
        return super().run(request)


@CATALOGUE.mutant(
    "context-assembly/exclusion-filtering/excluded-flag",
    "context-assembly/dialogue-mode/filter-excluded",
    "context-assembly/buffer-mode/filter-excluded",
    "context-assembly/truncation/stop-at-limit-user-remedies",
)
class ExcludedFlagIgnored(Assembler):
    """The reference, except that metadata.excluded is ignored (only pruned and annotation edges exclude)."""

    def assemble(self, request: Json) -> Json:
        """Assemble the request with every excluded flag that is true taken away."""
        strip = partial(with_metadata, change=lambda m: {k: v for k, v in m.items() if k != "excluded" or v is not True})
        return super().assemble(with_nodes(request, strip))


@CATALOGUE.mutant("context-assembly/exclusion-filtering/pruned-flag")
class PrunedFlagOverriddenByExcludedFalse(Assembler):
    """The reference, except that a pruned node whose metadata.excluded is false stays in the context."""

    def assemble(self, request: Json) -> Json:
        """Assemble the request with the pruned flag taken away wherever an excluded flag is set."""
        # metadata.get("excluded", metadata.get("pruned")): an explicit excluded false hides the pruned flag.
        strip = partial(with_metadata, change=lambda m: {k: v for k, v in m.items() if k != "pruned" or "excluded" not in m})
        return super().assemble(with_nodes(request, strip))


@CATALOGUE.mutant("context-assembly/dialogue-mode/filter-excluded", edge="wrong-types")
class TruthyExclusionFlags(Assembler):
    """The reference, except that excluded and pruned count when truthy (`if metadata.excluded`): "false" excludes."""

    def assemble(self, request: Json) -> Json:
        """Assemble with every truthy flag read as true."""
        truthy = partial(with_metadata, change=lambda m: {**m, **{k: True for k in ("excluded", "pruned") if m.get(k)}})
        return super().assemble(with_nodes(request, truthy))
