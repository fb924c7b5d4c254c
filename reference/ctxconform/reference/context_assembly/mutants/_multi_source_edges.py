"""Mutants of section "Multi-Source Edge Handling": instruction, context and primary sources."""

from __future__ import annotations

from ctxconform.reference.context_assembly import Assembler, Piece, Step

from ._base import CATALOGUE, Json


@CATALOGUE.mutant("context-assembly/multi-source-edges/primary-main-content")
class InnerLineBreaksCollapsed(Assembler):
    """The reference, except that the line breaks inside each message's content are collapsed into spaces."""

    def messages(self, steps: list[Step]) -> list[Piece]:
        """The reference's messages, each on one line."""
        return [Piece(piece.role, " ".join(piece.text.split("\n"))) for piece in super().messages(steps)]


@CATALOGUE.mutant("context-assembly/multi-source-edges/instruction-appended-to-system", name="instructions_need_a_system_context")
class InstructionsNeedASystemContext(Assembler):
    """The reference, except that instruction sources are appended only when an agent or tree system context exists."""

    def system(self, request: Json, steps: list[Step]) -> str:
        """The reference's system context, or nothing when the agent and the tree have none."""
        return super().system(request, steps) if super().system(request, []) else ""


@CATALOGUE.mutant("context-assembly/multi-source-edges/instruction-appended-to-system")
class InstructionsPutFirst(Assembler):
    """The reference, except that the instruction sources go before the agent and tree system text, not after it."""

    def system(self, request: Json, steps: list[Step]) -> str:
        """The path's instruction sources, then the agent and tree system text."""
        base, full = super().system(request, []), super().system(request, steps)
        instructions = full.removeprefix(base).lstrip("\n")
        return "\n\n".join(part for part in (instructions, base) if part)


@CATALOGUE.mutant(
    "context-assembly/multi-source-edges/processing-order",
    "context-assembly/multi-source-edges/instruction-appended-to-system",
)
class InstructionsAfterPrimary(Assembler):
    """The reference, except that an edge's instruction sources are processed last, as messages after its primary."""

    def system(self, request: Json, steps: list[Step]) -> str:  # noqa: ARG002 - the steps' instructions are left out on purpose
        """The agent and tree system text only: the instructions went to the messages."""
        return super().system(request, [])

    def messages(self, steps: list[Step]) -> list[Piece]:
        """The reference's messages, each step's instruction sources following it."""
        moved: list[Step] = []
        for step in steps:
            moved.append(step._replace(instructions=()))
            if step.instructions and not step.excluded:
                moved += [Step(node, excluded=False) for node in step.instructions]
        return super().messages(moved)


@CATALOGUE.mutant("context-assembly/multi-source-edges/primary-main-content", edge="wrong-types")
class ContentOfAnyTypeStringified(Assembler):
    """The reference, except that content that is neither text nor an object becomes str(content): null is "None"."""

    def messages(self, steps: list[Step]) -> list[Piece]:
        """The reference's messages, each node's content passed through str() unless it is text or an object."""
        return super().messages([step._replace(node=_stringified(step.node)) for step in steps])


def _stringified(node: Json) -> Json:
    content = node.get("content")
    return node if isinstance(content, (str, dict)) else {**node, "content": str(content)}
