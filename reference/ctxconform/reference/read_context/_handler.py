"""read-context behind the adapter protocol: the read_context tool over a workspace root and a tastes folder."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ctxconform.reference._handler import Opening
from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.read_context._service import ReadContext

__all__ = ["HANDLER_FACTORY", "SPEC_ID", "SPEC_VERSION", "ReadContextFactory", "ReadContextHandler"]

Json = dict[str, Any]
SPEC_ID: Final = "read-context"
SPEC_VERSION: Final = "ADR-059"


@dataclass
class ReadContextHandler:
    """read-context: the read_context tool over a workspace root and a tastes folder."""

    service: ReadContext
    version: str = SPEC_VERSION
    features: tuple[str, ...] = ()

    def call(self, op: str, args: Json, context: Json) -> Json:  # noqa: ARG002 - read-context has no call context
        """Carry out read_context."""
        if op != "read_context":
            raise SpecError("UNKNOWN_OP", f"read-context has no operation {op!r}")
        if not isinstance(args, dict) or set(args) != {"image_id"}:
            raise SpecError("INVALID_REQUEST", "read_context takes exactly one argument, image_id")
        return self.service.read_context(args["image_id"])

    def close(self) -> None:
        """Nothing to release."""


@dataclass(frozen=True)
class ReadContextFactory:
    """Opens read-context over the folders the harness names; `service` is the override point a mutant replaces."""

    service: Callable[[Path, Path], ReadContext] = ReadContext
    spec: str = SPEC_ID

    def __call__(self, opening: Opening) -> ReadContextHandler:
        """Use the folders the harness names, or folders inside the state directory."""
        root = Path(opening.options.get("workspace_root") or opening.state_dir / "read-context" / "workspaces")
        tastes = Path(opening.options.get("tastes_dir") or opening.state_dir / "read-context" / "tastes")
        return ReadContextHandler(self.service(root, tastes))


HANDLER_FACTORY: Final = ReadContextFactory()
