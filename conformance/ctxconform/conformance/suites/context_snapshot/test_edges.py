"""Inputs at the edges: hostile item paths, wrong types in every typed position, limits met exactly, degenerate text.

What the page lets through is an opaque name or text kept exactly: a path is a locator, never a file the implementation
opens, so dot segments climb nowhere and two paths that differ only in case, normalization or a trailing NUL are two
items. A limit of the kit (path 4096, summary 65,536, created_by fields and open kind names 256 characters) counts
characters: at and under it the value is kept exactly, over it refused or kept exactly.
"""

from __future__ import annotations

import hashlib
import secrets
from pathlib import Path
from typing import Any, Final

import pytest

from ctxconform.conformance.suites.context_snapshot import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.context_snapshot.client import (
    ACTOR,
    SPEC,
    Snapshots,
    content_bytes,
    item_blob,
    items_of,
)
from ctxconform.conformance.suites.context_snapshot.repository import Repository
from ctxconform.conformance.suites.context_snapshot.strategies import WHITE_SPACE
from ctxconform.conformance.suites.context_snapshot.test_bad_input import draft_with_item, refused_unchanged
from ctxconform.conformance.testing import (
    AWKWARD_TEXTS,
    DEGENERATE_TEXTS,
    HOSTILE_NAMES,
    NAME_PAIRS,
    WRONG_TYPES,
    Implementation,
    check,
    check_equal,
    edge,
    needs_feature,
    requirement,
    second_instance,
    sized_text,
    unique_hex,
)

Json = dict[str, Any]
# Absolute paths are sent as unique ones under /tmp, so that an implementation that opens them harms nothing.
PATHS: Final = [name for name in HOSTILE_NAMES if name.strip(WHITE_SPACE) and not name.startswith(("/", "C:"))]
CHUNK: Final = 12
CHUNKS: Final = [PATHS[i : i + CHUNK] for i in range(0, len(PATHS), CHUNK)]
FILLS: Final = ("a", "\u00e9", "\U0001f600")
LARGE: Final = 2**64
SURROGATE_FREE: Final = [t for t in AWKWARD_TEXTS if all(not 0xD800 <= ord(c) < 0xE000 for c in t)]


def git_blob_id(content: bytes) -> str:
    """Git's SHA-1 object id of a blob of `content`."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content, usedforsecurity=False).hexdigest()


def layers(item: Json) -> tuple[object, object]:
    """An item's kind and path."""
    return item.get("kind"), item.get("path")


def added_with_content(snapshots: Snapshots, draft: str, paths: list[str], wanted: str) -> list[str]:
    """Add one snippet per path (each add serving `wanted`), each with its own content; the blob each must read back with.

    That blob is the one hash_content gives the item's content: it tells the items apart by what they hold. Whether it
    is Git's id is items/blob-git-hash, which these tests of locators leave to the hashing tests.
    """
    blobs = []
    for path in paths:
        content = f"content of {path!r}".encode()
        blobs.append(snapshots.hash(content))
        _ = snapshots.add(draft, "snippet", path, content, serves=wanted).expect(wanted)
    return blobs


def check_read_back(snapshots: Snapshots, draft: str, paths: list[str], blobs: list[str], *, apart: str, exact: str) -> None:
    """The draft's items: one per path, each with its own content, in order (`apart`); then each path exactly (`exact`)."""
    got = items_of(snapshots.get(draft, serves=apart))
    check_equal(apart, [item_blob(item) for item in got], blobs, "the items' blobs (each its own content), in order", sent=paths)
    check_equal(exact, [layers(item) for item in got], [("snippet", p) for p in paths], "the items' kinds and paths", sent=paths)


@edge("identifiers")
@requirement(R.ITEMS_PATH_LOCATOR, R.STRUCTS_CONTEXT_ITEM)
@pytest.mark.parametrize("chunk", range(len(CHUNKS)))
def test_hostile_paths_are_opaque_locators(snapshots: Snapshots, chunk: int) -> None:
    """Dot segments, separators, map-key names, control characters and case variants are paths kept exactly, each apart.

    Each path is accepted and read back exactly (items/path-locator); each is an item of its own, in order
    (structs/context-item), which is checked first: an item lost or merged with another has no path to compare.
    """
    wanted, paths = R.ITEMS_PATH_LOCATOR, CHUNKS[chunk]
    draft = snapshots.create()
    blobs = added_with_content(snapshots, draft, paths, wanted)
    check_read_back(snapshots, draft, paths, blobs, apart=R.STRUCTS_CONTEXT_ITEM, exact=wanted)


@edge("identifiers")
@requirement(R.STRUCTS_CONTEXT_ITEM, R.ITEMS_PATH_LOCATOR)
@pytest.mark.parametrize("pair", NAME_PAIRS, ids=[f"pair{i}" for i in range(len(NAME_PAIRS))])
def test_confusable_paths_are_two_items(snapshots: Snapshots, pair: tuple[str, str]) -> None:
    """Two paths a map could confuse (parent and child, case, normalization, a NUL) are two items, in order, either way.

    Two items, each with its own content, in order, is structs/context-item; each path accepted and read back exactly
    is items/path-locator, checked after.
    """
    for paths in (list(pair), list(pair[::-1])):
        draft = snapshots.create()
        blobs = added_with_content(snapshots, draft, paths, R.ITEMS_PATH_LOCATOR)
        check_read_back(snapshots, draft, paths, blobs, apart=R.STRUCTS_CONTEXT_ITEM, exact=R.ITEMS_PATH_LOCATOR)


def escapes(name: str) -> list[str]:
    """Paths that climb out of any folder they are joined to, or name a file elsewhere."""
    return [*("../" * depth + name for depth in range(1, 4)), "..\\" + name, f"/tmp/{name}"]  # noqa: S108 - a locator


def outside(state_dir: Path, name: str) -> list[Path]:
    """Where a file called `name` would appear if a path climbing out of the state were opened."""
    folders = [state_dir.resolve(), *state_dir.resolve().parents][1:3]
    return [folder / name for folder in [*folders, Path("/tmp")]]  # noqa: S108 - only looked at


@edge("identifiers")
@requirement(R.ITEMS_PATH_LOCATOR)
def test_climbing_paths_open_nothing_outside_the_state(snapshots: Snapshots, implementation: Implementation) -> None:
    """A path of ../ segments or an absolute path is a locator: it is kept exactly and no file appears outside the state."""
    wanted, name = R.ITEMS_PATH_LOCATOR, f"ctxconform-{secrets.token_hex(16)}"  # never seeded: no earlier run made it
    there = {path for path in outside(implementation.state_dir, name) if path.exists()}
    draft = snapshots.create()
    blobs = added_with_content(snapshots, draft, escapes(name), wanted)
    check_read_back(snapshots, draft, escapes(name), blobs, apart=wanted, exact=wanted)
    appeared = [path for path in outside(implementation.state_dir, name) if path.exists() and path not in there]
    shown = [str(path) for path in appeared]
    for path in appeared:  # the suite's own random name: nothing else is called so
        if path.is_file():
            path.unlink()
    check(
        wanted,
        not appeared,
        "a path was opened as a file outside the state",
        sent=escapes(name),
        received=shown,
    )


def item_positions(draft: str) -> dict[str, tuple[Json, tuple[type, ...]]]:
    """add_item arguments with one position to fill, and the types that position may take (left out of the wrong ones)."""
    base: Json = {"snapshot_id": draft, "kind": "snippet", "path": "p", "content": {"text": "x"}}
    return {
        "kind": (base, ()),
        "path": (base, (str,)),
        "preview": ({**base, "preview": None}, (str, type(None))),
        "content": (base, (type(None),)),
        "content.text": ({**base, "content": {"text": None}}, (str,)),
        "content.base64": ({**base, "content": {"base64": None}}, (str,)),
    }


def create_positions() -> dict[str, tuple[Json, tuple[type, ...]]]:
    """create_snapshot arguments with one position to fill, and the types that position may take."""
    base: Json = {"created_by": dict(ACTOR), "selection_strategy": "explicit"}
    return {
        "created_by": (base, ()),
        "created_by.kind": (base, (str,)),
        "created_by.id": (base, (str,)),
        "created_by.display_name": (base, (str, type(None))),
        "selection_strategy": (base, ()),
        "summary": ({**base, "summary": None}, (str, type(None))),
        "algorithm": ({**base, "algorithm": None}, (type(None),)),
    }


def wrong_for(allowed: tuple[type, ...]) -> list[object]:
    """The kit's wrong types and a very large number, less those of the `allowed` types (a bool is never an int)."""
    values = [*WRONG_TYPES, LARGE]
    return [v for v in values if not isinstance(v, allowed) or (isinstance(v, bool) and bool not in allowed)]


def filled(args: Json, position: str, value: object) -> Json:
    """`args` with `value` at the dotted `position`."""
    head, _, rest = position.partition(".")
    return {**args, head: filled(dict(args[head]), rest, value) if rest else value}


@edge("wrong-types")
@requirement(R.ITEMS_THREE_LAYERS)
@pytest.mark.parametrize("position", list(item_positions("")))
def test_a_wrong_type_in_an_item_is_refused_and_changes_nothing(snapshots: Snapshots, position: str) -> None:
    """add_item with null, a number, a boolean, a list or an object where text or content goes: refused, draft unchanged."""
    draft, before = draft_with_item(snapshots)
    args, allowed = item_positions(draft)[position]
    for value in wrong_for(allowed):
        refused_unchanged(snapshots, "add_item", filled(args, position, value), draft, before, "INVALID_REQUEST")


def create_owner(position: str) -> str:
    """The requirement a wrong type at a create_snapshot position breaks: a strategy is the enum's, the rest the record's."""
    return R.ENUMS_SELECTION_STRATEGY if position == "selection_strategy" else R.STRUCTS_CONTEXT_SNAPSHOT


@edge("wrong-types")
@pytest.mark.parametrize(
    "position", [pytest.param(position, marks=requirement(create_owner(position))) for position in create_positions()]
)
def test_a_wrong_type_at_create_is_refused(snapshots: Snapshots, position: str) -> None:
    """create_snapshot with a value of the wrong JSON type in any position is INVALID_REQUEST.

    A selection_strategy that is not a string is a value other than explicit and heuristic: the enum refuses it.
    """
    wanted, (args, allowed) = create_owner(position), create_positions()[position]
    for value in wrong_for(allowed):
        sent = filled(args, position, value)
        snapshots.send("create_snapshot", sent, serves=wanted).refused(wanted, "INVALID_REQUEST")


@edge("wrong-types")
@requirement(R.ITEMS_THREE_LAYERS)
def test_a_wrong_type_of_index_is_refused_and_changes_nothing(snapshots: Snapshots) -> None:
    """set_item_content and remove_item with an index that is not a non-negative integer are refused; the draft is unchanged."""
    draft, before = draft_with_item(snapshots)
    for value in wrong_for((int,)):
        for op, extra in (("set_item_content", {"content": {"text": "y"}}), ("remove_item", {})):
            sent = {"snapshot_id": draft, "index": value, **extra}
            refused_unchanged(snapshots, op, sent, draft, before, "INVALID_REQUEST")


def kept_or_refused(snapshots: Snapshots, wanted: str, op: str, sent: Json, *, over: bool) -> Json | None:
    """The call's result when it must be (or was) accepted; None after a refusal that is allowed over the limit."""
    answered = snapshots.send(op, sent, serves=wanted)
    if not over:
        result: Json = answered.expect(wanted)
        return result
    if not answered.ok:
        answered.refused(wanted, "INVALID_REQUEST")
        return None
    return dict(answered.result)


@edge("boundaries")
@requirement(R.STRUCTS_CONTEXT_SNAPSHOT)
@pytest.mark.parametrize("size", [65535, 65536, 65537])
def test_a_summary_at_the_limit_is_kept_exactly(snapshots: Snapshots, size: int) -> None:
    """A summary of 65,535 or 65,536 characters (any script) is kept exactly; one of 65,537 is refused or kept exactly."""
    wanted = R.STRUCTS_CONTEXT_SNAPSHOT
    for fill in FILLS:
        summary = sized_text(size, fill=fill)
        sent = {"created_by": ACTOR, "selection_strategy": "explicit", "summary": summary}
        result = kept_or_refused(snapshots, wanted, "create_snapshot", sent, over=size > 65536)
        if result is not None:
            got = snapshots.get(str(result["snapshot"]["object_id"]), serves=wanted)["snapshot"].get("summary")
            check(wanted, got == summary, f"a summary of {size} {fill!r} read back", sent=size, received=got)


@edge("boundaries")
@requirement(R.STRUCTS_CONTEXT_SNAPSHOT)
@pytest.mark.parametrize("size", [255, 256, 257])
@pytest.mark.parametrize("field", ["kind", "id", "display_name"])
def test_a_created_by_field_at_the_limit_is_kept_exactly(snapshots: Snapshots, field: str, size: int) -> None:
    """created_by's kind, id and display_name of 255 or 256 characters are kept exactly; of 257 refused or kept exactly."""
    wanted = R.STRUCTS_CONTEXT_SNAPSHOT
    for fill in FILLS:
        actor = {**ACTOR, field: sized_text(size, fill=fill)}
        result = kept_or_refused(
            snapshots, wanted, "create_snapshot", {"created_by": actor, "selection_strategy": "heuristic"}, over=size > 256
        )
        if result is not None:
            got = snapshots.get(str(result["snapshot"]["object_id"]), serves=wanted)["snapshot"]["created_by"].get(field)
            check(wanted, got == actor[field], f"a {field} of {size} {fill!r} read back", sent=size, received=got)


@edge("boundaries")
@pytest.mark.parametrize("size", [4095, 4096, 4097])
@pytest.mark.parametrize(
    ("position", "limit"),
    [
        pytest.param("path", 4096, marks=requirement(R.ITEMS_PATH_LOCATOR)),
        pytest.param("kind", 256, marks=requirement(R.ITEMS_THREE_LAYERS)),
    ],
)
def test_an_item_field_at_the_limit_is_kept_exactly(snapshots: Snapshots, position: str, limit: int, size: int) -> None:
    """A path of 4096 characters or an open kind name of 256 (any script) is kept exactly; one more is refused or kept exactly."""
    wanted = R.ITEMS_PATH_LOCATOR if position == "path" else R.ITEMS_THREE_LAYERS
    if position == "kind":
        needs_feature(SPEC, "other_kind")
    size = size - 4096 + limit
    for fill in FILLS:
        value = sized_text(size, fill=fill)
        draft = snapshots.create(serves=wanted)
        item: Json = {"kind": "snippet", "path": value} if position == "path" else {"kind": {"other": value}, "path": "p"}
        sent = {"snapshot_id": draft, **item, "content": {"text": "x"}}
        if kept_or_refused(snapshots, wanted, "add_item", sent, over=size > limit) is not None:
            got = [layers(i) for i in items_of(snapshots.get(draft, serves=wanted))]
            check(wanted, got == [(item["kind"], item["path"])], f"a {position} of {size} {fill!r}", received=str(got)[:200])


@edge("degenerate")
@requirement(R.ITEMS_BLOB_GIT_HASH, R.ITEMS_BLOB_SET_WHEN_FINALIZED)
@pytest.mark.parametrize("text", [*DEGENERATE_TEXTS, *SURROGATE_FREE], ids=repr)
def test_degenerate_text_content_is_a_blob_of_its_exact_bytes(snapshots: Snapshots, text: str) -> None:
    """Empty, blank, newline-only, CR, CRLF and BOM text is hashed as its exact UTF-8 bytes; its item finalizes."""
    wanted, blob = R.ITEMS_BLOB_GIT_HASH, git_blob_id(text.encode())
    draft = snapshots.create(serves=wanted)
    added = snapshots.add(draft, "snippet", "degenerate", text.encode(), serves=wanted).expect(wanted)
    check_equal(wanted, item_blob(added["item"]), blob, "the blob of the content", sent=text)
    check_equal(wanted, snapshots.hash(text.encode(), serves=wanted), blob, "hash_content of the content", sent=text)
    finalized = snapshots.send("finalize", {"snapshot_id": draft}, serves=R.ITEMS_BLOB_SET_WHEN_FINALIZED)
    _ = finalized.expect(R.ITEMS_BLOB_SET_WHEN_FINALIZED)
    check_equal(R.ITEMS_BLOB_SET_WHEN_FINALIZED, finalized.result["state"], "finalized", "the state", sent=text)


@edge("degenerate")
@requirement(R.STRUCTS_CONTEXT_SNAPSHOT)
@pytest.mark.parametrize("summary", DEGENERATE_TEXTS, ids=repr)
def test_a_snapshot_of_no_items_and_a_blank_summary_reads_back(snapshots: Snapshots, summary: str) -> None:
    """A snapshot with no items and an empty or blank summary finalizes; it reads back with no items and that summary."""
    wanted = R.STRUCTS_CONTEXT_SNAPSHOT
    draft = snapshots.create(summary=summary, serves=wanted)
    finalized = snapshots.finalized(draft, serves=wanted)
    for result in (finalized, snapshots.get(draft, serves=wanted)):
        got = (items_of(result), result["snapshot"].get("summary"), result["state"])
        check_equal(wanted, got, ([], summary, "finalized"), "the empty snapshot read back", sent=summary)


@edge("two-writers")
@requirement(R.ITEMS_BLOB_HOLDS_FULL_CONTENT)
def test_two_instances_store_every_blob_in_the_repository(
    snapshots: Snapshots, implementation: Implementation, sha1: Repository
) -> None:
    """Two instances on one state add items in turn: the repository holds every blob, and each reads the other's."""
    wanted = R.ITEMS_BLOB_HOLDS_FULL_CONTENT
    with second_instance(implementation, SPEC) as other:
        writers = (snapshots, Snapshots(other))
        drafts = [writer.create(serves=wanted) for writer in writers]
        contents = [f"writer {i % 2}, item {i}: {unique_hex()}".encode() for i in range(8)]
        blobs = []
        for i, content in enumerate(contents):
            added = writers[i % 2].add(drafts[i % 2], "snippet", f"item {i}", content, serves=wanted).expect(wanted)
            blobs.append(str(item_blob(added["item"])))
        # The blob each item answered (whether it is Git's id of the content is items/blob-git-hash, tested elsewhere).
        for i, (content, blob) in enumerate(zip(contents, blobs, strict=True)):
            check_equal(wanted, sha1.blob(blob), content, f"the repository's blob {blob} of item {i}", sent=content)
            read = writers[(i + 1) % 2].read_blob(blob, serves=wanted).expect(wanted)
            check_equal(wanted, content_bytes(read["content"]), content, f"item {i} read by the other instance")
