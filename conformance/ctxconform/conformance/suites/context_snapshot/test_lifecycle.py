"""The lifecycle: a draft collects items, finalize creates the record, and the record never changes afterwards."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance._unique import unique_uuid
from ctxconform.conformance.suites.context_snapshot.client import (
    ACTOR,
    FINALIZED,
    HOLDS,
    NO_CHANGE,
    RECORD,
    Snapshots,
    as_content,
    content_bytes,
    item_blob,
    items_of,
    require,
)
from ctxconform.conformance.suites.context_snapshot.strategies import CONTENTS, KINDS

requirement = pytest.mark.requirement

UUID: Final = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
REFUSED: Final = "SNAPSHOT_FINALIZED"


def changes(snapshot_id: str) -> dict[str, tuple[str, dict[str, Any]]]:
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


@requirement(RECORD)
def test_a_new_snapshot_has_the_header_and_what_was_given(snapshots: Snapshots) -> None:
    """A new snapshot: a UUID object_id, object_type context_snapshot, created_at in UTC, the rest as given."""
    result = snapshots.call(
        "create_snapshot", created_by=ACTOR, selection_strategy="heuristic", summary="what the agent saw at start"
    ).result(RECORD)
    record = result["snapshot"]
    require(result["state"] == "draft", RECORD, f"a new snapshot is {result['state']}, not a draft")
    require(UUID.fullmatch(str(record["object_id"]).lower()), RECORD, f"object_id {record['object_id']!r} is not a UUID")
    require(record["object_type"] == "context_snapshot", RECORD, f"object_type is {record['object_type']!r}")
    require(datetime.fromisoformat(str(record["created_at"])).utcoffset() is not None, RECORD, "created_at")
    require(record["created_by"] == ACTOR, RECORD, f"created_by {ACTOR} came back as {record['created_by']}")
    require(record["selection_strategy"] == "heuristic", RECORD, f"selection_strategy is {record['selection_strategy']!r}")
    require(record.get("summary") == "what the agent saw at start", RECORD, f"summary is {record.get('summary')!r}")
    require(record.get("items", []) == [], RECORD, f"a new snapshot has items {record.get('items')}")
    read = snapshots.get(str(record["object_id"]))["snapshot"]
    for field in ("object_id", "object_type", "created_by", "selection_strategy", "summary"):
        require(read.get(field) == record.get(field), RECORD, f"{field} {record.get(field)!r} read back as {read.get(field)!r}")


@requirement(RECORD)
def test_created_by_without_display_name_and_no_summary(snapshots: Snapshots) -> None:
    """created_by without display_name reads back without one; a snapshot created without summary has none."""
    actor = {"kind": "human", "id": "reviewer-7"}
    snapshot_id = str(
        snapshots.call("create_snapshot", created_by=actor, selection_strategy="explicit").result()["snapshot"]["object_id"]
    )
    record = snapshots.get(snapshot_id)["snapshot"]
    require(record["created_by"] == actor, RECORD, f"created_by {actor} came back as {record['created_by']}")
    require(record.get("summary") is None, RECORD, f"a snapshot created without summary has summary {record.get('summary')!r}")


@requirement(RECORD)
def test_every_snapshot_gets_its_own_object_id(snapshots: Snapshots) -> None:
    """Five snapshots, five distinct object_ids, each readable by its id."""
    ids = [snapshots.create() for _ in range(5)]
    require(len(set(ids)) == 5, RECORD, f"object_ids repeat: {ids}")
    for snapshot_id in ids:
        got = snapshots.get(snapshot_id)["snapshot"]["object_id"]
        require(str(got).lower() == snapshot_id.lower(), RECORD, f"get_snapshot({snapshot_id}) answered {got}")


@requirement(RECORD)
@pytest.mark.parametrize("op", ["get_snapshot", "finalize", "add_item", "retain"])
def test_an_unknown_snapshot_is_not_found(snapshots: Snapshots, op: str) -> None:
    """A well-formed object_id that names no snapshot is SNAPSHOT_NOT_FOUND."""
    args: dict[str, Any] = {"snapshot_id": str(unique_uuid())}
    args |= {"add_item": {"kind": "snippet", "path": "p"}, "retain": {"strategy": "ref_anchoring"}}.get(op, {})
    snapshots.send(op, args).refused(RECORD, "SNAPSHOT_NOT_FOUND", *(("UNSUPPORTED_STRATEGY",) if op == "retain" else ()))


@requirement(FINALIZED)
def test_finalize_refuses_an_item_without_blob_and_the_snapshot_stays_a_draft(snapshots: Snapshots) -> None:
    """Finalizing with an item that has no blob is ITEM_WITHOUT_BLOB; once its content is set, finalize succeeds."""
    snapshot_id = snapshots.with_items([("file", "src/lib.rs", b"pub fn f() {}\n")], finalize=False)
    snapshots.add(snapshot_id, "url", "https://example.org/not-fetched-yet").result(FINALIZED)
    snapshots.call("finalize", snapshot_id=snapshot_id).refused(FINALIZED, "ITEM_WITHOUT_BLOB")
    require(snapshots.get(snapshot_id)["state"] == "draft", FINALIZED, "a refused finalize left the snapshot finalized")
    snapshots.call("set_item_content", snapshot_id=snapshot_id, index=1, content={"text": "<html/>"}).result(FINALIZED)
    result = snapshots.finalized(snapshot_id, FINALIZED)
    require(result["state"] == "finalized", FINALIZED, f"finalize answered state {result['state']!r}")
    unset = [i for i, item in enumerate(items_of(result)) if item_blob(item) is None]
    require(not unset, FINALIZED, f"items {unset} of a finalized snapshot have no blob")


@requirement(FINALIZED)
def test_removing_the_item_without_content_lets_finalize_succeed(snapshots: Snapshots) -> None:
    """A draft item without content can be removed instead; the rest finalizes."""
    snapshot_id = snapshots.with_items([("snippet", "kept", b"kept")], finalize=False)
    snapshots.add(snapshot_id, "command", "make").result(FINALIZED)
    snapshots.call("remove_item", snapshot_id=snapshot_id, index=1).result(FINALIZED)
    require(len(items_of(snapshots.finalized(snapshot_id, FINALIZED))) == 1, FINALIZED, "finalize changed the items")


@requirement(NO_CHANGE)
@pytest.mark.parametrize("change", list(changes("")))
def test_a_finalized_snapshot_refuses_every_change(snapshots: Snapshots, change: str) -> None:
    """add_item, set_item_content and remove_item on a finalized snapshot are SNAPSHOT_FINALIZED; it reads back unchanged."""
    snapshot_id = snapshots.with_items([("file", "a.txt", b"a\n"), ("snippet", "b", b"b")])
    before = snapshots.get(snapshot_id)
    op, args = changes(snapshot_id)[change]
    snapshots.send(op, args).refused(NO_CHANGE, REFUSED)
    require(snapshots.get(snapshot_id) == before, NO_CHANGE, f"a refused {op} changed the finalized snapshot")


@requirement(NO_CHANGE)
def test_finalizing_again_changes_nothing(snapshots: Snapshots) -> None:
    """Finalizing a finalized snapshot is SNAPSHOT_FINALIZED, or answers the same snapshot; either way nothing changes."""
    snapshot_id = snapshots.with_items([("snippet", "s", b"s")])
    before = snapshots.get(snapshot_id)
    outcome = snapshots.call("finalize", snapshot_id=snapshot_id)
    if outcome.ok:
        require(outcome.result(NO_CHANGE) == before, NO_CHANGE, "finalizing again answered another snapshot")
    else:
        outcome.refused(NO_CHANGE, REFUSED)
    require(snapshots.get(snapshot_id) == before, NO_CHANGE, "finalizing again changed the snapshot")


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
    snapshot_id = snapshots.with_items([("image", "i.png", b"\x89PNG"), ("url", "https://u", b"page")])
    before = snapshots.get(snapshot_id)
    for change, index, content, kind in attempts:
        op, args = changes(snapshot_id)[change]
        args = {**args, **({"index": index} if "index" in args else {"kind": kind})}
        args |= {"content": as_content(content)} if "content" in args else {}
        snapshots.call(op, **args).refused(NO_CHANGE, REFUSED, *(("ITEM_NOT_FOUND",) if index > 1 else ()))
    require(snapshots.get(snapshot_id) == before, NO_CHANGE, "refused changes altered the finalized snapshot")


@requirement(NO_CHANGE, HOLDS)
def test_snapshots_and_blobs_survive_a_restart(snapshots: Snapshots, implementation: Implementation) -> None:
    """After a restart a finalized snapshot reads back identical, its blobs give their content, and a draft goes on."""
    contents = [b"fn main() {}\n", bytes(range(256)), "\u2603 unicode snippet".encode()]
    finalized = snapshots.with_items(
        list(zip(["file", "image", "snippet"], ["src/main.rs", "s.png", "n"], contents, strict=True))
    )
    draft = snapshots.with_items([("command", "ls", b"src\n")], finalize=False)
    before, draft_before = snapshots.get(finalized), snapshots.get(draft)
    implementation.restart()
    require(snapshots.get(finalized) == before, NO_CHANGE, "a finalized snapshot read back differently after a restart")
    require(snapshots.get(draft) == draft_before, NO_CHANGE, "a draft read back differently after a restart")
    for item, content in zip(items_of(before), contents, strict=True):
        back = content_bytes(snapshots.read_blob(item_blob(item)).result(HOLDS)["content"])
        require(back == content, HOLDS, f"after a restart blob {item_blob(item)} gives other bytes")
    snapshots.add(draft, "snippet", "after restart", b"more").result(NO_CHANGE)
    snapshots.finalized(draft, NO_CHANGE)
    snapshots.send("remove_item", {"snapshot_id": finalized, "index": 0}).refused(NO_CHANGE, REFUSED)
