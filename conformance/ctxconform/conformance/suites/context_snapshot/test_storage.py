"""Where content lives: Git blobs in the repository, stored once, the File kind's blob shared with the commit tree."""

from __future__ import annotations

from typing import Final

import pytest

from ctxconform.conformance._unique import unique_hex, unique_uuid
from ctxconform.conformance.suites.context_snapshot.client import (
    HASH_SHA256,
    HOLDS,
    ITEM,
    Snapshots,
    content_bytes,
    item_blob,
    items_of,
    require,
)
from ctxconform.conformance.suites.context_snapshot.repository import Repository

requirement = pytest.mark.requirement

DEDUP: Final = "context-snapshot/purpose/content-deduplication"
FILE_TREE: Final = "context-snapshot/items/file-blob-in-git-tree"
FILE_REACHABLE: Final = "context-snapshot/blob-retention/file-blobs-reachable"


def unique(label: str) -> bytes:
    """Content no other test has stored."""
    return f"{label} {unique_uuid()}\n".encode()


@requirement(DEDUP)
def test_identical_content_is_stored_once_across_items_and_snapshots(snapshots: Snapshots, sha1: Repository) -> None:
    """One content in three items of two snapshots: one blob id, and the repository gains exactly one blob."""
    content = unique("deduplicated")
    before = sha1.blob_count()
    first = snapshots.with_items([("snippet", "a", content), ("command", "cat a", content)])
    second = snapshots.with_items([("url", "https://example.org/a", content)])
    blobs = {item_blob(item) for s in (first, second) for item in items_of(snapshots.get(s))}
    require(blobs == {sha1.hash_object(content)}, DEDUP, f"one content got blobs {sorted(map(str, blobs))}")
    gained = sha1.blob_count() - before
    require(gained == 1, DEDUP, f"storing one content three times added {gained} blobs to the repository")


@requirement(DEDUP)
def test_distinct_contents_are_distinct_blobs(snapshots: Snapshots, sha1: Repository) -> None:
    """Three different contents: three blobs, three more in the repository."""
    contents = [unique(f"distinct {i}") for i in range(3)]
    before = sha1.blob_count()
    snapshot_id = snapshots.with_items([("snippet", f"s{i}", c) for i, c in enumerate(contents)])
    blobs = [item_blob(item) for item in items_of(snapshots.get(snapshot_id))]
    require(blobs == [sha1.hash_object(c) for c in contents], DEDUP, f"three contents got blobs {blobs}")
    require(sha1.blob_count() - before == 3, DEDUP, "three new contents did not add three blobs")


@requirement(FILE_TREE, FILE_REACHABLE)
@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_a_committed_file_is_the_blob_of_the_commit_tree(snapshots: Snapshots, sha1: Repository, newline: str) -> None:
    """A File item of committed content (LF or CRLF lines) gets the tree's blob, adds no object, and survives gc."""
    path = f"src/{unique_hex()}/main.rs"
    content = f"fn main() {{{newline}    run();{newline}}}{newline}".encode() + unique("// id")
    _, in_tree = sha1.commit_file(path, content)
    before = sha1.object_count()
    snapshot_id = snapshots.create()
    blob = item_blob(snapshots.add(snapshot_id, "file", path, content).result(FILE_TREE)["item"])
    require(blob == in_tree, FILE_TREE, f"the File item's blob is {blob}; the commit tree has {in_tree} at {path}")
    gained = sha1.object_count() - before
    require(gained == 0, FILE_TREE, f"adding a committed file stored {gained} more object(s)")
    snapshots.finalized(snapshot_id, FILE_TREE)
    sha1.gc()
    require(sha1.blob(in_tree) == content, FILE_REACHABLE, "git gc --prune=now lost the File item's blob")
    back = snapshots.read_blob(in_tree).result(FILE_REACHABLE)["content"]
    require(content_bytes(back) == content, FILE_REACHABLE, "read_blob of the File item's blob after gc gave other bytes")


@requirement(HOLDS)
def test_each_capture_keeps_the_content_it_had(snapshots: Snapshots, sha1: Repository) -> None:
    """The same path captured twice with other content: two blobs, and the first still gives the first content."""
    old, new = unique("notes v1"), unique("notes v2")
    first = snapshots.with_items([("file", "notes.md", old)])
    second = snapshots.with_items([("file", "notes.md", new)])
    blobs = [item_blob(items_of(snapshots.get(s))[0]) for s in (first, second)]
    require(blobs[0] != blobs[1], HOLDS, "two contents of one path got one blob")
    for blob, content in zip(blobs, (old, new), strict=True):
        require(sha1.blob(str(blob)) == content, HOLDS, f"blob {blob} does not hold the content captured with it")


@requirement(HOLDS)
@pytest.mark.parametrize("algorithm", ["sha1", "sha256"])
def test_read_blob_takes_the_tagged_byte_array_form(snapshots: Snapshots, algorithm: str) -> None:
    """read_blob accepts the origin's {"Sha1": [20 bytes]} / {"Sha256": [32 bytes]} as well as hex."""
    if algorithm == "sha256":
        snapshots.needs("sha256")
    content = unique("tagged")
    snapshot_id = snapshots.with_items([("snippet", "t", content)], algorithm=algorithm if algorithm == "sha256" else None)
    blob = str(item_blob(items_of(snapshots.get(snapshot_id))[0]))
    tagged = {"Sha1" if algorithm == "sha1" else "Sha256": list(bytes.fromhex(blob))}
    for form in (blob, tagged):
        back = content_bytes(snapshots.read_blob(form).result(HOLDS)["content"])
        require(back == content, HOLDS, f"read_blob({form}) gave other bytes")


@requirement(HOLDS)
@pytest.mark.parametrize("blob", ["0" * 40, "ab" * 20, "0" * 64, {"Sha1": [7] * 20}])
def test_read_blob_of_an_unknown_id_is_not_found(snapshots: Snapshots, blob: object) -> None:
    """A well-formed id that no stored blob has is BLOB_NOT_FOUND."""
    snapshots.read_blob(blob).refused(HOLDS, "BLOB_NOT_FOUND")


@requirement(HASH_SHA256, HOLDS)
def test_a_sha256_snapshot_stores_its_blobs_in_the_sha256_repository(snapshots: Snapshots, repos: dict[str, Repository]) -> None:
    """Items of a sha256 snapshot get 64-digit ids that the SHA-256 repository holds."""
    snapshots.needs("sha256")
    contents = [unique("sha256 snippet"), bytes(range(200))]
    snapshot_id = snapshots.with_items([("snippet", "s", contents[0]), ("image", "i.png", contents[1])], algorithm="sha256")
    result = snapshots.get(snapshot_id)
    require(
        result.get("algorithm", "sha256") == "sha256", HASH_SHA256, f"the snapshot reports algorithm {result.get('algorithm')}"
    )
    for item, content in zip(items_of(result), contents, strict=True):
        expected = repos["sha256"].hash_object(content)
        require(item_blob(item) == expected, HASH_SHA256, f"blob {item_blob(item)}; git hash-object (SHA-256) {expected}")
        require(repos["sha256"].blob(expected) == content, HOLDS, f"the SHA-256 repository does not hold {expected}")
    snapshots.add(snapshots.create(algorithm="sha256"), "snippet", "x", b"x").result(ITEM)
