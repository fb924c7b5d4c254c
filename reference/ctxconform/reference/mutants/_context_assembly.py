"""Mutants of the context-assembly reference."""

from __future__ import annotations

from typing import Any

from ctxconform.reference._implementation import ContextAssemblyHandler, Reference
from ctxconform.reference.mutants._catalogue import Mutant, mutant

__all__ = ["MUTANTS"]

MUTANTS: list[Mutant] = []

Json = dict[str, Any]


class _Handler(ContextAssemblyHandler):
    def call(self, op: str, args: Json, context: Json) -> Json:
        return self.mutate(args, super().call(op, args, context)) if op == "assemble" else super().call(op, args, context)

    def mutate(self, args: Json, result: Json) -> Json:
        raise NotImplementedError


class _TruncatesSystem(_Handler):
    def mutate(self, args: Json, result: Json) -> Json:  # noqa: ARG002 - the result alone is mutated
        if result.get("truncated") and result.get("systemContext"):
            result["systemContext"] = result["systemContext"][: max(1, len(result["systemContext"]) // 2)]
        return result


class _TreeFirst(_Handler):
    def mutate(self, args: Json, result: Json) -> Json:
        agent = ((args.get("agent") or {}).get("configuration") or {}).get("systemPrompt", "").strip()
        tree = (args["tree"].get("systemContext") or "").strip()
        system = result.get("systemContext", "")
        if agent and tree and system.startswith(f"{agent}\n\n{tree}"):
            result["systemContext"] = f"{tree}\n\n{agent}" + system[len(agent) + len(tree) + 2 :]
        return result


class _KeepsAnnotations(_Handler):
    def call(self, op: str, args: Json, context: Json) -> Json:
        if op == "assemble" and isinstance(args, dict) and isinstance(args.get("tree"), dict):
            edges = args["tree"].get("edges")
            if isinstance(edges, list):
                args = {**args, "tree": {**args["tree"], "edges": [_continuation(e) for e in edges]}}
        return ContextAssemblyHandler.call(self, op, args, context)


def _continuation(edge: object) -> object:
    return {**edge, "edgeType": "continuation"} if isinstance(edge, dict) else edge


def _with(handler: ContextAssemblyHandler, name: str) -> Reference:
    return Reference(name=f"mutant:{name}", context_assembly=lambda: handler)


@mutant("context-assembly/guarantees/system-context-never-truncated", catalogue=MUTANTS)
def truncates_system_context() -> Reference:
    """The reference, except that a truncated result also loses half of its system context."""
    return _with(_TruncatesSystem(), "truncates_system_context")


@mutant("context-assembly/system-context-combination/agent-before-tree", catalogue=MUTANTS)
def tree_context_first() -> Reference:
    """The reference, except that tree-level system context comes before the agent's."""
    return _with(_TreeFirst(), "tree_context_first")


@mutant("context-assembly/exclusion-filtering/annotation-edge-excluded", catalogue=MUTANTS)
def keeps_annotation_nodes() -> Reference:
    """The reference, except that nodes reached through annotation edges stay in the context."""
    return _with(_KeepsAnnotations(), "keeps_annotation_nodes")
