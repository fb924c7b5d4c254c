"""Reading each operation's arguments into typed requests before any work: malformed input is refused, never a crash."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Final, NoReturn

from ctxconform.reference.context_snapshot._model import KINDS, PREVIEW_LIMIT, SELECTION_STRATEGIES, Actor, Item, Kind
from ctxconform.reference.context_snapshot._objects import ALGORITHMS, Algorithm, ObjectId
from ctxconform.reference.context_snapshot._retention import STRATEGIES
from ctxconform.reference.exceptions import SpecError

__all__ = [
    "MAX_CONTENT_BYTES",
    "MAX_PATH",
    "MAX_SUMMARY",
    "WHITE_SPACE",
    "ItemAt",
    "NewContent",
    "NewItem",
    "NewSnapshot",
    "Retention",
    "blob_request",
    "content_request",
    "create_request",
    "hash_request",
    "item_at_request",
    "item_request",
    "retain_request",
    "snapshot_request",
]

MAX_CONTENT_BYTES: Final = 16 * 1024 * 1024
MAX_PATH: Final = 4096
MAX_SUMMARY: Final = 65536
_MAX_NAME: Final = 256
# Rust's char::is_whitespace (the origin trims with it): what a blank path is made of.
WHITE_SPACE: Final = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_UUID: Final = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_BASE64: Final = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


@dataclass(frozen=True)
class NewSnapshot:
    """create_snapshot: who creates it, how its items are selected, a summary and the object format."""

    created_by: Actor
    selection_strategy: str
    summary: str | None
    algorithm: Algorithm


@dataclass(frozen=True)
class NewItem:
    """add_item: the item to append (without its blob) and its content, if known yet."""

    snapshot_id: str
    item: Item
    content: bytes | None


@dataclass(frozen=True)
class ItemAt:
    """remove_item: one item of a snapshot by position."""

    snapshot_id: str
    index: int


@dataclass(frozen=True)
class NewContent:
    """set_item_content: new content for one item."""

    snapshot_id: str
    index: int
    content: bytes


@dataclass(frozen=True)
class Retention:
    """retain: a snapshot and the strategy that keeps its blobs."""

    snapshot_id: str
    strategy: str


def create_request(args: object) -> NewSnapshot:
    """Read create_snapshot's arguments."""
    fields = _fields(args, {"created_by", "selection_strategy"}, {"summary", "algorithm"})
    return NewSnapshot(
        _actor(fields["created_by"]),
        _choice(fields["selection_strategy"], "selection_strategy", SELECTION_STRATEGIES),
        _text(fields["summary"], "summary", MAX_SUMMARY, blank=True) if "summary" in fields else None,
        _algorithm(fields.get("algorithm", "sha1")),
    )


def item_request(args: object, white: Collection[str] = WHITE_SPACE, kept: int = PREVIEW_LIMIT - 1) -> NewItem:
    """Read add_item's arguments; a path of `white` characters only is blank; a long preview is cut to its first `kept`."""
    fields = _fields(args, {"snapshot_id", "kind", "path"}, {"content", "preview"})
    preview = _text(fields["preview"], "preview", None, blank=True)[:kept] if "preview" in fields else None
    item = Item(_kind(fields["kind"]), _text(fields["path"], "path", MAX_PATH, white=white), preview)
    content = _content(fields["content"]) if "content" in fields else None
    return NewItem(_snapshot_id(fields["snapshot_id"]), item, content)


def content_request(args: object) -> NewContent:
    """Read set_item_content's arguments."""
    fields = _fields(args, {"snapshot_id", "index", "content"})
    return NewContent(_snapshot_id(fields["snapshot_id"]), _index(fields["index"]), _content(fields["content"]))


def item_at_request(args: object) -> ItemAt:
    """Read remove_item's arguments."""
    fields = _fields(args, {"snapshot_id", "index"})
    return ItemAt(_snapshot_id(fields["snapshot_id"]), _index(fields["index"]))


def snapshot_request(args: object) -> str:
    """Read the snapshot_id of finalize and get_snapshot."""
    return _snapshot_id(_fields(args, {"snapshot_id"})["snapshot_id"])


def hash_request(args: object) -> tuple[bytes, Algorithm]:
    """Read hash_content's arguments."""
    fields = _fields(args, {"content"}, {"algorithm"})
    return _content(fields["content"]), _algorithm(fields.get("algorithm", "sha1"))


def blob_request(args: object) -> ObjectId:
    """Read read_blob's blob id, in hex or the tagged form."""
    try:
        return ObjectId.parse(_fields(args, {"blob"})["blob"])
    except ValueError as error:
        _refuse(str(error))


def retain_request(args: object) -> Retention:
    """Read retain's arguments."""
    fields = _fields(args, {"snapshot_id", "strategy"})
    return Retention(_snapshot_id(fields["snapshot_id"]), _choice(fields["strategy"], "strategy", STRATEGIES))


def _fields(
    args: object, required: Collection[str], optional: Collection[str] = (), name: str = "the arguments"
) -> dict[str, Any]:
    if not isinstance(args, dict):
        _refuse(f"{name} must be a JSON object")
    missing = sorted(set(required) - set(args))
    extra = sorted(set(args) - set(required) - set(optional))
    if missing or extra:
        shown = ", ".join(repr(key)[:60] for key in extra[:5])
        problems = [f"missing {', '.join(missing)}"] * bool(missing) + [f"unexpected {shown}"] * bool(extra)
        _refuse(f"{name}: {'; '.join(problems)}; the fields are {', '.join(sorted({*required, *optional}))}")
    return args


def _text(value: object, name: str, limit: int | None, *, blank: bool = False, white: Collection[str] = WHITE_SPACE) -> str:
    if not isinstance(value, str):
        _refuse(f"{name} must be a string")
    if limit is not None and len(value) > limit:
        _refuse(f"{name} has {len(value)} characters; at most {limit} are accepted")
    if not blank and all(c in white for c in value):
        _refuse(f"{name} must not be blank")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        _refuse(f"{name} is not valid Unicode text (it holds a lone surrogate)")
    return value


def _choice(value: object, name: str, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        _refuse(f"{name} must be one of {', '.join(choices)}")
    return value


def _algorithm(value: object) -> Algorithm:
    matching = [algorithm for algorithm in ALGORITHMS if algorithm == value]
    if not matching:
        _refuse(f"algorithm must be one of {', '.join(ALGORITHMS)}")
    return matching[0]


def _actor(value: object) -> Actor:
    fields = _fields(value, {"kind", "id"}, {"display_name"}, "created_by")
    return Actor(
        _text(fields["kind"], "created_by.kind", _MAX_NAME),
        _text(fields["id"], "created_by.id", _MAX_NAME),
        _text(fields["display_name"], "created_by.display_name", _MAX_NAME, blank=True) if "display_name" in fields else None,
    )


def _kind(value: object) -> Kind:
    if isinstance(value, dict) and set(value) == {"other"}:
        return Kind(_text(value["other"], "kind.other", _MAX_NAME), other=True)
    if not isinstance(value, str) or value not in KINDS:
        _refuse(f'kind must be one of {", ".join(KINDS)} or {{"other": name}}')
    return Kind(value)


def _snapshot_id(value: object) -> str:
    if not isinstance(value, str) or not _UUID.fullmatch(value):
        _refuse("snapshot_id must be a snapshot's object_id (a UUID)")
    return value.lower()


def _index(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        _refuse("index must be a non-negative integer")
    return value


def _content(value: object) -> bytes:
    if isinstance(value, dict) and set(value) == {"text"}:
        data = _text(value["text"], "content.text", MAX_CONTENT_BYTES, blank=True).encode("utf-8")
    elif isinstance(value, dict) and set(value) == {"base64"}:
        data = _decode(value["base64"])
    else:
        _refuse('content must be {"text": string} or {"base64": string}')
    if len(data) > MAX_CONTENT_BYTES:
        _refuse(f"content has {len(data)} bytes; at most {MAX_CONTENT_BYTES} are accepted")
    return data


def _decode(value: object) -> bytes:
    if not isinstance(value, str) or len(value) > 4 * -(-MAX_CONTENT_BYTES // 3) or not _BASE64.fullmatch(value):
        _refuse("content.base64 must be standard base64 with padding, of at most 16 MiB once decoded")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        _refuse("content.base64 is not valid base64")


def _refuse(message: str) -> NoReturn:
    raise SpecError("INVALID_REQUEST", message)
