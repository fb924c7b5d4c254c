"""The Loom tree as the assembler reads it: the active path, each node's incoming edge, and what is excluded."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from ctxconform.reference.exceptions import SpecError

__all__ = ["Step", "content_text", "walk"]

Json = dict[str, Any]
_PLACEHOLDERS: Final = {"image": "[image content]", "audio": "[audio content]"}


@dataclass(frozen=True)
class Step:
    """One node of the active path with what its incoming edge brings along."""

    node: Json
    excluded: bool
    context: tuple[Json, ...]
    instructions: tuple[Json, ...]


def walk(tree: Json, path: list[str]) -> list[Step]:
    """Return the path's steps, root first; refuse a path that repeats a node or does not connect."""
    nodes = {node["id"]: node for node in tree.get("nodes", [])}
    incoming = {edge["target"]: edge for edge in tree.get("edges", [])}
    if len(set(path)) != len(path):
        raise SpecError("invalidTree", "the path visits a node twice (a cycle)")
    steps = []
    for index, node_id in enumerate(path):
        if node_id not in nodes:
            raise SpecError("invalidTree", f"the path names node {node_id!r}, which the tree does not have")
        edge = incoming.get(node_id)
        if index and (edge is None or path[index - 1] not in _sources(edge, "primary")):
            raise SpecError("invalidTree", f"no edge leads from {path[index - 1]!r} to {node_id!r} as its primary source")
        steps.append(_step(nodes, nodes[node_id], edge if index else None))
    return steps


def content_text(content: object) -> str:
    """Text of a node's content; non-text parts become placeholders such as [image content]."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        kind = content.get("type")
        if kind == "text":
            return str(content.get("text", ""))
        if kind == "mixed":
            return "\n".join(content_text(part) for part in content.get("parts", []))
        return _PLACEHOLDERS.get(str(kind), f"[{kind} content]")
    return ""


def _step(nodes: dict[str, Json], node: Json, edge: Json | None) -> Step:
    metadata = node.get("metadata") or {}
    annotation = edge is not None and edge.get("edgeType") == "annotation" and not edge.get("included", False)
    excluded = bool(metadata.get("excluded") or metadata.get("pruned") or annotation)
    context = tuple(nodes[i] for i in _sources(edge, "context") if i in nodes and not _hidden(nodes[i]))
    instructions = tuple(nodes[i] for i in _sources(edge, "instruction") if i in nodes and not _hidden(nodes[i]))
    return Step(node, excluded, context, instructions)


def _sources(edge: Json | None, role: str) -> list[str]:
    return [] if edge is None else [s["nodeId"] for s in edge.get("sources", []) if s.get("role", "primary") == role]


def _hidden(node: Json) -> bool:
    metadata = node.get("metadata") or {}
    return bool(metadata.get("excluded") or metadata.get("pruned"))
