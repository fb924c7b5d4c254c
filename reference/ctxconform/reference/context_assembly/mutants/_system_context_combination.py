"""Mutants of section "System Context Combination": the agent-level and tree-level system contexts."""

from __future__ import annotations

from typing import Any

from ctxconform.reference.context_assembly import Assembler, Step

from ._base import CATALOGUE, Json


@CATALOGUE.mutant("context-assembly/system-context-combination/agent-before-tree")
class TreeContextFirst(Assembler):
    """The reference, except that tree-level system context comes before the agent's."""

    def run(self, request: Any) -> Json:
        """Assemble as the reference does, then swap the agent's and the tree's system context."""
        result = super().run(request)
        # Texts the reference takes without using them (a null systemPrompt) are no texts here either: the swap is the
        # one defect, never a crash.
        agent = _text(_field(request, "agent", "configuration", "systemPrompt"))
        tree = _text(_field(request, "tree", "systemContext"))
        system = result.get("systemContext", "")
        if agent and tree and system.startswith(f"{agent}\n\n{tree}"):
            result["systemContext"] = f"{tree}\n\n{agent}" + system[len(agent) + len(tree) + 2 :]
        return result


@CATALOGUE.mutant("context-assembly/system-context-combination/agent-level-applies")
class AgentPromptReadFromAgent(Assembler):
    """The reference, except that the agent-level prompt is read from agent.systemPrompt, not agent.configuration."""

    def system(self, request: Json, steps: list[Step]) -> str:
        """The reference's system context, with the agent's prompt taken from the wrong field."""
        misread = {"configuration": {"systemPrompt": (request.get("agent") or {}).get("systemPrompt")}}
        return super().system({**request, "agent": misread}, steps)


@CATALOGUE.mutant("context-assembly/system-context-combination/tree-level-applies")
class TreeContextReadAsSystemPrompt(Assembler):
    """The reference, except that the tree-level text is read from tree.systemPrompt, not tree.systemContext."""

    def system(self, request: Json, steps: list[Step]) -> str:
        """The reference's system context, with the tree's text taken from the wrong field."""
        tree = request["tree"]
        return super().system({**request, "tree": {**tree, "systemContext": tree.get("systemPrompt")}}, steps)


def _field(value: object, *keys: str) -> object:
    """The value at `keys` in nested objects, or None where one is missing or not an object."""
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _text(value: object) -> str:
    """`value` trimmed when it is text, else the empty string."""
    return value.strip() if isinstance(value, str) else ""
