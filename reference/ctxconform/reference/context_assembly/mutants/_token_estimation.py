"""Mutants of section "Token Estimation": the characters per token and the response buffer."""

from __future__ import annotations

from ctxconform.reference.context_assembly import Assembler

from ._base import CATALOGUE, Json


@CATALOGUE.mutant(
    "context-assembly/token-estimation/four-chars-per-token",
    "context-assembly/dialogue-mode/truncate-only-if-needed",
    "context-assembly/truncation/rolling-window-unit",
    "context-assembly/truncation/stop-at-limit-error",
)
class ThreeCharactersPerToken(Assembler):
    """The reference, except that tokens are estimated at three characters each."""

    @staticmethod
    def estimate(text: str) -> int:
        """Return ceil(characters / 3)."""
        return -(-len(text) // 3)


@CATALOGUE.mutant("context-assembly/token-estimation/response-buffer-reserved")
class NoDefaultResponseBuffer(Assembler):
    """The reference, except that no response buffer is reserved when tokenBuffer is not set."""

    def budget(self, request: Json, settings: Json) -> int:
        """The reference's budget, with a tokenBuffer of 0 unless one is set."""
        return super().budget(request, {"tokenBuffer": 0, **settings})
