"""Mutants of section "Multi-Source Edge Handling": instruction, context and primary sources."""

from __future__ import annotations

from ctxconform.reference.context_assembly import Assembler, Piece, Step

from ._base import CATALOGUE, Json


@CATALOGUE.mutant("context-assembly/multi-source-edges/primary-main-content")
class MessageContentStripped(Assembler):
    """The reference, except that each message's content is stripped of surrounding whitespace."""

    def messages(self, steps: list[Step]) -> list[Piece]:
        """The reference's messages, each stripped."""
        return [Piece(piece.role, piece.text.strip()) for piece in super().messages(steps)]


@CATALOGUE.mutant("context-assembly/multi-source-edges/instruction-appended-to-system", name="instructions_need_a_system_context")
class InstructionsNeedASystemContext(Assembler):
    """The reference, except that instruction sources are appended only when an agent or tree system context exists."""

    def system(self, request: Json, steps: list[Step]) -> str:
        """The reference's system context, or nothing when the agent and the tree have none."""
        return super().system(request, steps) if super().system(request, []) else ""


@CATALOGUE.mutant("context-assembly/multi-source-edges/processing-order")
class InstructionSourcesReversed(Assembler):
    """The reference, except that the instruction sources of an edge are appended in reverse order."""

    def system(self, request: Json, steps: list[Step]) -> str:
        """The reference's system context, with each edge's instruction sources reversed."""
        return super().system(request, [step._replace(instructions=step.instructions[::-1]) for step in steps])
