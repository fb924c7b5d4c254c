"""The reference implementation behind the adapter protocol: start, call and stop messages in, replies out."""

from __future__ import annotations

import importlib
import pkgutil
import traceback
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any, Final

from ctxconform.reference._handler import HandlerFactory, Opening, SpecHandler
from ctxconform.reference.exceptions import SpecError, StoreError

__all__ = ["PROTOCOL_VERSION", "Reference", "handler_factories", "in_process_reference", "spec_packages"]

Json = dict[str, Any]

PROTOCOL_VERSION: Final = 1
_VERSION: Final = "0.1.0"
_PACKAGE: Final = "ctxconform.reference"
_MUTANTS: Final = f"{_PACKAGE}.mutants"  # every spec's mutants, not a spec


@cache
def spec_packages() -> tuple[ModuleType, ...]:
    """Every spec package of the reference: a subpackage exporting its `HANDLER_FACTORY`, ordered by spec id."""
    package = importlib.import_module(_PACKAGE)
    names = [m.name for m in pkgutil.iter_modules(package.__path__, f"{_PACKAGE}.") if m.ispkg and m.name != _MUTANTS]
    modules = (importlib.import_module(name) for name in names)
    return tuple(sorted((m for m in modules if hasattr(m, "HANDLER_FACTORY")), key=lambda m: str(m.HANDLER_FACTORY.spec)))


def handler_factories() -> tuple[HandlerFactory, ...]:
    """The handler factory of every spec package of the reference."""
    return tuple(package.HANDLER_FACTORY for package in spec_packages())


class _UnknownSpec:
    version = ""
    features = ()

    def call(self, op: str, args: Json, context: Json) -> Json:  # noqa: ARG002 - every call is refused
        raise SpecError("UNKNOWN_OP", f"this implementation does not implement the spec of operation {op!r}")

    def close(self) -> None:
        pass


_UNKNOWN_SPEC: Final = _UnknownSpec()


@dataclass
class Reference:
    """The reference implementation of every spec the kit implements, speaking the adapter protocol.

    `replaced` holds handler factories that stand in for the spec packages' own (a mutant is one of these).
    """

    store_url: str | None = None
    name: str = "ctxconform-reference"
    replaced: tuple[HandlerFactory, ...] = ()
    synchronous: str = "full"  # of the SQLite stores in the state folder: "normal" skips the fsync of each commit
    handlers: dict[str, SpecHandler] = field(default_factory=dict)

    def handle(self, message: Json) -> Json:
        """Answer one protocol message (start, call or stop)."""
        kind = message.get("type")
        if kind == "start":
            return self._start(Path(message["state_dir"]), message.get("options") or {})
        if kind == "call":
            return self._call(message)
        self.close()
        return {"type": "stopped"}

    def close(self) -> None:
        """Release every handler's resources."""
        for handler in self.handlers.values():
            handler.close()
        self.handlers.clear()

    def _start(self, state_dir: Path, options: Json) -> Json:
        self.close()
        factories = {factory.spec: factory for factory in (*handler_factories(), *self.replaced)}
        for spec, factory in factories.items():
            self.handlers[spec] = factory(Opening(state_dir, options.get(spec) or {}, self.store_url, self.synchronous))
        return {
            "type": "started",
            "implementation": {"name": self.name, "version": _VERSION, "language": "python"},
            "specs": {
                name: {"version": handler.version, "features": list(handler.features)} for name, handler in self.handlers.items()
            },
        }

    def _call(self, message: Json) -> Json:
        seq = message["seq"]
        handler = self.handlers.get(message["spec"], _UNKNOWN_SPEC)
        try:
            return {
                "type": "reply",
                "seq": seq,
                "result": handler.call(message["op"], message["args"], message.get("context", {})),
            }
        except SpecError as error:
            return {"type": "reply", "seq": seq, "error": {"code": error.code, "message": error.message}}
        except (StoreError, Exception) as error:  # the protocol's "errored": a failure that is not a spec error
            return {"type": "reply", "seq": seq, "errored": {"message": str(error), "traceback": traceback.format_exc()}}


def in_process_reference() -> Reference:
    """The reference as the kit runs it in its own process: its SQLite commits survive a killed process, unsynced.

    Its state folder is the run's, deleted when the run ends, so a sync to disk per commit (what survives a power
    loss, and what no test can observe) would cost the run an fsync per write for nothing.
    """
    return Reference(synchronous="normal")
