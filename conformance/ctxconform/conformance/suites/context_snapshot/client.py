"""Context snapshots as a test sees them: one client whose calls are checked and charged by the kit."""

from __future__ import annotations

import base64
import copy
from dataclasses import dataclass
from typing import Any, Final

from ctxconform.conformance.suites.context_snapshot import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.context_snapshot.strategies import WHITE_SPACE
from ctxconform.conformance.testing import Checked, Client, Implementation, Operation, Operations, schema_errors

__all__ = [
    "ACTOR",
    "OPERATIONS",
    "SPEC",
    "Snapshots",
    "actor_as_given",
    "as_content",
    "blob_hex",
    "content_bytes",
    "item_blob",
    "items_of",
    "preview_as_given",
    "previews_as_given",
]

SPEC: Final = "context-snapshot"
ACTOR: Final = {"kind": "agent", "id": "ctxconform-suite", "display_name": "ctxconform suite"}
Json = dict[str, Any]


def _operation(requirement: str, op: str) -> Operation:
    return Operation(requirement=requirement, schema=f"{SPEC}/{op}.response.json")


@dataclass(frozen=True)
class _SnapshotOperations(Operations):
    """The spec has no error requirement; an operation it does not have serves the snapshot record it would touch."""

    def of(self, op: str, serves: str | None = None) -> Operation:
        """The rules of `op`; an unknown one serves `serves`, else structs/context-snapshot."""
        return self.table.get(op) or Operation(serves or R.STRUCTS_CONTEXT_SNAPSHOT)


OPERATIONS: Final = _SnapshotOperations(
    spec=SPEC,
    table={
        "create_snapshot": _operation(R.STRUCTS_CONTEXT_SNAPSHOT, "create_snapshot"),
        "get_snapshot": _operation(R.STRUCTS_CONTEXT_SNAPSHOT, "get_snapshot"),
        "finalize": _operation(R.STRUCTS_CONTEXT_SNAPSHOT, "finalize"),
        "add_item": _operation(R.ITEMS_THREE_LAYERS, "add_item"),
        "set_item_content": _operation(R.ITEMS_THREE_LAYERS, "set_item_content"),
        "remove_item": _operation(R.ITEMS_THREE_LAYERS, "remove_item"),
        "hash_content": _operation(R.ITEMS_BLOB_GIT_HASH, "hash_content"),
        "read_blob": _operation(R.ITEMS_BLOB_HOLDS_FULL_CONTENT, "read_blob"),
        "retain": _operation(R.BLOB_RETENTION_APPLICATION_CHOOSES_STRATEGY, "retain"),
    },
    error_schema=f"{SPEC}/error.json",
)


def _serves(op: str) -> str:
    return OPERATIONS.of(op).requirement


class Snapshots(Client):
    """The context-snapshot operations of the implementation under test.

    The helpers are setup: unless told otherwise they serve the operation's own requirement, so a refused or failed
    setup call is charged to what that operation's answer must be, never to the requirement a test is about.
    """

    def __init__(self, implementation: Implementation) -> None:
        super().__init__(implementation, OPERATIONS)

    @property
    def features(self) -> frozenset[str]:
        """The optional features the implementation declares for context-snapshot."""
        return self.implementation.features(SPEC)

    def send(self, op: str, args: object, *, serves: str | None = None) -> Checked:
        """Call any operation with any arguments (malformed ones too)."""
        return self.call(op, copy.deepcopy(args), serves=serves)

    def request(self, op: str, *, serves: str | None = None, **args: object) -> Checked:
        """Call with arguments the request schema accepts (a suite bug otherwise)."""
        errors = schema_errors(f"{SPEC}/{op}.request.json", args)
        if errors:
            raise RuntimeError(f"the suite built a {op} request that breaks the schema: {'; '.join(errors)}")
        return self.send(op, args, serves=serves or _serves(op))

    def create(
        self, *, strategy: str = "explicit", algorithm: str | None = None, serves: str | None = None, **extra: object
    ) -> str:
        """Create a draft and return its object_id."""
        args: Json = {"created_by": ACTOR, "selection_strategy": strategy, **extra}
        if algorithm is not None:
            args["algorithm"] = algorithm
        return str(self.request("create_snapshot", serves=serves, **args).result["snapshot"]["object_id"])

    def add(
        self,
        snapshot_id: str,
        kind: object,
        path: str,
        content: bytes | None = None,
        *,
        text: bool | None = None,
        preview: str | None = None,
        serves: str | None = None,
    ) -> Checked:
        """The add_item call; content travels as text when it is UTF-8 (unless text=False), else as base64."""
        args: Json = {"snapshot_id": snapshot_id, "kind": kind, "path": path}
        if preview is not None:
            args["preview"] = preview
        if content is not None:
            args["content"] = as_content(content, text=text)
        return self.request("add_item", serves=serves, **args)

    def get(self, snapshot_id: str, *, serves: str | None = None) -> Json:
        """get_snapshot's result."""
        result: Json = self.request("get_snapshot", serves=serves, snapshot_id=snapshot_id).result
        return result

    def finalized(self, snapshot_id: str, *, serves: str | None = None) -> Json:
        """Finalize and return the result."""
        result: Json = self.request("finalize", serves=serves, snapshot_id=snapshot_id).result
        return result

    def with_items(
        self,
        items: list[tuple[object, str, bytes]],
        *,
        algorithm: str | None = None,
        finalize: bool = True,
        serves: str | None = None,
    ) -> str:
        """A snapshot holding (kind, path, content) items, finalized unless told otherwise."""
        snapshot_id = self.create(algorithm=algorithm, serves=serves)
        for kind, path, content in items:
            _ = self.add(snapshot_id, kind, path, content, serves=serves).result
        if finalize:
            self.finalized(snapshot_id, serves=serves)
        return snapshot_id

    def read_blob(self, blob: object, *, serves: str | None = None) -> Checked:
        """read_blob."""
        return self.request("read_blob", serves=serves, blob=blob)

    def hash(self, content: bytes, algorithm: str | None = None, *, serves: str | None = None) -> str:
        """hash_content's blob id, in hex."""
        args: Json = {"content": as_content(content)}
        if algorithm is not None:
            args["algorithm"] = algorithm
        return blob_hex(self.request("hash_content", serves=serves, **args).result["blob"])


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
    """A blob id in hex, from either accepted form (hex, or the tagged byte array the schemas already checked)."""
    if isinstance(value, str):
        return value
    if not isinstance(value, dict) or len(value) != 1:
        raise RuntimeError(f"a schema-checked blob id is neither hex nor tagged: {value!r}")
    ((_, numbers),) = value.items()
    return bytes(numbers).hex()


def actor_as_given(value: object) -> object:
    """created_by without its null fields: an option the caller did not give may come back absent or null (serde's way)."""
    if isinstance(value, dict):
        return {key: inner for key, inner in value.items() if inner is not None}
    return value


def preview_as_given(got: object, given: object) -> object:
    """The preview read back, taken as the one given when it is that one as display text.

    A preview is "text for quick display": it may come back with surrounding white space trimmed and CRLF as LF.
    Anything else is returned as it came, to be compared.
    """
    if isinstance(got, str) and isinstance(given, str) and got == given.replace("\r\n", "\n").strip(WHITE_SPACE):
        return given
    return got


def previews_as_given(got: list[tuple[Any, ...]], given: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """(kind, path, preview, blob) layers read back, each preview as given when it is that one as display text."""
    return [
        (kind, path, preview_as_given(preview, given[i][2]) if i < len(given) else preview, blob)
        for i, (kind, path, preview, blob) in enumerate(got)
    ]


def items_of(result: Json) -> list[Json]:
    """The items of a snapshot result (absent when empty, as the origin does)."""
    items: list[Json] = result["snapshot"].get("items", [])
    return items


def item_blob(item: Json) -> str | None:
    """An item's blob in hex, or None when it has none (absent or null)."""
    value = item.get("blob")
    return None if value is None else blob_hex(value)
