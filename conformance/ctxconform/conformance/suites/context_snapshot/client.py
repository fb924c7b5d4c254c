"""Context snapshots as a test sees them: requests checked against the schemas, replies checked on reading."""

from __future__ import annotations

import base64
import copy
from dataclasses import dataclass
from typing import Any, Final

import pytest

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance._outcome import CheckedReply
from ctxconform.conformance._schemas import schema_errors
from ctxconform.conformance.exceptions import RequirementFailure

__all__ = [
    "ACTOR",
    "BLOB_NONE",
    "FINALIZED",
    "HASH",
    "HASH_SHA256",
    "HOLDS",
    "ITEM",
    "NO_CHANGE",
    "RECORD",
    "SPEC",
    "Outcome",
    "Snapshots",
    "as_content",
    "blob_hex",
    "content_bytes",
    "item_blob",
    "items_of",
    "require",
]

SPEC: Final = "context-snapshot"
RECORD: Final = "context-snapshot/structs/context-snapshot"
ITEM: Final = "context-snapshot/items/three-layers"
HASH: Final = "context-snapshot/items/blob-git-hash"
HASH_SHA256: Final = "context-snapshot/items/blob-sha256"
HOLDS: Final = "context-snapshot/items/blob-holds-full-content"
NO_CHANGE: Final = "context-snapshot/definition/no-change-after-creation"
BLOB_NONE: Final = "context-snapshot/items/blob-none-in-draft"
FINALIZED: Final = "context-snapshot/items/blob-set-when-finalized"
ACTOR: Final = {"kind": "agent", "id": "ctxconform-suite", "display_name": "ctxconform suite"}
Json = dict[str, Any]

# The requirement a malformed result breaks, per operation.
_SHAPES: Final = {
    "create_snapshot": RECORD,
    "finalize": RECORD,
    "get_snapshot": RECORD,
    "add_item": ITEM,
    "set_item_content": ITEM,
    "remove_item": ITEM,
    "hash_content": HASH,
    "read_blob": HOLDS,
    "retain": "context-snapshot/blob-retention/application-chooses-strategy",
}


def require(condition: object, requirement: str, message: str) -> None:
    """Fail `requirement` with `message` unless `condition` holds."""
    if not condition:
        raise RequirementFailure(requirement, message)


@dataclass(frozen=True)
class Outcome(CheckedReply):
    """A reply: a result checked against the operation's response schema when read, or an error."""

    def result(self, requirement: str | None = None) -> Json:
        """The result; fails `requirement` (the shape requirement when None) when refused or malformed."""
        shape = _SHAPES.get(self.action, RECORD)
        if not self.reply.ok:
            raise RequirementFailure(requirement or shape, f"{self.action} was refused with {self.reply.error}")
        errors = schema_errors(f"{SPEC}/{self.action}.response.json", self.reply.result)
        if errors:
            # The test's own requirement when it names one: a too-long preview is a preview failure, not only a shape one.
            message = f"{self.action} answered what its schema refuses: {'; '.join(e[:300] for e in errors[:5])}"
            raise RequirementFailure(requirement or shape, message)
        checked: Json = self.reply.result
        return checked


class Snapshots:
    """The context-snapshot operations of the implementation under test."""

    def __init__(self, implementation: Implementation) -> None:
        self.implementation = implementation

    @property
    def features(self) -> frozenset[str]:
        """The optional features the implementation declares for context-snapshot."""
        return self.implementation.features(SPEC)

    def needs(self, feature: str) -> None:
        """Skip a test case that needs an optional feature the implementation does not declare."""
        if feature not in self.features:
            pytest.skip(f"the implementation does not declare feature {feature}")

    def send(self, op: str, args: object) -> Outcome:
        """Call any operation with any arguments (malformed ones too); an error object must match the error schema."""
        reply = self.implementation.call(SPEC, op, copy.deepcopy(args))
        if not reply.ok:
            errors = schema_errors(f"{SPEC}/error.json", reply.error)
            require(not errors, _SHAPES.get(op, RECORD), f"{op}: the error object breaks its schema: {'; '.join(errors)}")
        return Outcome(reply, op)

    def call(self, op: str, **args: object) -> Outcome:
        """Check the arguments against the request schema (a suite bug otherwise), then call."""
        errors = schema_errors(f"{SPEC}/{op}.request.json", args)
        assert not errors, f"the suite built a {op} request that breaks the schema: {'; '.join(errors)}"
        return self.send(op, args)

    def create(self, *, strategy: str = "explicit", algorithm: str | None = None, **extra: object) -> str:
        """Create a draft and return its object_id."""
        args: Json = {"created_by": ACTOR, "selection_strategy": strategy, **extra}
        if algorithm is not None:
            args["algorithm"] = algorithm
        return str(self.call("create_snapshot", **args).result(RECORD)["snapshot"]["object_id"])

    def add(
        self,
        snapshot_id: str,
        kind: object,
        path: str,
        content: bytes | None = None,
        *,
        text: bool | None = None,
        preview: str | None = None,
    ) -> Outcome:
        """The add_item call; content travels as text when it is UTF-8 (unless text=False), else as base64."""
        args: Json = {"snapshot_id": snapshot_id, "kind": kind, "path": path}
        if preview is not None:
            args["preview"] = preview
        if content is not None:
            args["content"] = as_content(content, text=text)
        return self.call("add_item", **args)

    def get(self, snapshot_id: str, requirement: str = RECORD) -> Json:
        """get_snapshot's result."""
        return self.call("get_snapshot", snapshot_id=snapshot_id).result(requirement)

    def finalized(self, snapshot_id: str, requirement: str = RECORD) -> Json:
        """Finalize and return the result."""
        return self.call("finalize", snapshot_id=snapshot_id).result(requirement)

    def with_items(self, items: list[tuple[object, str, bytes]], *, algorithm: str | None = None, finalize: bool = True) -> str:
        """A snapshot holding (kind, path, content) items, finalized unless told otherwise."""
        snapshot_id = self.create(algorithm=algorithm)
        for kind, path, content in items:
            self.add(snapshot_id, kind, path, content).result(ITEM)
        if finalize:
            self.finalized(snapshot_id)
        return snapshot_id

    def read_blob(self, blob: object) -> Outcome:
        """read_blob."""
        return self.call("read_blob", blob=blob)

    def hash(self, content: bytes, algorithm: str | None = None) -> str:
        """hash_content's blob id, in hex."""
        args: Json = {"content": as_content(content)}
        if algorithm is not None:
            args["algorithm"] = algorithm
        return blob_hex(self.call("hash_content", **args).result(HASH)["blob"])


def as_content(content: bytes, *, text: bool | None = None) -> Json:
    """The content argument: {"text"} for UTF-8 (unless text=False), else {"base64"}."""
    if text is not False:
        try:
            return {"text": content.decode("utf-8")}
        except UnicodeDecodeError:
            pass
    return {"base64": base64.b64encode(content).decode("ascii")}


def content_bytes(content: Json) -> bytes:
    """The bytes of a content object ({"text"} or {"base64"})."""
    if "text" in content:
        return str(content["text"]).encode("utf-8")
    return base64.b64decode(content["base64"], validate=True)


def blob_hex(value: object) -> str:
    """A blob id in hex, from either accepted form (hex, or the tagged byte array)."""
    if isinstance(value, str):
        return value
    assert isinstance(value, dict), f"harness bug: not a blob id: {value!r}"
    ((_, numbers),) = value.items()
    return bytes(numbers).hex()


def items_of(result: Json) -> list[Json]:
    """The items of a snapshot result (absent when empty, as the origin does)."""
    items: list[Json] = result["snapshot"].get("items", [])
    return items


def item_blob(item: Json) -> str | None:
    """An item's blob in hex, or None when it has none (absent or null)."""
    value = item.get("blob")
    return None if value is None else blob_hex(value)
