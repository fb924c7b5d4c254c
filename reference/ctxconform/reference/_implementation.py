"""The reference implementation behind the adapter protocol: start, call and stop messages in, replies out."""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol

from ctxconform.reference.content_provider import open_handler as open_content_provider
from ctxconform.reference.context_assembly import SPEC_VERSION as ASSEMBLY_VERSION
from ctxconform.reference.context_assembly import assemble
from ctxconform.reference.context_snapshot import ContextSnapshotHandler
from ctxconform.reference.exceptions import SpecError, StoreError
from ctxconform.reference.read_context import SPEC_VERSION as READ_CONTEXT_VERSION
from ctxconform.reference.read_context import ReadContext
from ctxconform.reference.shared_context import SPEC_VERSION, SharedContext, Store, open_store

__all__ = ["PROTOCOL_VERSION", "Reference", "SharedContextHandler", "SpecHandler"]

Json = dict[str, Any]

PROTOCOL_VERSION: Final = 1
_VERSION: Final = "0.1.0"


class SpecHandler(Protocol):
    """One spec's operations, as the reference carries them out."""

    version: str
    features: tuple[str, ...]

    def call(self, op: str, args: Json, context: Json) -> Json:
        """Carry out one operation; raise SpecError to refuse it."""

    def close(self) -> None:
        """Release what the handler holds."""


@dataclass
class SharedContextHandler:
    """shared-context: the shared_context tool plus the session lifecycle operations."""

    service: SharedContext
    version: str = SPEC_VERSION
    features: tuple[str, ...] = ("read_batch", "read_history", "snapshot", "write_warning")

    def call(self, op: str, args: Json, context: Json) -> Json:
        """Route an operation to the service."""
        if op == "shared_context":
            return self.service.handle(context.get("session_id"), context.get("participant"), args)
        if op == "create_session":
            _only(args, {"session_id", "config"})
            return self.service.create_session(args.get("session_id"), args.get("config"))
        if op in ("archive_session", "delete_session"):
            _only(args, {"session_id"})
            return getattr(self.service, op)(args.get("session_id"))  # type: ignore[no-any-return]
        raise SpecError("UNKNOWN_OP", f"shared-context has no operation {op!r}")

    def close(self) -> None:
        """Close the store."""
        self.service.store.close()


@dataclass
class ReadContextHandler:
    """read-context: the read_context tool over a workspace root and a tastes folder."""

    service: ReadContext
    version: str = READ_CONTEXT_VERSION
    features: tuple[str, ...] = ()

    @classmethod
    def from_options(cls, state_dir: Path, options: Json, factory: Callable[[Path, Path], ReadContext]) -> ReadContextHandler:
        """Use the folders the harness names, or folders inside the state directory."""
        root = Path(options.get("workspace_root") or state_dir / "read-context" / "workspaces")
        tastes = Path(options.get("tastes_dir") or state_dir / "read-context" / "tastes")
        return cls(factory(root, tastes))

    def call(self, op: str, args: Json, context: Json) -> Json:  # noqa: ARG002 - read-context has no call context
        """Carry out read_context."""
        if op != "read_context":
            raise SpecError("UNKNOWN_OP", f"read-context has no operation {op!r}")
        if not isinstance(args, dict) or set(args) != {"image_id"}:
            raise SpecError("INVALID_REQUEST", "read_context takes exactly one argument, image_id")
        return self.service.read_context(args["image_id"])

    def close(self) -> None:
        """Nothing to release."""


@dataclass
class ContextAssemblyHandler:
    """context-assembly: one stateless operation, assemble."""

    version: str = ASSEMBLY_VERSION
    features: tuple[str, ...] = ("buffer_mode", "rolling_window", "stop_at_limit", "multi_source_edges")

    def call(self, op: str, args: Json, context: Json) -> Json:  # noqa: ARG002 - assembly has no call context
        """Assemble a completion request."""
        if op != "assemble":
            raise SpecError("UNKNOWN_OP", f"context-assembly has no operation {op!r}")
        return assemble(args)

    def close(self) -> None:
        """Nothing to release."""


def _only(args: object, allowed: set[str]) -> None:
    if not isinstance(args, dict):
        raise SpecError("INVALID_REQUEST", f"the arguments must be an object, got {type(args).__name__}")
    extra = set(args) - allowed
    if extra:
        raise SpecError("INVALID_REQUEST", f"unexpected field(s) {', '.join(sorted(extra))}")


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
    """The reference implementation of every spec the kit implements, speaking the adapter protocol."""

    store_url: str | None = None
    name: str = "ctxconform-reference"
    shared_context: Callable[[Store], SharedContext] = SharedContext
    read_context: Callable[[Path, Path], ReadContext] = ReadContext
    context_assembly: Callable[[], ContextAssemblyHandler] = ContextAssemblyHandler
    context_snapshot: Callable[[Path, Json], SpecHandler] = ContextSnapshotHandler.from_options
    content_provider: Callable[[Path, str | None], SpecHandler] = open_content_provider
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
        url = self.store_url or os.environ.get("CTXCONFORM_STORE") or f"sqlite:///{state_dir / 'shared-context.sqlite3'}"
        self.handlers["shared-context"] = SharedContextHandler(self.shared_context(open_store(url)))
        self.handlers["context-assembly"] = self.context_assembly()
        self.handlers["context-snapshot"] = self.context_snapshot(state_dir, options.get("context-snapshot") or {})
        self.handlers["content-provider"] = self.content_provider(state_dir, self.store_url)
        folders = options.get("read-context") or {}
        self.handlers["read-context"] = ReadContextHandler.from_options(state_dir, folders, self.read_context)
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
