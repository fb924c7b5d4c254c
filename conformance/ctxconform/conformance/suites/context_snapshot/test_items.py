"""Items: kinds, locators, previews and blobs, as the item table and the enums define them."""

from __future__ import annotations

from typing import Any, Final

import pytest
from hypothesis import given

from ctxconform.conformance.suites.context_snapshot import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.context_snapshot.client import (
    Snapshots,
    content_bytes,
    item_blob,
    items_of,
    preview_as_given,
    previews_as_given,
)
from ctxconform.conformance.suites.context_snapshot.repository import Repository
from ctxconform.conformance.suites.context_snapshot.strategies import PATHS
from ctxconform.conformance.testing import check, check_equal, requirement, unique_uuid

Json = dict[str, Any]
KINDS: Final = ["file", "url", "snippet", "command", "image"]
# The table's rows other than File (whose blob is the committed tree's; see test_storage.py): kind, path, content.
ROWS: Final = {
    "url": (R.ITEMS_URL_CONTENT_AS_BLOB, "https://docs.rs/git-internal/latest/", b"<html><body>docs</body></html>\n"),
    "snippet": (R.ITEMS_SNIPPET_TEXT_AS_BLOB, "design notes", "Snippets are text \u2014 any text.\n".encode()),
    "command": (R.ITEMS_COMMAND_OUTPUT_AS_BLOB, "cargo test", b"running 3 tests\ntest result: ok.\n"),
    "image": (R.ITEMS_IMAGE_BINARY_AS_BLOB, "screenshot.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(256))),
}
LOCATORS: Final = [
    "src/main.rs",
    "https://docs.rs/git-internal/latest/git_internal/?search=context#items",
    "cargo test -- --nocapture 'quoted arg' \"double\"",
    "design notes",
    "\u8a2d\u8a08\u30e1\u30e2 \u2713 \U0001f4f7",
    " padded label ",
    "x" * 4096,
]
BLANKS: Final = ["", " ", "\t\n", "\u3000", "\u00a0 \u2028", "\r\n\v\f"]


def git_ids_agree(snapshots: Snapshots, repository: Repository, content: bytes) -> str:
    """Check that hash_content gives Git's id of `content`, which every item of it must have; return that id.

    Run first, it charges a wrong hash to items/blob-git-hash rather than to the kind or layer a test is about.
    """
    expected = repository.hash_object(content)
    got = snapshots.hash(content, serves=R.ITEMS_BLOB_GIT_HASH)
    check_equal(R.ITEMS_BLOB_GIT_HASH, got, expected, "hash_content of the test's content", sent=content)
    return expected


def unchanged(snapshots: Snapshots, snapshot_id: str, before: Json, wanted: str) -> None:
    """Fail `wanted` unless the snapshot reads back as it did before a refused call."""
    check_equal(wanted, snapshots.get(snapshot_id), before, "the snapshot after a refused call")


@pytest.mark.parametrize(
    "kind",
    [
        pytest.param(kind, marks=requirement(row[0], R.ITEMS_BLOB_HOLDS_FULL_CONTENT, R.ITEMS_BLOB_GIT_HASH))
        for kind, row in ROWS.items()
    ],
)
def test_each_kind_stores_its_content_as_a_blob(snapshots: Snapshots, sha1: Repository, kind: str) -> None:
    """Url page content, snippet text, command output and image bytes each become a blob the repository holds."""
    row, path, content = ROWS[kind]
    expected = git_ids_agree(snapshots, sha1, content)
    snapshot_id = snapshots.create()
    item = snapshots.add(snapshot_id, kind, path, content, text=kind != "image").expect(row)["item"]
    check_equal(row, (item.get("kind"), item.get("path")), (kind, path), f"the {kind} item's kind and locator")
    check_equal(row, item_blob(item), expected, f"the {kind} item's blob (the Git id of its content)", sent=content)
    check_equal(row, sha1.blob(expected), content, f"the {kind} content the repository holds as blob {expected}")
    back = content_bytes(snapshots.read_blob(expected).expect(R.ITEMS_BLOB_HOLDS_FULL_CONTENT)["content"])
    check_equal(R.ITEMS_BLOB_HOLDS_FULL_CONTENT, back, content, f"read_blob of the {kind} item's blob")


@requirement(R.ITEMS_UNIFIED_CONTENT_REFERENCE, R.ENUMS_CONTEXT_ITEM_KIND, R.ITEMS_BLOB_GIT_HASH)
def test_the_same_content_gets_the_same_blob_whatever_the_kind(snapshots: Snapshots, sha1: Repository) -> None:
    """One content as an item of every kind (the open one too, when declared): each gets the Git id of the content."""
    content = f"shared content {unique_uuid()}\n".encode()
    expected = git_ids_agree(snapshots, sha1, content)
    snapshot_id = snapshots.create()
    kinds: list[object] = list(KINDS)
    if "other_kind" in snapshots.features:
        kinds.append({"other": "terminal-session"})
    blobs = {}
    for kind in kinds:
        accepted = R.ENUMS_CONTEXT_ITEM_KIND if isinstance(kind, str) else R.ITEMS_UNIFIED_CONTENT_REFERENCE
        item = snapshots.add(snapshot_id, kind, f"{kind} locator", content).expect(accepted)["item"]
        check_equal(accepted, item.get("kind"), kind, "the kind add_item answered")
        blobs[str(kind)] = item_blob(item)
    check_equal(R.ITEMS_UNIFIED_CONTENT_REFERENCE, blobs, dict.fromkeys(blobs, expected), "the blob of one content, per kind")


@requirement(R.ENUMS_CONTEXT_ITEM_KIND, R.ITEMS_THREE_LAYERS)
def test_the_five_kinds_read_back_as_given(snapshots: Snapshots) -> None:
    """file, url, snippet, command and image are accepted and read back in that order, with their paths."""
    snapshot_id = snapshots.create()
    for kind in KINDS:
        _ = snapshots.add(snapshot_id, kind, f"{kind}-path", kind.encode()).expect(R.ENUMS_CONTEXT_ITEM_KIND)
    items = items_of(snapshots.get(snapshot_id))
    check_equal(R.ENUMS_CONTEXT_ITEM_KIND, [i.get("kind") for i in items], KINDS, "the kinds read back")
    check_equal(R.ITEMS_THREE_LAYERS, [i.get("path") for i in items], [f"{k}-path" for k in KINDS], "the paths read back")


def layers(item: Json) -> tuple[object, object, object, str | None]:
    """An item's kind, path, preview (None when absent) and blob in hex (None when it has none)."""
    return item.get("kind"), item.get("path"), item.get("preview"), item_blob(item)


@requirement(R.ITEMS_THREE_LAYERS, R.ITEMS_BLOB_GIT_HASH)
def test_each_item_has_the_layers_it_was_given(snapshots: Snapshots, sha1: Repository) -> None:
    """Added and read back, an item has the kind, path and preview given, and a blob exactly when content was given."""
    given_items: list[tuple[str, str, str | None, bytes | None]] = [
        ("file", "src/lib.rs", "pub fn add", b"pub fn add(a: u8, b: u8) -> u8 { a + b }\n"),
        ("url", "https://example.org/guide", None, b"<h1>Guide</h1>\n"),
        ("snippet", "design notes", "Saturate \u2014 never wrap", None),
        ("command", "cargo test", None, None),
    ]
    expected = [(k, p, v, None if c is None else git_ids_agree(snapshots, sha1, c)) for k, p, v, c in given_items]
    snapshot_id = snapshots.create()
    added = [snapshots.add(snapshot_id, k, p, c, preview=v).result["item"] for k, p, v, c in given_items]
    answered = previews_as_given([layers(item) for item in added], expected)
    check_equal(R.ITEMS_THREE_LAYERS, answered, expected, "the items add_item answered")
    read = items_of(snapshots.get(snapshot_id, serves=R.ITEMS_THREE_LAYERS))
    check_equal(R.ITEMS_THREE_LAYERS, previews_as_given([layers(i) for i in read], expected), expected, "the items read back")


@requirement(R.ENUMS_OTHER_KIND)
def test_the_open_kind_reads_back_and_hashes_like_any_other(snapshots: Snapshots) -> None:
    """{"other": name} is accepted, read back exactly, and its blob is the Git id of its content, as hash_content gives it."""
    kind, content = {"other": "terminal-session"}, b"$ ls\nsrc\n"
    # hash_content's id, which the hashing tests compare with git's: a wrong hash is not the open kind's failure.
    expected = snapshots.hash(content)
    snapshot_id = snapshots.create()
    item = snapshots.add(snapshot_id, kind, "tmux pane 2", content).expect(R.ENUMS_OTHER_KIND)["item"]
    check_equal(R.ENUMS_OTHER_KIND, item.get("kind"), kind, "the open kind add_item answered")
    check_equal(R.ENUMS_OTHER_KIND, item_blob(item), expected, "the open kind item's blob")
    read = items_of(snapshots.get(snapshot_id))[0].get("kind")
    check_equal(R.ENUMS_OTHER_KIND, read, kind, "the open kind get_snapshot answered")


@requirement(R.ENUMS_OTHER_KIND)
def test_a_blank_open_kind_is_refused_or_kept_as_given(snapshots: Snapshots) -> None:
    """{"other": ""} or a blank name: every one refused (the snapshot unchanged), or every one read back as given."""
    wanted, names = R.ENUMS_OTHER_KIND, ["", " ", "\t"]
    snapshot_id = snapshots.create()
    refused = []
    for name in names:
        before = snapshots.get(snapshot_id)
        args = {"snapshot_id": snapshot_id, "kind": {"other": name}, "path": "p"}
        added = snapshots.send("add_item", args, serves=wanted)
        refused.append(not added.ok)
        if added.ok:
            check_equal(wanted, added.result["item"].get("kind"), {"other": name}, "the blank open kind add_item answered")
            read = items_of(snapshots.get(snapshot_id))[-1].get("kind")
            check_equal(wanted, read, {"other": name}, "the blank open kind get_snapshot answered")
        else:
            added.refused(wanted, "INVALID_REQUEST")
            unchanged(snapshots, snapshot_id, before, wanted)
    check(wanted, len(set(refused)) == 1, "some blank open kinds were refused and others accepted", received=refused)


@requirement(R.ENUMS_CONTEXT_ITEM_KIND)
@pytest.mark.parametrize("kind", ["File", "video", "", "files", "Other", None, 3, ["file"], {"kind": "file"}, {"Other": "x"}])
def test_an_unknown_kind_is_refused(snapshots: Snapshots, kind: object) -> None:
    """Anything but the five kinds (and the open variant) is refused with INVALID_REQUEST; the snapshot is unchanged."""
    snapshot_id = snapshots.create()
    before = snapshots.get(snapshot_id)
    args = {"snapshot_id": snapshot_id, "kind": kind, "path": "p"}
    snapshots.send("add_item", args).refused(R.ENUMS_CONTEXT_ITEM_KIND, "INVALID_REQUEST")
    unchanged(snapshots, snapshot_id, before, R.ENUMS_CONTEXT_ITEM_KIND)


@requirement(R.ITEMS_PATH_LOCATOR)
@pytest.mark.parametrize("path", LOCATORS, ids=["repo-path", "url", "command", "label", "unicode", "padded", "4096"])
def test_any_locator_reads_back_exactly(snapshots: Snapshots, path: str) -> None:
    """Repo paths, URLs, command lines, labels in any script, up to 4096 characters, read back exactly."""
    snapshot_id = snapshots.create()
    # Adding an item at a locator is what the locator's requirement is about: a refused or failed add_item is charged there.
    _ = snapshots.add(snapshot_id, "snippet", path, b"x", serves=R.ITEMS_PATH_LOCATOR).expect(R.ITEMS_PATH_LOCATOR)
    _ = snapshots.finalized(snapshot_id)
    got = items_of(snapshots.get(snapshot_id))[0].get("path")
    check_equal(R.ITEMS_PATH_LOCATOR, got, path, "the path read back")


@requirement(R.ITEMS_PATH_LOCATOR)
@given(path=PATHS)
def test_generated_locators_read_back_exactly(snapshots: Snapshots, path: str) -> None:
    """Any non-blank text is a locator and reads back exactly."""
    snapshot_id = snapshots.create()
    item = snapshots.add(snapshot_id, "snippet", path, serves=R.ITEMS_PATH_LOCATOR).expect(R.ITEMS_PATH_LOCATOR)["item"]
    check_equal(R.ITEMS_PATH_LOCATOR, item.get("path"), path, "the path add_item answered")


@requirement(R.ITEMS_BLANK_PATH_REJECTED)
def test_blank_paths_are_all_refused_or_all_kept(snapshots: Snapshots) -> None:
    """Empty paths and paths of white space only: all refused (snapshot unchanged), or all read back exactly.

    Refused is INVALID_REQUEST; one reading holds for every blank path.
    """
    wanted = R.ITEMS_BLANK_PATH_REJECTED
    snapshot_id = snapshots.with_items([("snippet", "kept", b"kept")], finalize=False)
    refused: dict[str, bool] = {}
    for path in BLANKS:
        before = snapshots.get(snapshot_id)
        args = {"snapshot_id": snapshot_id, "kind": "snippet", "path": path, "content": {"text": "x"}}
        added = snapshots.send("add_item", args, serves=wanted)
        refused[path] = not added.ok
        if added.ok:
            check_equal(wanted, added.result["item"].get("path"), path, "the blank path add_item answered")
            check_equal(wanted, items_of(snapshots.get(snapshot_id))[-1].get("path"), path, "the blank path read back")
        else:
            added.refused(wanted, "INVALID_REQUEST")
            unchanged(snapshots, snapshot_id, before, wanted)
    check(wanted, len(set(refused.values())) == 1, "some blank paths were refused and others accepted", received=refused)


@requirement(R.ITEMS_PREVIEW_UNDER_500)
@pytest.mark.parametrize("length", [0, 1, 120, 499])
def test_a_preview_under_500_characters_reads_back_exactly(snapshots: Snapshots, length: int) -> None:
    """A preview of fewer than 500 characters is stored and read back exactly (as display text: trimmed, LF line ends)."""
    preview = ("Preview \u2713 " * 50)[:length]
    snapshot_id = snapshots.create()
    _ = snapshots.add(snapshot_id, "snippet", "notes", b"full text", preview=preview).expect(R.ITEMS_PREVIEW_UNDER_500)
    got = preview_as_given(items_of(snapshots.get(snapshot_id))[0].get("preview"), preview)
    check_equal(R.ITEMS_PREVIEW_UNDER_500, got, preview, f"a {length}-character preview read back")


@requirement(R.ITEMS_PREVIEW_UNDER_500)
@pytest.mark.parametrize("length", [500, 501, 5000])
def test_a_long_preview_is_kept_cut_under_500_or_refused(snapshots: Snapshots, length: int) -> None:
    """A preview of 500 characters or more is read back as given, cut to a prefix under 500, or refused (unchanged)."""
    preview = ("\u00e9t\u00e9 " * 2000)[:length]
    snapshot_id = snapshots.create()
    before = snapshots.get(snapshot_id)
    added = snapshots.add(snapshot_id, "snippet", "notes", b"text", preview=preview, serves=R.ITEMS_PREVIEW_UNDER_500)
    if not added.ok:
        added.refused(R.ITEMS_PREVIEW_UNDER_500, "INVALID_REQUEST")
        unchanged(snapshots, snapshot_id, before, R.ITEMS_PREVIEW_UNDER_500)
        return
    answered = added.raw["item"].get("preview", "") if isinstance(added.raw, dict) else ""
    check_cut(preview, str(answered), "add_item answered")
    _ = added.result
    read = snapshots.get(snapshot_id, serves=R.ITEMS_PREVIEW_UNDER_500)
    check_cut(preview, str(items_of(read)[0].get("preview", "")), "get_snapshot answered")


def check_cut(preview: str, got: str, where: str) -> None:
    """A long preview is kept as given, or under 500 characters as a prefix of the one given (perhaps with an ellipsis)."""
    wanted = R.ITEMS_PREVIEW_UNDER_500
    if preview_as_given(got, preview) == preview:
        check_equal(wanted, preview_as_given(got, preview), preview, f"{where} the preview as given")
        return
    check(wanted, len(got) < 500, f"{where} a preview of {len(got)} characters", sent=len(preview), received=got[-40:])
    kept = got.removesuffix("\u2026").removesuffix("...")
    check(wanted, preview.startswith(kept), f"{where} a cut preview that is not a prefix of the one given", received=got[-40:])


@requirement(R.ITEMS_BLOB_NONE_IN_DRAFT)
def test_a_draft_item_without_content_has_no_blob(snapshots: Snapshots) -> None:
    """add_item without content is accepted while drafting; the item has no blob (absent or null)."""
    snapshot_id = snapshots.create()
    added = snapshots.add(snapshot_id, "url", "https://example.org/later").expect(R.ITEMS_BLOB_NONE_IN_DRAFT)["item"]
    check_equal(R.ITEMS_BLOB_NONE_IN_DRAFT, added.get("blob"), None, "the blob add_item answered for an item without content")
    read = items_of(snapshots.get(snapshot_id))[0]
    check_equal(R.ITEMS_BLOB_NONE_IN_DRAFT, read.get("blob"), None, "the blob read back for an item without content")


@requirement(R.STRUCTS_CONTEXT_ITEM)
def test_items_keep_their_order_and_their_snapshot(snapshots: Snapshots) -> None:
    """Items read back in the order they were added, removing one moves the later ones up, and no other snapshot shows them."""
    order = R.STRUCTS_CONTEXT_ITEM
    first = snapshots.with_items([("snippet", f"a{i}", f"a{i}".encode()) for i in range(5)], finalize=False)
    second = snapshots.with_items([("snippet", "b0", b"b0")], finalize=False)
    _ = snapshots.request("remove_item", serves=order, snapshot_id=first, index=1).result
    paths = [i.get("path") for i in items_of(snapshots.get(first))]
    check_equal(order, paths, ["a0", "a2", "a3", "a4"], "the items after removing index 1 of a0..a4")
    moved = snapshots.request("remove_item", serves=order, snapshot_id=first, index=1).result["item"].get("path")
    check_equal(order, moved, "a2", "the item index 1 named after the removal (a2 moved up)")
    last = snapshots.request("remove_item", serves=order, snapshot_id=first, index=2).result["item"].get("path")
    check_equal(order, last, "a4", "the item index 2 of a0, a3, a4 named")
    others = [i.get("path") for i in items_of(snapshots.get(second))]
    check_equal(order, others, ["b0"], "the items of another snapshot")


@requirement(R.ENUMS_SELECTION_STRATEGY)
@pytest.mark.parametrize("strategy", ["explicit", "heuristic"])
def test_both_selection_strategies_read_back(snapshots: Snapshots, strategy: str) -> None:
    """Both strategies, explicit and heuristic, are accepted and read back as given."""
    snapshot_id = snapshots.create(strategy=strategy, serves=R.ENUMS_SELECTION_STRATEGY)
    got = snapshots.get(snapshot_id)["snapshot"].get("selection_strategy")
    check_equal(R.ENUMS_SELECTION_STRATEGY, got, strategy, "the selection_strategy read back")


@requirement(R.ENUMS_SELECTION_STRATEGY)
@pytest.mark.parametrize("strategy", ["Explicit", "random", "", None, 1, ["explicit"]])
def test_an_unknown_selection_strategy_is_refused(snapshots: Snapshots, strategy: object) -> None:
    """Any other selection strategy is refused with INVALID_REQUEST."""
    args = {"created_by": {"kind": "agent", "id": "a"}, "selection_strategy": strategy}
    snapshots.send("create_snapshot", args).refused(R.ENUMS_SELECTION_STRATEGY, "INVALID_REQUEST")


@requirement(R.ITEMS_BLOB_GIT_HASH)
def test_hash_content_does_not_depend_on_the_content_form(snapshots: Snapshots) -> None:
    """The same bytes sent as text or as base64 get one blob id."""
    content = "caf\u00e9 \u2603\n".encode()
    as_text = snapshots.request("hash_content", content={"text": content.decode()}).result["blob"]
    as_base64 = snapshots.request("hash_content", content={"base64": "Y2Fmw6kg4piDCg=="}).result["blob"]
    check_equal(R.ITEMS_BLOB_GIT_HASH, as_base64, as_text, "the blob of the same bytes sent as base64 and as text")
