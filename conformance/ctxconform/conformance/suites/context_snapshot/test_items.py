"""Items: kinds, locators, previews and blobs, as the item table and the enums define them."""

from __future__ import annotations

from typing import Final

import pytest
from hypothesis import given

from ctxconform.conformance._unique import unique_uuid
from ctxconform.conformance.suites.context_snapshot.client import (
    BLOB_NONE,
    HASH,
    HOLDS,
    ITEM,
    RECORD,
    Snapshots,
    content_bytes,
    item_blob,
    items_of,
    require,
)
from ctxconform.conformance.suites.context_snapshot.repository import Repository
from ctxconform.conformance.suites.context_snapshot.strategies import PATHS

requirement = pytest.mark.requirement

KIND_ENUM: Final = "context-snapshot/enums/context-item-kind"
OTHER_KIND: Final = "context-snapshot/enums/other-kind"
STRATEGY_ENUM: Final = "context-snapshot/enums/selection-strategy"
LOCATOR: Final = "context-snapshot/items/path-locator"
BLANK: Final = "context-snapshot/items/blank-path-rejected"
PREVIEW: Final = "context-snapshot/items/preview-under-500"
UNIFIED: Final = "context-snapshot/items/unified-content-reference"
ORDER: Final = "context-snapshot/structs/context-item"
# The table's rows other than File (whose blob is the committed tree's; see test_storage.py): kind, path, content.
ROWS: Final = {
    "url": (
        "context-snapshot/items/url-content-as-blob",
        "https://docs.rs/git-internal/latest/",
        b"<html><body>docs</body></html>\n",
    ),
    "snippet": ("context-snapshot/items/snippet-text-as-blob", "design notes", "Snippets are text \u2014 any text.\n".encode()),
    "command": ("context-snapshot/items/command-output-as-blob", "cargo test", b"running 3 tests\ntest result: ok.\n"),
    "image": (
        "context-snapshot/items/image-binary-as-blob",
        "screenshot.png",
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(256)),
    ),
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


def unchanged(snapshots: Snapshots, snapshot_id: str, before: dict[str, object], requirement_id: str) -> None:
    """Fail `requirement_id` unless the snapshot reads back as it did before a refused call."""
    after = snapshots.get(snapshot_id)
    require(after == before, requirement_id, f"a refused call changed the snapshot: {before} became {after}")


@requirement(*(row[0] for row in ROWS.values()), HOLDS)
@pytest.mark.parametrize("kind", list(ROWS))
def test_each_kind_stores_its_content_as_a_blob(snapshots: Snapshots, sha1: Repository, kind: str) -> None:
    """Url page content, snippet text, command output and image bytes each become a blob the repository holds."""
    row, path, content = ROWS[kind]
    snapshot_id = snapshots.create()
    item = snapshots.add(snapshot_id, kind, path, content, text=kind != "image").result(row)["item"]
    require(item.get("kind") == kind and item.get("path") == path, row, f"the item came back as {item}")
    expected = sha1.hash_object(content)
    require(item_blob(item) == expected, row, f"a {kind} item's blob is {item_blob(item)}, the content's Git id {expected}")
    require(sha1.blob(expected) == content, row, f"the repository does not hold the {kind} content as blob {expected}")
    back = content_bytes(snapshots.read_blob(expected).result(HOLDS)["content"])
    require(back == content, HOLDS, f"read_blob of the {kind} item's blob gave other bytes")


@requirement(UNIFIED, KIND_ENUM)
def test_the_same_content_gets_the_same_blob_whatever_the_kind(snapshots: Snapshots, sha1: Repository) -> None:
    """One content as an item of every kind (the open one too, when declared): each gets the Git id of the content."""
    content = f"shared content {unique_uuid()}\n".encode()
    snapshot_id = snapshots.create()
    kinds: list[object] = ["file", "url", "snippet", "command", "image"]
    if "other_kind" in snapshots.features:
        kinds.append({"other": "terminal-session"})
    blobs = [item_blob(snapshots.add(snapshot_id, k, f"{k} locator", content).result(KIND_ENUM)["item"]) for k in kinds]
    expected = sha1.hash_object(content)
    wrong = {str(k): b for k, b in zip(kinds, blobs, strict=True) if b != expected}
    require(not wrong, UNIFIED, f"one content should be blob {expected} whatever the kind; these kinds got {wrong}")


@requirement(KIND_ENUM, ITEM)
def test_the_five_kinds_read_back_as_given(snapshots: Snapshots) -> None:
    """file, url, snippet, command and image are accepted and read back in that order, with their paths."""
    kinds = ["file", "url", "snippet", "command", "image"]
    snapshot_id = snapshots.with_items([(k, f"{k}-path", k.encode()) for k in kinds])
    items = items_of(snapshots.get(snapshot_id))
    require([i.get("kind") for i in items] == kinds, KIND_ENUM, f"kinds read back as {[i.get('kind') for i in items]}")
    require([i.get("path") for i in items] == [f"{k}-path" for k in kinds], ITEM, f"paths read back as {items}")


def layers(item: dict[str, object]) -> tuple[object, object, object, str | None]:
    """An item's kind, path, preview (None when absent) and blob in hex (None when it has none)."""
    return item.get("kind"), item.get("path"), item.get("preview"), item_blob(item)


@requirement(ITEM)
def test_each_item_has_the_layers_it_was_given(snapshots: Snapshots, sha1: Repository) -> None:
    """Added and read back, an item has the kind, path and preview given, and a blob exactly when content was given."""
    given_items: list[tuple[str, str, str | None, bytes | None]] = [
        ("file", "src/lib.rs", "pub fn add", b"pub fn add(a: u8, b: u8) -> u8 { a + b }\n"),
        ("url", "https://example.org/guide", None, b"<h1>Guide</h1>\n"),
        ("snippet", "design notes", "Saturate \u2014 never wrap", None),
        ("command", "cargo test", None, None),
    ]
    snapshot_id = snapshots.create()
    added = [snapshots.add(snapshot_id, k, p, c, preview=v).result(ITEM)["item"] for k, p, v, c in given_items]
    expected = [(k, p, v, None if c is None else sha1.hash_object(c)) for k, p, v, c in given_items]
    for source, found in (("add_item", added), ("get_snapshot", items_of(snapshots.get(snapshot_id, ITEM)))):
        got = [layers(item) for item in found]
        require(got == expected, ITEM, f"{source} gave the items as {got}; they were given as {expected}")


@requirement(OTHER_KIND)
def test_the_open_kind_reads_back_and_hashes_like_any_other(snapshots: Snapshots, sha1: Repository) -> None:
    """{"other": name} is accepted, read back exactly, and its blob is the Git id of its content."""
    kind = {"other": "terminal-session"}
    snapshot_id = snapshots.create()
    item = snapshots.add(snapshot_id, kind, "tmux pane 2", b"$ ls\nsrc\n").result(OTHER_KIND)["item"]
    require(item.get("kind") == kind, OTHER_KIND, f"the open kind came back as {item.get('kind')!r}")
    require(item_blob(item) == sha1.hash_object(b"$ ls\nsrc\n"), OTHER_KIND, f"its blob is {item_blob(item)}")
    require(items_of(snapshots.get(snapshot_id))[0].get("kind") == kind, OTHER_KIND, "get_snapshot changed the open kind")


@requirement(OTHER_KIND)
@pytest.mark.parametrize("name", ["", " ", "\t"])
def test_the_open_kind_needs_a_name(snapshots: Snapshots, name: str) -> None:
    """{"other": ""} or a blank name is refused."""
    snapshot_id = snapshots.create()
    before = snapshots.get(snapshot_id)
    snapshots.send("add_item", {"snapshot_id": snapshot_id, "kind": {"other": name}, "path": "p"}).refused(
        OTHER_KIND, "INVALID_REQUEST"
    )
    unchanged(snapshots, snapshot_id, before, OTHER_KIND)


@requirement(KIND_ENUM)
@pytest.mark.parametrize("kind", ["File", "video", "", "files", "Other", None, 3, ["file"], {"kind": "file"}, {"Other": "x"}])
def test_an_unknown_kind_is_refused(snapshots: Snapshots, kind: object) -> None:
    """Anything but the five kinds (and the open variant) is refused with INVALID_REQUEST; the snapshot is unchanged."""
    snapshot_id = snapshots.create()
    before = snapshots.get(snapshot_id)
    snapshots.send("add_item", {"snapshot_id": snapshot_id, "kind": kind, "path": "p"}).refused(KIND_ENUM, "INVALID_REQUEST")
    unchanged(snapshots, snapshot_id, before, KIND_ENUM)


@requirement(LOCATOR)
@pytest.mark.parametrize("path", LOCATORS, ids=["repo-path", "url", "command", "label", "unicode", "padded", "4096"])
def test_any_locator_reads_back_exactly(snapshots: Snapshots, path: str) -> None:
    """Repo paths, URLs, command lines, labels in any script, up to 4096 characters, read back exactly."""
    snapshot_id = snapshots.with_items([("snippet", path, b"x")])
    got = items_of(snapshots.get(snapshot_id))[0].get("path")
    require(got == path, LOCATOR, f"path {path[:60]!r} came back as {str(got)[:60]!r}")


@requirement(LOCATOR)
@given(path=PATHS)
def test_generated_locators_read_back_exactly(snapshots: Snapshots, path: str) -> None:
    """Any non-blank text is a locator and reads back exactly."""
    snapshot_id = snapshots.create()
    item = snapshots.add(snapshot_id, "snippet", path).result(LOCATOR)["item"]
    require(item.get("path") == path, LOCATOR, f"path {path!r} came back as {item.get('path')!r}")


@requirement(BLANK)
@pytest.mark.parametrize(
    "path", BLANKS, ids=["empty", "space", "tab-newline", "ideographic-space", "nbsp-line-separator", "controls"]
)
def test_a_blank_path_is_refused(snapshots: Snapshots, path: str) -> None:
    """An empty path, or one of white space only, is refused with INVALID_REQUEST; the snapshot is unchanged."""
    snapshot_id = snapshots.with_items([("snippet", "kept", b"kept")], finalize=False)
    before = snapshots.get(snapshot_id)
    args = {"snapshot_id": snapshot_id, "kind": "snippet", "path": path, "content": {"text": "x"}}
    snapshots.send("add_item", args).refused(BLANK, "INVALID_REQUEST")
    unchanged(snapshots, snapshot_id, before, BLANK)


@requirement(PREVIEW, ITEM)
@pytest.mark.parametrize("length", [0, 1, 120, 499])
def test_a_preview_under_500_characters_reads_back_exactly(snapshots: Snapshots, length: int) -> None:
    """A preview of fewer than 500 characters is stored and read back exactly."""
    preview = ("Preview \u2713 " * 50)[:length]
    snapshot_id = snapshots.create()
    snapshots.add(snapshot_id, "snippet", "notes", b"full text", preview=preview).result(PREVIEW)
    got = items_of(snapshots.get(snapshot_id))[0].get("preview")
    require(got == preview, PREVIEW, f"a {length}-character preview came back as {got!r:.80}")


@requirement(PREVIEW)
@pytest.mark.parametrize("length", [500, 501, 5000])
def test_a_long_preview_is_cut_under_500_or_refused(snapshots: Snapshots, length: int) -> None:
    """A preview of 500 characters or more is cut to a prefix under 500, or refused leaving the snapshot unchanged."""
    preview = ("\u00e9t\u00e9 " * 2000)[:length]
    snapshot_id = snapshots.create()
    before = snapshots.get(snapshot_id)
    outcome = snapshots.add(snapshot_id, "snippet", "notes", b"text", preview=preview)
    if not outcome.ok:
        outcome.refused(PREVIEW, "INVALID_REQUEST")
        unchanged(snapshots, snapshot_id, before, PREVIEW)
        return
    outcome.result(PREVIEW)
    got = str(items_of(snapshots.get(snapshot_id))[0].get("preview", ""))
    require(len(got) < 500, PREVIEW, f"a {length}-character preview was kept with {len(got)} characters")
    kept = got.removesuffix("\u2026").removesuffix("...")
    require(preview.startswith(kept), PREVIEW, f"the cut preview is not a prefix of the given one: {got[-40:]!r}")


@requirement(BLOB_NONE, ITEM)
def test_a_draft_item_without_content_has_no_blob(snapshots: Snapshots) -> None:
    """add_item without content is accepted while drafting; the item has no blob (absent or null)."""
    snapshot_id = snapshots.create()
    added = snapshots.add(snapshot_id, "url", "https://example.org/later").result(BLOB_NONE)["item"]
    read = items_of(snapshots.get(snapshot_id))[0]
    for item in (added, read):
        require(item.get("blob") is None, BLOB_NONE, f"an item added without content has blob {item.get('blob')!r}")


@requirement(ORDER)
def test_items_keep_their_order_and_their_snapshot(snapshots: Snapshots) -> None:
    """Items read back in the order they were added, removing one moves the later ones up, and no other snapshot shows them."""
    first = snapshots.with_items([("snippet", f"a{i}", f"a{i}".encode()) for i in range(5)], finalize=False)
    second = snapshots.with_items([("snippet", "b0", b"b0")], finalize=False)
    snapshots.call("remove_item", snapshot_id=first, index=1).result(ORDER)
    paths = [i.get("path") for i in items_of(snapshots.get(first))]
    require(paths == ["a0", "a2", "a3", "a4"], ORDER, f"after removing index 1 of a0..a4 the items are {paths}")
    moved = snapshots.call("remove_item", snapshot_id=first, index=1).result(ORDER)["item"].get("path")
    require(moved == "a2", ORDER, f"after the removal index 1 should name a2, which moved up; it named {moved}")
    last = snapshots.call("remove_item", snapshot_id=first, index=2).result(ORDER)["item"].get("path")
    require(last == "a4", ORDER, f"index 2 of a0, a3, a4 should name a4; it named {last}")
    others = [i.get("path") for i in items_of(snapshots.get(second))]
    require(others == ["b0"], ORDER, f"another snapshot shows items {others}")


@requirement(STRATEGY_ENUM, RECORD)
@pytest.mark.parametrize("strategy", ["explicit", "heuristic"])
def test_both_selection_strategies_read_back(snapshots: Snapshots, strategy: str) -> None:
    """Both strategies, explicit and heuristic, are accepted and read back as given."""
    snapshot_id = snapshots.create(strategy=strategy)
    got = snapshots.get(snapshot_id)["snapshot"].get("selection_strategy")
    require(got == strategy, STRATEGY_ENUM, f"selection_strategy {strategy!r} came back as {got!r}")


@requirement(STRATEGY_ENUM)
@pytest.mark.parametrize("strategy", ["Explicit", "random", "", None, 1, ["explicit"]])
def test_an_unknown_selection_strategy_is_refused(snapshots: Snapshots, strategy: object) -> None:
    """Any other selection strategy is refused with INVALID_REQUEST."""
    args = {"created_by": {"kind": "agent", "id": "a"}, "selection_strategy": strategy}
    snapshots.send("create_snapshot", args).refused(STRATEGY_ENUM, "INVALID_REQUEST")


@requirement(HASH, HOLDS)
def test_hash_content_does_not_depend_on_the_content_form(snapshots: Snapshots) -> None:
    """The same bytes sent as text or as base64 get one blob id."""
    content = "caf\u00e9 \u2603\n".encode()
    as_text = snapshots.call("hash_content", content={"text": content.decode()}).result(HASH)["blob"]
    as_base64 = snapshots.call("hash_content", content={"base64": "Y2Fmw6kg4piDCg=="}).result(HASH)["blob"]
    require(as_text == as_base64, HASH, f"text gave {as_text}, base64 of the same bytes {as_base64}")
