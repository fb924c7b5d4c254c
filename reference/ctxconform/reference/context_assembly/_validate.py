"""Checking an assemble request's shape before any work, so malformed input is refused, never a crash."""

from __future__ import annotations

from typing import Any, Final, NoReturn

from ctxconform.reference.exceptions import SpecError

__all__ = ["check_request"]

_STRATEGIES: Final = ("truncateMiddle", "rollingWindow", "stopAtLimit")
_COUNTS: Final = ("minimumRecentNodes", "tokenBuffer")
_NO_METADATA: Final[dict[str, Any]] = {}


def check_request(request: object) -> None:
    """Raise INVALID_REQUEST naming the first field that does not match the request schema."""
    if not isinstance(request, dict):
        _refuse("the request must be an object with a tree and a path")
    tree, path = request.get("tree"), request.get("path")
    if not isinstance(tree, dict) or tree.get("mode", "dialogue") not in ("dialogue", "buffer"):
        _refuse("tree must be an object whose mode is dialogue or buffer")
    if not isinstance(path, list) or not path or not all(isinstance(step, str) for step in path):
        _refuse("path must be a non-empty list of node ids")
    _check_nodes(tree.get("nodes"))
    _check_edges(tree.get("edges"))
    for settings in (request.get("settings"), tree.get("settings")):
        _check_settings(settings)
    limit = request.get("modelContextLimit", 1)
    if not _whole(limit) or limit < 1:
        _refuse("modelContextLimit must be a positive integer")
    if not isinstance(request.get("workingBuffer", ""), str) or not isinstance(request.get("agent", {}), dict):
        _refuse("workingBuffer must be a string and agent an object")
    _check_system_texts(tree, request["agent"].get("configuration") if "agent" in request else None)


def _check_system_texts(tree: dict[str, Any], configuration: object) -> None:
    # A system text of another type is refused, never turned into text (str(None) is "None").
    if configuration is not None and not isinstance(configuration, dict):
        _refuse("agent.configuration must be an object")
    prompt = configuration.get("systemPrompt") if isinstance(configuration, dict) else None
    if not isinstance(prompt, (str, type(None))) or not isinstance(tree.get("systemContext"), (str, type(None))):
        _refuse("agent.configuration.systemPrompt and tree.systemContext must be strings")
    if not isinstance(tree.get("bufferModeSystemContext"), (bool, type(None))):
        _refuse("tree.bufferModeSystemContext must be a boolean")


def _check_nodes(nodes: object) -> None:
    if not isinstance(nodes, list):
        _refuse("tree.nodes must be a list")
    for node in nodes:
        if not isinstance(node, dict) or not isinstance(node.get("id"), str) or node.get("authorType") not in ("human", "model"):
            _refuse("every node needs a string id and an authorType of human or model")
        if not isinstance(node.get("metadata") or _NO_METADATA, dict):
            _refuse("a node's metadata must be an object")


def _check_edges(edges: object) -> None:
    if not isinstance(edges, list):
        _refuse("tree.edges must be a list")
    for edge in edges:
        sources = edge.get("sources") if isinstance(edge, dict) else None
        if not isinstance(edge, dict) or not isinstance(edge.get("target"), str) or not isinstance(sources, list):
            _refuse("every edge needs a target id and a list of sources")
        for source in sources:
            if not isinstance(source, dict) or not isinstance(source.get("nodeId"), str):
                _refuse("every edge source needs a nodeId")


def _check_settings(settings: object) -> None:
    if settings is None:
        return
    if not isinstance(settings, dict) or settings.get("truncationStrategy", _STRATEGIES[0]) not in _STRATEGIES:
        _refuse(f"settings.truncationStrategy must be one of {', '.join(_STRATEGIES)}")
    for name in _COUNTS:
        if name in settings and (not _whole(settings[name]) or settings[name] < 0):
            _refuse(f"settings.{name} must be a non-negative integer")


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _refuse(message: str) -> NoReturn:
    raise SpecError("INVALID_REQUEST", message)
