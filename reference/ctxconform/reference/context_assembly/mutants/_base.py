"""The catalogue of context-assembly mutants, and what mutants of several sections share."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from ctxconform.reference.context_assembly import (
    MARKER,
    Assembler,
    ContextAssemblyFactory,
    ContextAssemblyHandler,
    Fitted,
    Piece,
)
from ctxconform.reference.mutants import Catalogue

__all__ = ["CATALOGUE", "BeginningFirst", "Json", "as_continuation", "assembling", "with_metadata", "with_nodes"]

Json = dict[str, Any]


def assembling(variant: type) -> ContextAssemblyFactory:
    """The handler factory whose handlers assemble with one instance of `variant`, a subclass of Assembler."""
    if not issubclass(variant, Assembler):
        raise TypeError(f"a context-assembly mutant is a subclass of Assembler, not {variant.__name__}")
    return ContextAssemblyFactory(handler=partial(ContextAssemblyHandler, assembler=variant()))


CATALOGUE = Catalogue("context-assembly", adopt=assembling)
"""Every context-assembly mutant: each is a subclass of the reference's Assembler that changes one step."""


def with_nodes(request: Json, change: Callable[[Json], Json]) -> Json:
    """The request with `change` applied to every node of its tree."""
    tree = request["tree"]
    return {**request, "tree": {**tree, "nodes": [change(node) for node in tree["nodes"]]}}


def with_metadata(node: Json, change: Callable[[Json], Json]) -> Json:
    """The node with `change` applied to its metadata, when it has a metadata object."""
    metadata = node.get("metadata")
    return {**node, "metadata": change(metadata)} if isinstance(metadata, dict) else node


def as_continuation(edge: object) -> object:
    """The edge as a continuation edge (so never an annotation one); anything but an object is left as it is."""
    return {**edge, "edgeType": "continuation"} if isinstance(edge, dict) else edge


class BeginningFirst(Assembler):
    """truncateMiddle filling the budget from the beginning first, reserving `reserved` recent pieces, whatever the setting."""

    reserved: int = 1

    def truncate_middle(self, pieces: list[Piece], costs: list[int], room: int, minimum_recent: int) -> Fitted:  # noqa: ARG002 - ignored on purpose
        """Keep the beginning that fits, then the most recent pieces, with the marker where pieces went."""
        tail_start = max(1, len(pieces) - max(1, self.reserved)) if len(pieces) > 1 else 0
        used = sum(costs[tail_start:]) + self.marker_tokens
        head_end = 0
        while head_end < tail_start and used + costs[head_end] <= room:  # grow the kept beginning first
            used += costs[head_end]
            head_end += 1
        while tail_start > head_end and used + costs[tail_start - 1] <= room:
            tail_start -= 1
            used += costs[tail_start]
        dropped = tail_start - head_end
        if dropped == 0:
            return Fitted(pieces, 0)
        return Fitted([*pieces[:head_end], Piece("user", MARKER), *pieces[tail_start:]], dropped)
