"""The Loom tree as the assembler reads it: the active path, each node's incoming edge, and what is excluded."""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from ctxconform.reference.context_assembly._finder import Finder
from ctxconform.reference.exceptions import SpecError

__all__ = ["Step", "content_text", "walk"]

Json = dict[str, Any]
_PLACEHOLDERS: Final = {"image": "[image content]", "audio": "[audio content]"}
_NONE: Final[tuple[Json, ...]] = ()
_NO_METADATA: Final[Json] = {}


# A named tuple, not a dataclass: a million-node path builds a million steps, and a tuple is built in a fraction of the time.
class Step(NamedTuple):
    """One node of the active path with what its incoming edge brings along."""

    node: Json
    excluded: bool
    context: tuple[Json, ...] = _NONE
    instructions: tuple[Json, ...] = _NONE


def walk(tree: Json, path: list[str], finder: type[Finder] = Finder) -> list[Step]:
    """Return the path's steps, root first; refuse a path that repeats a node or does not connect.

    `finder` finds nodes by id and edges by target (ids are opaque names, compared exactly).
    """
    nodes = finder(tree.get("nodes", []), "id")
    incoming = finder(tree.get("edges", []), "target")
    if len(set(path)) != len(path):
        raise SpecError("invalidTree", "the path visits a node twice (a cycle)")
    steps: list[Step] = []
    previous: str | None = None
    for node_id in path:
        node = nodes.get(node_id)
        if node is None:
            raise SpecError("invalidTree", f"the path names node {node_id!r}, which the tree does not have")
        edge = None if previous is None else _edge_from(incoming, previous, node_id)
        steps.append(_step(nodes, node, edge))
        previous = node_id
    return steps


def content_text(content: object) -> str:
    """Text of a node's content; non-text parts become placeholders such as [image content]."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        kind = content.get("type")
        if kind == "text":
            text = content.get("text")
            return text if isinstance(text, str) else ""
        if kind == "mixed":
            parts = content.get("parts")
            return "\n".join(content_text(part) for part in parts) if isinstance(parts, list) else ""
        # A type that is not a name gives no text (str(None) would be "[None content]").
        return _PLACEHOLDERS.get(kind, f"[{kind} content]") if isinstance(kind, str) else ""
    return ""


def _edge_from(incoming: Finder, previous: str, node_id: str) -> Json:
    edge = incoming.get(node_id)
    if edge is None or not _has_primary(edge["sources"], previous):
        raise SpecError("invalidTree", f"no edge leads from {previous!r} to {node_id!r} as its primary source")
    return edge


def _has_primary(sources: list[Json], node_id: str) -> bool:
    # A loop, not any(): no generator is built for each of a million edges.
    for source in sources:  # noqa: SIM110
        if source["nodeId"] == node_id and source.get("role", "primary") == "primary":
            return True
    return False


def _step(nodes: Finder, node: Json, edge: Json | None) -> Step:
    excluded = _hidden(node) or (edge is not None and _hidden_by_annotation(edge, node))
    if edge is None or len(edge["sources"]) == 1:  # the common edge: its one source is the primary (checked by _edge_from)
        return Step(node, excluded)
    return Step(node, excluded, _extra(nodes, edge["sources"], "context"), _extra(nodes, edge["sources"], "instruction"))


def _hidden_by_annotation(edge: Json, node: Json) -> bool:
    # Explicit inclusion is metadata.excluded set to false, not merely absent (metadata is an object: checked).
    return edge.get("edgeType") == "annotation" and (node.get("metadata") or _NO_METADATA).get("excluded") is not False


def _extra(nodes: Finder, sources: list[Json], role: str) -> tuple[Json, ...]:
    chosen = (nodes.get(s["nodeId"]) for s in sources if s.get("role", "primary") == role)
    return tuple(node for node in chosen if node is not None and not _hidden(node))


def _hidden(node: Json) -> bool:
    # Only true excludes: a flag of another type ("false", 1) is not the spec's "is true".
    metadata = node.get("metadata") or _NO_METADATA
    return metadata.get("excluded") is True or metadata.get("pruned") is True
