"""Bad input: wrong types, missing fields, unknown ops, malformed ids and content, invalid-Unicode values.

Every one gets a spec error, never a crash, and leaves the snapshot it names as it was. What the page does not forbid
is not bad input: a field a request does not define, a null optional field and a value over the kit's limits may be
refused (INVALID_REQUEST, the snapshot unchanged) or accepted; accepted, the extra field is ignored, the null taken as
absent and the long value kept exactly (the origin reads documents so: unknown fields accepted, null as None).
"""

from __future__ import annotations

from typing import Any, Final

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ctxconform.conformance.suites.context_snapshot import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.context_snapshot.client import (
    ACTOR,
    OPERATIONS,
    Snapshots,
    blob_hex,
    content_bytes,
    item_blob,
    items_of,
)
from ctxconform.conformance.testing import Checked, check, check_equal, requirement, unique_uuid

# What each operation's answer must be: a refusal of malformed arguments, and a draft it leaves unchanged, are that.
SHAPES: Final = {op: operation.requirement for op, operation in OPERATIONS.table.items()}
HUGE: Final = "h" * 1_000_000
SURROGATES: Final = ("\ud800", "a\udc00b", "\ud83d")
ITEM_ARGS: Final = {"kind": "snippet", "path": "p", "content": {"text": "x"}}
X_BLOB: Final = "c1b0730e0133447badcfd47fd144e254807b06e1"  # the Git id of b"x" (`git hash-object` of it)
MALFORMED_IDS: Final = [
    "",
    "abc",
    "0" * 39,
    "0" * 41,
    "g" * 40,
    "0" * 63,
    " " + "0" * 40,
    "0" * 40 + "\n",
    123,
    None,
    [0] * 20,
    {"Sha1": [1] * 19},
    {"Sha1": [256] * 20},
    {"Sha1": [-1] * 20},
    {"Sha1": [True] * 20},
    {"Sha1": ["00"] * 20},
    {"Sha256": [0] * 20},
    {"sha1": [0] * 20},
    {"Sha1": [0] * 20, "Sha256": [0] * 32},
    {},
]


def create_cases() -> dict[str, object]:
    """Malformed create_snapshot arguments."""
    base: dict[str, Any] = {"created_by": ACTOR, "selection_strategy": "explicit"}
    return {
        "null": None,
        "list": [],
        "string": "create",
        "no-created-by": {"selection_strategy": "explicit"},
        "no-strategy": {"created_by": ACTOR},
        "created-by-string": {**base, "created_by": "agent:1"},
        "created-by-no-id": {**base, "created_by": {"kind": "agent"}},
        "created-by-id-number": {**base, "created_by": {"kind": "agent", "id": 7}},
        "summary-number": {**base, "summary": 3},
        "algorithm-md5": {**base, "algorithm": "md5"},
        "algorithm-upper": {**base, "algorithm": "SHA1"},
    }


def lenient_create_cases() -> dict[str, dict[str, Any]]:
    """create_snapshot arguments the page does not forbid: extra fields, null options, values over the kit's limits."""
    base: dict[str, Any] = {"created_by": ACTOR, "selection_strategy": "explicit"}
    return {
        "caller-sets-object-id": {**base, "object_id": str(unique_uuid())},
        "caller-sets-created-at": {**base, "created_at": "2026-01-01T00:00:00Z"},
        "created-by-extra": {**base, "created_by": {**ACTOR, "role": "x"}},
        "created-by-blank-kind": {**base, "created_by": {"kind": " ", "id": "a"}},
        "created-by-huge-id": {**base, "created_by": {"kind": "agent", "id": HUGE}},
        "summary-huge": {**base, "summary": HUGE},
        "summary-null": {**base, "summary": None},
        "display-name-null": {**base, "created_by": {**ACTOR, "display_name": None}},
    }


def lenient_item_cases(draft: str) -> dict[str, dict[str, Any]]:
    """add_item arguments the page does not forbid, aimed at the draft: over the kit's limits, extra or null fields."""
    base: dict[str, Any] = {"snapshot_id": draft, **ITEM_ARGS}
    return {
        "path-4097": {**base, "path": "p" * 4097},
        "path-huge": {**base, "path": HUGE},
        "kind-huge-other": {**base, "kind": {"other": HUGE}},
        "caller-sets-blob": {**base, "blob": "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"},
        "preview-null": {**base, "preview": None},
    }


def item_cases(draft: str) -> dict[str, object]:
    """Malformed add_item arguments aimed at the draft."""
    base: dict[str, Any] = {"snapshot_id": draft, **ITEM_ARGS}
    cases: dict[str, object] = {
        "null": None,
        "no-snapshot-id": ITEM_ARGS,
        "no-kind": {k: v for k, v in base.items() if k != "kind"},
        "no-path": {k: v for k, v in base.items() if k != "path"},
        "path-number": {**base, "path": 42},
        "path-null": {**base, "path": None},
        "path-list": {**base, "path": ["src", "main.rs"]},
        "content-string": {**base, "content": "x"},
        "content-empty-object": {**base, "content": {}},
        "content-text-number": {**base, "content": {"text": 1}},
        "content-both-forms": {**base, "content": {"text": "a", "base64": "YQ=="}},
        "content-not-base64": {**base, "content": {"base64": "not base64!"}},
        "content-base64-unpadded": {**base, "content": {"base64": "YQ"}},
        "content-base64-newline": {**base, "content": {"base64": "YQ==\n"}},
        "content-bytes-list": {**base, "content": {"bytes": [1, 2]}},
        "preview-number": {**base, "preview": 5},
    }
    cases |= {f"snapshot-id-{name}": {**base, "snapshot_id": value} for name, value in BAD_IDS.items()}
    return cases


BAD_IDS: Final = {"number": 42, "null": None, "huge": HUGE}


def other_cases(draft: str) -> dict[str, tuple[str, object]]:
    """Malformed arguments of the other operations."""
    return {
        "set-content-index-negative": ("set_item_content", {"snapshot_id": draft, "index": -1, "content": {"text": "x"}}),
        "set-content-index-string": ("set_item_content", {"snapshot_id": draft, "index": "0", "content": {"text": "x"}}),
        "set-content-index-float": ("set_item_content", {"snapshot_id": draft, "index": 0.5, "content": {"text": "x"}}),
        "set-content-index-bool": ("set_item_content", {"snapshot_id": draft, "index": False, "content": {"text": "x"}}),
        "set-content-no-content": ("set_item_content", {"snapshot_id": draft, "index": 0}),
        "set-content-null-content": ("set_item_content", {"snapshot_id": draft, "index": 0, "content": None}),
        "remove-index-negative": ("remove_item", {"snapshot_id": draft, "index": -1}),
        "remove-no-index": ("remove_item", {"snapshot_id": draft}),
        "finalize-list": ("finalize", [draft]),
        "hash-no-content": ("hash_content", {"algorithm": "sha1"}),
        "hash-md5": ("hash_content", {"content": {"text": "x"}, "algorithm": "md5"}),
        "hash-content-huge-base64-garbage": ("hash_content", {"content": {"base64": "!" * 100_000}}),
        "read-blob-missing": ("read_blob", {}),
        "retain-no-strategy": ("retain", {"snapshot_id": draft}),
    }


def extra_field_cases(draft: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """Arguments of the other operations with a field the operation does not define (refused, or ignored)."""
    return {
        "remove-extra": ("remove_item", {"snapshot_id": draft, "index": 0, "path": "p"}),
        "finalize-extra": ("finalize", {"snapshot_id": draft, "force": True}),
        "get-extra": ("get_snapshot", {"snapshot_id": draft, "items": []}),
        "hash-extra": ("hash_content", {"content": {"text": "x"}, "store": True}),
        "read-blob-extra": ("read_blob", {"blob": "0" * 40, "algorithm": "sha1"}),
    }


def unicode_cases(draft: str, text: str) -> dict[str, tuple[str, object]]:
    """Arguments holding text that is not valid Unicode (a lone surrogate)."""
    item: dict[str, Any] = {"snapshot_id": draft, **ITEM_ARGS}
    return {
        "path": ("add_item", {**item, "path": text}),
        "preview": ("add_item", {**item, "preview": text}),
        "content": ("add_item", {**item, "content": {"text": text}}),
        "kind-other": ("add_item", {**item, "kind": {"other": text}}),
        "set-content": ("set_item_content", {"snapshot_id": draft, "index": 0, "content": {"text": text}}),
        "summary": ("create_snapshot", {"created_by": ACTOR, "selection_strategy": "explicit", "summary": text}),
        "created-by": ("create_snapshot", {"created_by": {"kind": "agent", "id": text}, "selection_strategy": "heuristic"}),
        "hash": ("hash_content", {"content": {"text": text}}),
    }


def draft_with_item(snapshots: Snapshots) -> tuple[str, dict[str, Any]]:
    """A draft holding one item, and how it reads back."""
    draft = snapshots.with_items([("snippet", "kept", b"kept")], finalize=False)
    return draft, snapshots.get(draft)


def refused_unchanged(snapshots: Snapshots, op: str, args: object, draft: str, before: dict[str, Any], *codes: str) -> None:
    """The call is refused with one of `codes` and the draft reads back as before."""
    answered_unchanged(snapshots, snapshots.send(op, args, serves=SHAPES[op]), draft, before, *codes)


def answered_unchanged(snapshots: Snapshots, answered: Checked, draft: str, before: dict[str, Any], *codes: str) -> None:
    """A call was refused with one of `codes`, and the draft reads back as before."""
    wanted = SHAPES[answered.op]
    answered.refused(wanted, *codes)
    check_equal(wanted, snapshots.get(draft), before, f"the draft after a refused {answered.op}", sent=answered.sent)


def of(op: str) -> pytest.MarkDecorator:
    """The requirement marker of a case aimed at `op`."""
    return requirement(SHAPES[op])


@requirement(R.STRUCTS_CONTEXT_SNAPSHOT)
@pytest.mark.parametrize("case", list(create_cases()))
def test_malformed_create_is_refused(snapshots: Snapshots, case: str) -> None:
    """create_snapshot with wrong types, missing or extra fields, or huge values is INVALID_REQUEST."""
    snapshots.send("create_snapshot", create_cases()[case]).refused(R.STRUCTS_CONTEXT_SNAPSHOT, "INVALID_REQUEST")


def layers_of(item: dict[str, Any]) -> tuple[object, object, object, str | None]:
    """An item's kind, path, preview (None when absent or null) and blob in hex (None when it has none)."""
    return item.get("kind"), item.get("path"), item.get("preview"), item_blob(item)


def created_as_given(record: dict[str, Any]) -> tuple[object, ...]:
    """What a snapshot keeps of the arguments that made it: created_by's kind, id and display_name, strategy, summary."""
    actor = record.get("created_by")
    actor = actor if isinstance(actor, dict) else {}
    fields = (actor.get("kind"), actor.get("id"), actor.get("display_name"))
    return (*fields, record.get("selection_strategy"), record.get("summary"))


@requirement(R.STRUCTS_CONTEXT_SNAPSHOT)
@pytest.mark.parametrize("case", list(lenient_create_cases()))
def test_what_the_page_does_not_forbid_at_create_is_refused_or_taken(snapshots: Snapshots, case: str) -> None:
    """An extra field, a null option, a value over the kit's limits: INVALID_REQUEST, or a snapshot of what was given.

    Accepted, the extra field is ignored, the null taken as absent and the long value kept exactly.
    """
    wanted, sent = R.STRUCTS_CONTEXT_SNAPSHOT, lenient_create_cases()[case]
    created = snapshots.send("create_snapshot", sent, serves=wanted)
    if not created.ok:
        created.refused(wanted, "INVALID_REQUEST")
        return
    record = snapshots.get(str(created.result["snapshot"]["object_id"]), serves=wanted)["snapshot"]
    check_equal(wanted, created_as_given(record), created_as_given(sent), "the snapshot made of the arguments", sent=sent)


@requirement(R.ITEMS_THREE_LAYERS)
@pytest.mark.parametrize("case", list(lenient_item_cases("")))
def test_what_the_page_does_not_forbid_at_add_item_is_refused_or_taken(snapshots: Snapshots, case: str) -> None:
    """A long path or open kind, a blob the caller sets, a null preview: refused (draft unchanged), or taken as given.

    Taken, the item has the kind, path and preview given, and its blob is the Git id of its content.
    """
    wanted = R.ITEMS_THREE_LAYERS
    draft, before = draft_with_item(snapshots)
    sent = lenient_item_cases(draft)[case]
    added = snapshots.send("add_item", sent, serves=wanted)
    if not added.ok:
        answered_unchanged(snapshots, added, draft, before, "INVALID_REQUEST")
        return
    expected = (sent["kind"], sent["path"], sent.get("preview"), X_BLOB)
    check_equal(wanted, layers_of(added.result["item"]), expected, "the item add_item answered", sent=sent)
    items = snapshots.get(draft, serves=wanted)["snapshot"].get("items") or []
    kept = [layers_of(item) for item in items]
    check_equal(wanted, kept, [layers_of(items_of(before)[0]), expected], "the draft's items afterwards", sent=sent)


@pytest.mark.parametrize("case", [pytest.param(case, marks=of(op)) for case, (op, _) in extra_field_cases("").items()])
def test_an_extra_field_of_the_other_operations_is_refused_or_ignored(snapshots: Snapshots, case: str) -> None:
    """An operation given a field it does not define: INVALID_REQUEST (draft unchanged), or the answer without the field.

    The operations are remove_item, finalize, get_snapshot, hash_content and read_blob.
    """
    draft, before = draft_with_item(snapshots)
    op, sent = extra_field_cases(draft)[case]
    wanted = SHAPES[op]
    answered = snapshots.send(op, sent, serves=wanted)
    if not answered.ok:
        codes = ("INVALID_REQUEST", *(("BLOB_NOT_FOUND",) if op == "read_blob" else ()))
        answered_unchanged(snapshots, answered, draft, before, *codes)
        return
    result, after = answered.result, snapshots.get(draft, serves=wanted)
    if op == "remove_item":
        check_equal(wanted, result["item"].get("path"), "kept", "the item remove_item answered", sent=sent)
        check_equal(wanted, items_of(after), [], "the draft's items after removing its only one", sent=sent)
    elif op == "finalize":
        check_equal(wanted, (result["state"], after["state"]), ("finalized", "finalized"), "the state after finalize")
    elif op == "get_snapshot":
        check_equal(wanted, result, before, "what get_snapshot answered", sent=sent)
    elif op == "hash_content":
        check_equal(wanted, blob_hex(result["blob"]), X_BLOB, "the blob hash_content answered", sent=sent)
    else:
        check(wanted, False, "read_blob answered content for an id no blob has", sent=sent, received=result)


@requirement(R.ITEMS_THREE_LAYERS)
@pytest.mark.parametrize("case", list(item_cases("")))
def test_malformed_add_item_is_refused_and_changes_nothing(snapshots: Snapshots, case: str) -> None:
    """add_item with wrong types, missing or extra fields, malformed content or huge values is refused; the draft is unchanged."""
    draft, before = draft_with_item(snapshots)
    extra = ("SNAPSHOT_NOT_FOUND",) if case.startswith("snapshot-id") else ()
    refused_unchanged(snapshots, "add_item", item_cases(draft)[case], draft, before, "INVALID_REQUEST", *extra)


@pytest.mark.parametrize("case", [pytest.param(case, marks=of(op)) for case, (op, _) in other_cases("").items()])
def test_malformed_arguments_of_the_other_operations_are_refused(snapshots: Snapshots, case: str) -> None:
    """set_item_content, remove_item, finalize, get_snapshot, hash_content, read_blob and retain refuse malformed arguments."""
    draft, before = draft_with_item(snapshots)
    op, args = other_cases(draft)[case]
    refused_unchanged(snapshots, op, args, draft, before, "INVALID_REQUEST")


@requirement(R.ITEMS_BLOB_HOLDS_FULL_CONTENT)
@pytest.mark.parametrize("blob", MALFORMED_IDS, ids=[f"id{i}" for i in range(len(MALFORMED_IDS))])
def test_a_malformed_blob_id_is_refused(snapshots: Snapshots, blob: object) -> None:
    """read_blob of something that is neither 40/64 lowercase hex digits nor a tagged byte array is INVALID_REQUEST."""
    snapshots.send("read_blob", {"blob": blob}).refused(R.ITEMS_BLOB_HOLDS_FULL_CONTENT, "INVALID_REQUEST")


@requirement(R.ITEMS_BLOB_HOLDS_FULL_CONTENT)
def test_an_upper_case_hex_id_is_refused_or_read_as_its_lower_case_one(snapshots: Snapshots) -> None:
    """Git reads object names in either case: the empty blob's id in upper case is INVALID_REQUEST or the empty blob."""
    wanted = R.ITEMS_BLOB_HOLDS_FULL_CONTENT
    _ = snapshots.with_items([("snippet", "empty", b"")], finalize=False, serves=wanted)
    answered = snapshots.send("read_blob", {"blob": "E69DE29BB2D1D6434B8B29AE775AD8C2E48C5391"}, serves=wanted)
    if not answered.ok:
        answered.refused(wanted, "INVALID_REQUEST")
        return
    check_equal(wanted, content_bytes(answered.result["content"]), b"", "read_blob of the empty blob's id in upper case")


@pytest.mark.parametrize("op", [pytest.param(op, marks=of(op)) for op in ("get_snapshot", "finalize", "remove_item")])
@pytest.mark.parametrize("snapshot_id", ["not-a-uuid", "", "00000000-0000-0000-0000-00000000000g", "{" + "0" * 32 + "}"])
def test_a_malformed_snapshot_id_is_refused(snapshots: Snapshots, op: str, snapshot_id: str) -> None:
    """A snapshot_id that is not a UUID is INVALID_REQUEST (or, it naming nothing, SNAPSHOT_NOT_FOUND)."""
    args: dict[str, Any] = {"snapshot_id": snapshot_id} | ({"index": 0} if op == "remove_item" else {})
    snapshots.send(op, args).refused(SHAPES[op], "INVALID_REQUEST", "SNAPSHOT_NOT_FOUND")


@requirement(R.ITEMS_THREE_LAYERS)
@pytest.mark.parametrize("op", ["set_item_content", "remove_item"])
@pytest.mark.parametrize("index", [1, 2, 10**9])
def test_an_index_past_the_items_is_not_found(snapshots: Snapshots, op: str, index: int) -> None:
    """set_item_content and remove_item past the last item are ITEM_NOT_FOUND; the draft is unchanged."""
    draft, before = draft_with_item(snapshots)
    args: dict[str, Any] = {"snapshot_id": draft, "index": index} | (
        {"content": {"text": "x"}} if op == "set_item_content" else {}
    )
    refused_unchanged(snapshots, op, args, draft, before, "ITEM_NOT_FOUND")


@pytest.mark.parametrize("text", SURROGATES, ids=["high", "low-inside", "emoji-half"])
@pytest.mark.parametrize("case", [pytest.param(case, marks=of(op)) for case, (op, _) in unicode_cases("", "").items()])
def test_text_that_is_not_unicode_is_refused(snapshots: Snapshots, case: str, text: str) -> None:
    """A lone surrogate (such as U+D800) in any text field is a spec error; the draft is unchanged."""
    draft, before = draft_with_item(snapshots)
    op, args = unicode_cases(draft, text)[case]
    refused_unchanged(snapshots, op, args, draft, before)


# The spec has no requirement on operations it lacks; such a call serves the snapshot record it would touch.
@requirement(R.STRUCTS_CONTEXT_SNAPSHOT)
@pytest.mark.parametrize("op", ["delete_snapshot", "CREATE_SNAPSHOT", "finalise", "list_snapshots", "gc", "context_snapshot"])
def test_an_unknown_operation_is_refused(snapshots: Snapshots, op: str) -> None:
    """An operation the spec does not have is UNKNOWN_OP."""
    snapshots.send(op, {}).refused(R.STRUCTS_CONTEXT_SNAPSHOT, "UNKNOWN_OP")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=8,
)


@pytest.mark.parametrize("op", [pytest.param(op, marks=of(op)) for op in SHAPES])
@given(
    args=st.dictionaries(st.sampled_from(["kind", "path", "content", "index", "blob", "x"]), json_values),
    aim=st.booleans(),
)
@example(args={"kind": "file", "path": ""}, aim=True)
@example(args={"strategy": None}, aim=True)
def test_arbitrary_arguments_never_crash_or_change_a_draft(
    snapshots: Snapshots, op: str, args: dict[str, Any], aim: bool
) -> None:
    """Random JSON arguments, aimed at a draft or not: a spec error (or a valid result), never a crash, never a changed draft."""
    draft, before = draft_with_item(snapshots)
    sent = {**args, "snapshot_id": draft} if aim else args
    answered = snapshots.send(op, sent, serves=SHAPES[op])
    if answered.ok:
        _ = answered.result
        return
    check_equal(SHAPES[op], snapshots.get(draft), before, f"the draft after a refused {op}", sent=sent)
