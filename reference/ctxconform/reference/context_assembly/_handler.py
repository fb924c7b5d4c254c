"""context-assembly behind the adapter protocol: one stateless operation, assemble."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from ctxconform.reference._handler import Opening, SpecHandler
from ctxconform.reference.context_assembly._assemble import Assembler
from ctxconform.reference.exceptions import SpecError

__all__ = ["HANDLER_FACTORY", "SPEC_ID", "SPEC_VERSION", "ContextAssemblyFactory", "ContextAssemblyHandler"]

Json = dict[str, Any]
SPEC_ID: Final = "context-assembly"
SPEC_VERSION: Final = "Draft"


@dataclass
class ContextAssemblyHandler:
    """context-assembly: one stateless operation, assemble, carried out by `assembler`."""

    operations: ClassVar[tuple[str, ...]] = ("assemble",)
    version: str = SPEC_VERSION
    features: tuple[str, ...] = ("buffer_mode", "rolling_window", "stop_at_limit", "multi_source_edges")
    assembler: Assembler = field(default_factory=Assembler)
    """The steps of assembly: the point a variant overrides, with a subclass of Assembler."""

    def call(self, op: str, args: Json, context: Json) -> Json:  # noqa: ARG002 - assembly has no call context
        """Assemble a completion request."""
        if op not in self.operations:
            raise SpecError("UNKNOWN_OP", f"context-assembly has no operation {op!r}")
        return self.assembler.run(args)

    def close(self) -> None:
        """Nothing to release."""


@dataclass(frozen=True)
class ContextAssemblyFactory:
    """Opens context-assembly; `handler` is the override point a mutant replaces."""

    handler: Callable[[], SpecHandler] = ContextAssemblyHandler
    spec: str = SPEC_ID

    def __call__(self, opening: Opening) -> SpecHandler:  # noqa: ARG002 - assembly keeps no state
        """A fresh handler."""
        return self.handler()


HANDLER_FACTORY: Final = ContextAssemblyFactory()
