"""The snapshot model: ContextSnapshot (header, strategy, items, summary) and ContextItem, as the origin serializes them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

from ctxconform.reference.context_snapshot._objects import Algorithm, ObjectId

__all__ = ["KINDS", "OBJECT_TYPE", "PREVIEW_LIMIT", "SELECTION_STRATEGIES", "Actor", "Header", "Item", "Kind", "Snapshot"]

Json = dict[str, Any]
KINDS: Final = ("file", "url", "snippet", "command", "image")
SELECTION_STRATEGIES: Final = ("explicit", "heuristic")
OBJECT_TYPE: Final = "context_snapshot"
PREVIEW_LIMIT: Final = 500  # previews stay under this many characters


@dataclass(frozen=True)
class Kind:
    """An item kind: one of the five, or the origin's open variant {"other": name}."""

    name: str
    other: bool = False

    @property
    def is_file(self) -> bool:
        """Whether the item is a File, whose blob the commit tree already keeps reachable."""
        return not self.other and self.name == "file"

    def to_json(self) -> str | dict[str, str]:
        """The serialized kind: "file" ... "image", or {"other": name}."""
        return {"other": self.name} if self.other else self.name


@dataclass(frozen=True)
class Actor:
    """created_by: who created a snapshot."""

    kind: str
    id: str
    display_name: str | None = None

    def to_json(self) -> Json:
        """{kind, id, display_name?}."""
        actor = {"kind": self.kind, "id": self.id}
        return actor if self.display_name is None else actor | {"display_name": self.display_name}


@dataclass(frozen=True)
class Item:
    """A ContextItem: kind, path, an optional preview and an optional blob."""

    kind: Kind
    path: str
    preview: str | None = None
    blob: ObjectId | None = None

    def to_json(self) -> Json:
        """{kind, path, preview?, blob?}: absent options are omitted; the blob is in hex."""
        item: Json = {"kind": self.kind.to_json(), "path": self.path}
        if self.preview is not None:
            item["preview"] = self.preview
        if self.blob is not None:
            item["blob"] = self.blob.hex
        return item


@dataclass(frozen=True)
class Header:
    """Everything about a snapshot but its items: the header fields, strategy, summary, object format and state."""

    object_id: str
    created_at: str
    created_by: Actor
    selection_strategy: str
    summary: str | None
    algorithm: Algorithm
    finalized: bool = False

    @property
    def label(self) -> str:
        """How messages name the snapshot."""
        return f"context snapshot {self.object_id}"


@dataclass(frozen=True)
class Snapshot:
    """A ContextSnapshot: its header and its items, in order."""

    header: Header
    items: tuple[Item, ...] = ()

    @property
    def state(self) -> Literal["draft", "finalized"]:
        """The lifecycle state: draft or finalized."""
        return "finalized" if self.header.finalized else "draft"

    def to_json(self) -> Json:
        """The origin's shape: header flattened, selection_strategy, items (omitted when empty), summary?."""
        header = self.header
        snapshot: Json = {
            "object_id": header.object_id,
            "object_type": OBJECT_TYPE,
            "created_at": header.created_at,
            "created_by": header.created_by.to_json(),
            "selection_strategy": header.selection_strategy,
        }
        if self.items:
            snapshot["items"] = [item.to_json() for item in self.items]
        if header.summary is not None:
            snapshot["summary"] = header.summary
        return snapshot

    def result(self) -> Json:
        """{snapshot, state, algorithm}: the record and the kit's lifecycle state beside it."""
        return {"snapshot": self.to_json(), "state": self.state, "algorithm": self.header.algorithm}
