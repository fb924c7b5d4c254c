"""The lifecycle: a draft collects items, finalize creates the record, and the record never changes afterwards."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance.suites.context_snapshot import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.context_snapshot.client import (
    ACTOR,
    Snapshots,
    actor_as_given,
    as_content,
    content_bytes,
    item_blob,
    items_of,
)
from ctxconform.conformance.suites.context_snapshot.strategies import CONTENTS, KINDS
from ctxconform.conformance.testing import Implementation, check, check_equal, requirement, unique_uuid

UUID: Final = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
REFUSED: Final = "SNAPSHOT_FINALIZED"
RECORD: Final = R.STRUCTS_CONTEXT_SNAPSHOT
NO_CHANGE: Final = R.DEFINITION_NO_CHANGE_AFTER_CREATION
FINALIZED: Final = R.ITEMS_BLOB_SET_WHEN_FINALIZED
Json = dict[str, Any]


def changes(snapshot_id: str) -> dict[str, tuple[str, Json]]:
    """Every operation that would change a snapshot, with arguments that a draft would accept."""
    return {
        "add-item-with-content": (
            "add_item",
            {"snapshot_id": snapshot_id, "kind": "snippet", "path": "late", "content": {"text": "late"}},
        ),
        "add-item-without-content": ("add_item", {"snapshot_id": snapshot_id, "kind": "url", "path": "https://late.example"}),
        "set-item-content": ("set_item_content", {"snapshot_id": snapshot_id, "index": 0, "content": {"text": "rewritten"}}),
        "remove-item": ("remove_item", {"snapshot_id": snapshot_id, "index": 0}),
        "remove-last-item": ("remove_item", {"snapshot_id": snapshot_id, "index": 1}),
    }


def is_utc(timestamp: object) -> bool:
    """Whether `timestamp` is an ISO 8601 date-time with an offset (RFC 3339 allows a lower-case t and z)."""
    try:
        return datetime.fromisoformat(str(timestamp).upper()).utcoffset() is not None
    except ValueError:
        return False


@requirement(RECORD)
def test_a_new_snapshot_has_the_header_and_what_was_given(snapshots: Snapshots) -> None:
    """A new snapshot: a UUID object_id, object_type context_snapshot, created_at in UTC, the rest as given."""
    summary = "what the agent saw at start"
    created = snapshots.request("create_snapshot", created_by=ACTOR, selection_strategy="heuristic", summary=summary)
    result = created.result
    record = result["snapshot"]
    check_equal(RECORD, result["state"], "draft", "the state of a new snapshot")
    check(RECORD, bool(UUID.fullmatch(str(record["object_id"]).lower())), "object_id is not a UUID", received=record)
    check_equal(RECORD, record["object_type"], "context_snapshot", "object_type")
    check(RECORD, is_utc(record["created_at"]), "created_at is not a UTC timestamp", received=record["created_at"])
    given_fields = {"created_by": ACTOR, "selection_strategy": "heuristic", "summary": summary, "items": []}
    got = {field: record.get(field, [] if field == "items" else None) for field in given_fields}
    got["created_by"] = actor_as_given(got["created_by"])  # the origin writes an absent option as null
    check_equal(RECORD, got, given_fields, "the fields of a new snapshot", sent=created.sent)
    read = snapshots.get(str(record["object_id"]))["snapshot"]
    shown = ("object_id", "object_type", "created_by", "selection_strategy", "summary")
    check_equal(RECORD, {f: read.get(f) for f in shown}, {f: record.get(f) for f in shown}, "the snapshot read back")


@requirement(RECORD)
def test_created_by_without_display_name_and_no_summary(snapshots: Snapshots) -> None:
    """created_by without display_name reads back without one (absent or null); a snapshot created without summary has none."""
    actor = {"kind": "human", "id": "reviewer-7"}
    created = snapshots.request("create_snapshot", created_by=actor, selection_strategy="explicit").result
    record = snapshots.get(str(created["snapshot"]["object_id"]))["snapshot"]
    check_equal(RECORD, actor_as_given(record["created_by"]), actor, "created_by without display_name read back")
    check_equal(RECORD, record.get("summary"), None, "the summary of a snapshot created without one")


@requirement(RECORD)
def test_every_snapshot_gets_its_own_object_id(snapshots: Snapshots) -> None:
    """Five snapshots, five distinct object_ids, each readable by its id."""
    ids = [snapshots.create() for _ in range(5)]
    check(RECORD, len(set(ids)) == len(ids), "object_ids repeat", received=ids)
    for snapshot_id in ids:
        got = snapshots.get(snapshot_id)["snapshot"]["object_id"]
        check_equal(RECORD, str(got).lower(), snapshot_id.lower(), f"the object_id get_snapshot({snapshot_id}) answered")


@requirement(RECORD)
@pytest.mark.parametrize("op", ["get_snapshot", "finalize", "add_item", "retain"])
def test_an_unknown_snapshot_is_not_found(snapshots: Snapshots, op: str) -> None:
    """A well-formed object_id that names no snapshot is SNAPSHOT_NOT_FOUND."""
    args: Json = {"snapshot_id": str(unique_uuid())}
    args |= {"add_item": {"kind": "snippet", "path": "p"}, "retain": {"strategy": "ref_anchoring"}}.get(op, {})
    codes = ("SNAPSHOT_NOT_FOUND", *(("UNSUPPORTED_STRATEGY",) if op == "retain" else ()))
    snapshots.send(op, args).refused(RECORD, *codes)


@requirement(FINALIZED)
def test_finalize_refuses_an_item_without_blob_and_the_snapshot_stays_a_draft(snapshots: Snapshots) -> None:
    """Finalizing with an item that has no blob is ITEM_WITHOUT_BLOB; once its content is set, finalize succeeds."""
    snapshot_id = snapshots.with_items([("file", "src/lib.rs", b"pub fn f() {}\n")], finalize=False)
    _ = snapshots.add(snapshot_id, "command", "cargo test").result
    snapshots.request("finalize", serves=FINALIZED, snapshot_id=snapshot_id).refused(FINALIZED, "ITEM_WITHOUT_BLOB")
    check_equal(FINALIZED, snapshots.get(snapshot_id)["state"], "draft", "the state after a refused finalize")
    output = {"text": "test result: ok.\n"}
    _ = snapshots.request("set_item_content", snapshot_id=snapshot_id, index=1, content=output).result
    result = snapshots.finalized(snapshot_id, serves=FINALIZED)
    unset = [i for i, item in enumerate(items_of(result)) if item_blob(item) is None]
    check_equal(FINALIZED, unset, [], "the items of the finalized snapshot that have no blob")


@requirement(FINALIZED)
def test_removing_the_item_without_content_lets_finalize_succeed(snapshots: Snapshots) -> None:
    """A draft item without content can be removed instead; the rest finalizes."""
    snapshot_id = snapshots.with_items([("snippet", "kept", b"kept")], finalize=False)
    _ = snapshots.add(snapshot_id, "command", "make").result
    _ = snapshots.request("remove_item", snapshot_id=snapshot_id, index=1).result
    result = snapshots.finalized(snapshot_id, serves=FINALIZED)
    check_equal(FINALIZED, [i.get("path") for i in items_of(result)], ["kept"], "the items finalize answered")


@requirement(NO_CHANGE)
@pytest.mark.parametrize("change", list(changes("")))
def test_a_finalized_snapshot_refuses_every_change(snapshots: Snapshots, change: str) -> None:
    """add_item, set_item_content and remove_item on a finalized snapshot are SNAPSHOT_FINALIZED; it reads back unchanged."""
    snapshot_id = snapshots.with_items([("file", "a.txt", b"a\n"), ("snippet", "b", b"b")])
    before = snapshots.get(snapshot_id)
    op, args = changes(snapshot_id)[change]
    snapshots.send(op, args).refused(NO_CHANGE, REFUSED)
    check_equal(NO_CHANGE, snapshots.get(snapshot_id), before, f"the finalized snapshot after a refused {op}")


@requirement(NO_CHANGE)
def test_finalizing_again_changes_nothing(snapshots: Snapshots) -> None:
    """Finalizing a finalized snapshot is SNAPSHOT_FINALIZED, or answers the same snapshot; either way nothing changes."""
    snapshot_id = snapshots.with_items([("snippet", "s", b"s")])
    before = snapshots.get(snapshot_id)
    again = snapshots.request("finalize", serves=NO_CHANGE, snapshot_id=snapshot_id)
    if again.ok:
        check_equal(NO_CHANGE, again.result, before, "what finalizing again answered")
    else:
        again.refused(NO_CHANGE, REFUSED)
    check_equal(NO_CHANGE, snapshots.get(snapshot_id), before, "the snapshot after finalizing again")


@requirement(NO_CHANGE)
@given(
    attempts=st.lists(
        st.tuples(st.sampled_from(list(changes(""))), st.integers(0, 3), CONTENTS, st.sampled_from(KINDS)), max_size=6
    )
)
def test_any_sequence_of_changes_leaves_a_finalized_snapshot_as_it_was(
    snapshots: Snapshots, attempts: list[tuple[str, int, bytes, str]]
) -> None:
    """Generated sequences of changes to a finalized snapshot are each refused; the snapshot never changes."""
    snapshot_id = snapshots.with_items([("image", "i.png", b"\x89PNG"), ("snippet", "notes", b"page")])
    before = snapshots.get(snapshot_id)
    for change, index, content, kind in attempts:
        op, args = changes(snapshot_id)[change]
        args = {**args, **({"index": index} if "index" in args else {"kind": kind})}
        args |= {"content": as_content(content)} if "content" in args else {}
        codes = (REFUSED, *(("ITEM_NOT_FOUND",) if index > 1 else ()))
        snapshots.request(op, serves=NO_CHANGE, **args).refused(NO_CHANGE, *codes)
    check_equal(NO_CHANGE, snapshots.get(snapshot_id), before, "the finalized snapshot after refused changes")


@requirement(NO_CHANGE, R.ITEMS_BLOB_HOLDS_FULL_CONTENT)
def test_snapshots_and_blobs_survive_a_restart(snapshots: Snapshots, implementation: Implementation) -> None:
    """After a restart a finalized snapshot reads back identical, its blobs give their content, and a draft goes on."""
    contents = [b"fn main() {}\n", bytes(range(256)), "\u2603 unicode snippet".encode()]
    finalized = snapshots.with_items(
        list(zip(["file", "image", "snippet"], ["src/main.rs", "s.png", "n"], contents, strict=True))
    )
    draft = snapshots.with_items([("command", "ls", b"src\n")], finalize=False)
    before, draft_before = snapshots.get(finalized), snapshots.get(draft)
    implementation.restart()
    check_equal(NO_CHANGE, snapshots.get(finalized, serves=NO_CHANGE), before, "a finalized snapshot after a restart")
    check_equal(NO_CHANGE, snapshots.get(draft, serves=NO_CHANGE), draft_before, "a draft after a restart")
    for item, content in zip(items_of(before), contents, strict=True):
        back = snapshots.read_blob(item_blob(item)).expect(R.ITEMS_BLOB_HOLDS_FULL_CONTENT)["content"]
        check(
            R.ITEMS_BLOB_HOLDS_FULL_CONTENT,
            content_bytes(back) == content,
            "after a restart a blob gives other bytes than its item's content",
            sent=item_blob(item),
        )
    _ = snapshots.add(draft, "snippet", "after restart", b"more", serves=NO_CHANGE).result
    _ = snapshots.finalized(draft, serves=NO_CHANGE)
    snapshots.send("remove_item", {"snapshot_id": finalized, "index": 0}).refused(NO_CHANGE, REFUSED)
