"""What every spec package of the reference exports: a handler factory, opened once per run, that carries out calls."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ctxconform.reference.exceptions import SpecError

__all__ = ["HandlerFactory", "Opening", "SpecHandler", "only_fields"]

Json = dict[str, Any]


class SpecHandler(Protocol):
    """One spec's operations, as the reference carries them out."""

    version: str
    features: tuple[str, ...]

    def call(self, op: str, args: Json, context: Json) -> Json:
        """Carry out one operation; raise SpecError to refuse it."""

    def close(self) -> None:
        """Release what the handler holds."""


@dataclass(frozen=True)
class Opening:
    """What a handler is opened with: the run's state folder, the spec's start options, and the store URL if one is set.

    `synchronous` is how the SQLite stores in the state folder commit: "full" syncs every commit to disk (it survives
    a power loss), "normal" does not (a commit survives a killed process only).
    """

    state_dir: Path
    options: Json
    store_url: str | None = None
    synchronous: str = "full"


class HandlerFactory(Protocol):
    """Opens one spec's handler; each spec package exports one as `HANDLER_FACTORY`, and a mutant swaps in another."""

    @property
    def spec(self) -> str:
        """The spec id the handlers carry out."""

    def __call__(self, opening: Opening) -> SpecHandler:
        """Open a handler for one run."""


def only_fields(args: object, allowed: set[str]) -> None:
    """Refuse arguments that are not an object, or that hold a field outside `allowed`."""
    if not isinstance(args, dict):
        raise SpecError("INVALID_REQUEST", f"the arguments must be an object, got {type(args).__name__}")
    extra = set(args) - allowed
    if extra:
        raise SpecError("INVALID_REQUEST", f"unexpected field(s) {', '.join(sorted(extra))}")
