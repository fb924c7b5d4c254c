"""Mutants of section "Buffer Mode Assembly": the path as one continuous document."""

from __future__ import annotations

from ctxconform.reference.context_assembly import Assembler, Piece, Step, content_text

from ._base import CATALOGUE, Json


@CATALOGUE.mutant("context-assembly/buffer-mode/no-role-distinctions")
class BufferLabelsSpeakers(Assembler):
    """The reference, except that buffer mode prefixes each node's content with 'Human: ' or 'Model: '."""

    def segments(self, steps: list[Step], working_buffer: str) -> list[Piece]:
        """The reference's segments, each node's content labelled with its author."""
        labels = {"human": "Human: ", "model": "Model: "}
        labelled = [
            step._replace(node={**step.node, "content": labels[step.node["authorType"]] + content_text(step.node.get("content"))})
            for step in steps
        ]
        return super().segments(labelled, working_buffer)


@CATALOGUE.mutant("context-assembly/buffer-mode/system-context-excluded-by-default")
class BufferSystemContextOnByDefault(Assembler):
    """The reference, except that buffer mode includes the system context unless bufferModeSystemContext is false."""

    def includes_system(self, tree: Json, *, buffer_mode: bool) -> bool:
        """Whether the system context is assembled: always in dialogue mode, unless turned off in buffer mode."""
        return not buffer_mode or bool(tree.get("bufferModeSystemContext", True))


@CATALOGUE.mutant("context-assembly/buffer-mode/system-context-enabled")
class BufferSystemContextWithoutAgent(Assembler):
    """The reference, except that an enabled buffer-mode system context leaves out the agent-level prompt."""

    def system(self, request: Json, steps: list[Step]) -> str:
        """The reference's system context, without the agent's prompt in buffer mode."""
        buffer_mode = request["tree"].get("mode") == "buffer"
        return super().system({**request, "agent": None} if buffer_mode else request, steps)


@CATALOGUE.mutant("context-assembly/buffer-mode/traverse-active-path")
class BufferPathWalkedBackwards(Assembler):
    """The reference, except that the buffer document runs from the current position back to the root."""

    def segments(self, steps: list[Step], working_buffer: str) -> list[Piece]:
        """The reference's segments of the path read backwards."""
        return super().segments(steps[::-1], working_buffer)


@CATALOGUE.mutant("context-assembly/buffer-mode/filter-excluded")
class BufferKeepsAnnotationNodes(Assembler):
    """The reference, except that buffer mode keeps nodes reached through annotation edges."""

    def segments(self, steps: list[Step], working_buffer: str) -> list[Piece]:
        """The reference's segments, a node excluded only by its own excluded or pruned flag."""
        return super().segments([step._replace(excluded=self._flagged(step.node)) for step in steps], working_buffer)

    @staticmethod
    def _flagged(node: Json) -> bool:
        metadata = node.get("metadata") or {}
        return bool(metadata.get("excluded") or metadata.get("pruned"))


@CATALOGUE.mutant("context-assembly/buffer-mode/concatenate-content")
class BufferMergesSameAuthorRuns(Assembler):
    """The reference, except that buffer mode joins same-author runs with a blank line, as dialogue merging does."""

    def segments(self, steps: list[Step], working_buffer: str) -> list[Piece]:
        """The dialogue mode's merged messages as segments, then the working buffer."""
        merged = [Piece("text", piece.text) for piece in self.messages(steps)]
        return [*merged, Piece("text", working_buffer)] if working_buffer else merged


@CATALOGUE.mutant("context-assembly/buffer-mode/append-working-buffer")
class WorkingBufferStripped(Assembler):
    """The reference, except that the working buffer is stripped of surrounding whitespace before it is appended."""

    def segments(self, steps: list[Step], working_buffer: str) -> list[Piece]:
        """The reference's segments with the working buffer stripped."""
        return super().segments(steps, working_buffer.strip())
