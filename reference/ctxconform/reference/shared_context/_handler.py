"""shared-context behind the adapter protocol: the shared_context tool plus the session lifecycle operations."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from ctxconform.reference._handler import Opening, only_fields
from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.shared_context._open import open_store
from ctxconform.reference.shared_context._service import SharedContext
from ctxconform.reference.shared_context._store import Store

__all__ = ["HANDLER_FACTORY", "SPEC_ID", "SPEC_VERSION", "SharedContextFactory", "SharedContextHandler"]

Json = dict[str, Any]
SPEC_ID: Final = "shared-context"
SPEC_VERSION: Final = "0.1.0-draft"


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
            only_fields(args, {"session_id", "config"})
            return self.service.create_session(args.get("session_id"), args.get("config"))
        if op in ("archive_session", "delete_session"):
            only_fields(args, {"session_id"})
            return getattr(self.service, op)(args.get("session_id"))  # type: ignore[no-any-return]
        raise SpecError("UNKNOWN_OP", f"shared-context has no operation {op!r}")

    def close(self) -> None:
        """Close the store."""
        self.service.store.close()


@dataclass(frozen=True)
class SharedContextFactory:
    """Opens shared-context over the store the run names; `service` is the override point a mutant replaces."""

    service: Callable[[Store], SharedContext] = SharedContext
    spec: str = SPEC_ID

    def __call__(self, opening: Opening) -> SharedContextHandler:
        """A handler over the store URL given, else `CTXCONFORM_STORE`, else SQLite in the state folder."""
        in_state = f"sqlite:///{opening.state_dir / 'shared-context.sqlite3'}"
        if opening.synchronous != "full":
            in_state += f"?synchronous={opening.synchronous}"
        url = opening.store_url or os.environ.get("CTXCONFORM_STORE") or in_state
        return SharedContextHandler(self.service(open_store(url)))


HANDLER_FACTORY: Final = SharedContextFactory()
