"""Where content lives: Git blobs in the repository, stored once, the File kind's blob shared with the commit tree."""

from __future__ import annotations

from typing import Final

import pytest

from ctxconform.conformance.suites.context_snapshot import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.context_snapshot.client import Snapshots, content_bytes, item_blob, items_of
from ctxconform.conformance.suites.context_snapshot.repository import Repository
from ctxconform.conformance.testing import check, check_equal, requirement, unique_hex, unique_uuid

DEDUP: Final = R.PURPOSE_CONTENT_DEDUPLICATION
HASH: Final = R.ITEMS_BLOB_GIT_HASH
HOLDS: Final = R.ITEMS_BLOB_HOLDS_FULL_CONTENT


def unique(label: str) -> bytes:
    """Content no other test has stored."""
    return f"{label} {unique_uuid()}\n".encode()


def git_ids_agree(snapshots: Snapshots, repository: Repository, content: bytes) -> str:
    """Check that hash_content gives Git's id of `content` (what the rest of a test relies on); return that id."""
    expected = repository.hash_object(content)
    check_equal(HASH, snapshots.hash(content, serves=HASH), expected, "hash_content of the test's content", sent=content)
    return expected


@requirement(DEDUP, HASH)
def test_identical_content_is_stored_once_across_items_and_snapshots(snapshots: Snapshots, sha1: Repository) -> None:
    """One content in three items of two snapshots: one blob id, and the repository gains exactly one blob."""
    content = unique("deduplicated")
    expected = git_ids_agree(snapshots, sha1, content)
    before = sha1.blob_count()
    # One kind for all three: that every kind gets the same id is items/unified-content-reference.
    first = snapshots.with_items([("file", "a.md", content), ("file", "docs/a.md", content)])
    second = snapshots.with_items([("file", "copy/a.md", content)])
    blobs = [item_blob(item) for s in (first, second) for item in items_of(snapshots.get(s))]
    check_equal(DEDUP, blobs, [blobs[0]] * 3, "the blob ids of one content in three items")
    gained = sha1.blob_count() - before
    check_equal(DEDUP, gained, 1, "the blobs the repository gained for one content stored three times")
    check_equal(HASH, blobs[0], expected, "the blob id of the content")


@requirement(DEDUP, HASH)
def test_distinct_contents_are_distinct_blobs(snapshots: Snapshots, sha1: Repository) -> None:
    """Three different contents: three blobs, three more in the repository."""
    contents = [unique(f"distinct {i}") for i in range(3)]
    expected = [git_ids_agree(snapshots, sha1, content) for content in contents]
    before = sha1.blob_count()
    snapshot_id = snapshots.with_items([("file", f"s{i}.md", c) for i, c in enumerate(contents)])
    blobs = [item_blob(item) for item in items_of(snapshots.get(snapshot_id))]
    check_equal(DEDUP, len(set(blobs)), 3, "the distinct blob ids of three contents")
    check_equal(DEDUP, sha1.blob_count() - before, 3, "the blobs the repository gained for three new contents")
    check_equal(HASH, blobs, expected, "the blob ids of three contents")


@requirement(R.ITEMS_FILE_BLOB_IN_GIT_TREE, R.BLOB_RETENTION_FILE_BLOBS_REACHABLE, HASH)
@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_a_committed_file_is_the_blob_of_the_commit_tree(snapshots: Snapshots, sha1: Repository, newline: str) -> None:
    """A File item of committed content (LF or CRLF lines) gets the tree's blob, adds no object, and survives gc."""
    in_git_tree, reachable = R.ITEMS_FILE_BLOB_IN_GIT_TREE, R.BLOB_RETENTION_FILE_BLOBS_REACHABLE
    path = f"src/{unique_hex()}/main.rs"
    content = f"fn main() {{{newline}    run();{newline}}}{newline}".encode() + unique("// id")
    _, in_tree = sha1.commit_file(path, content)
    _ = git_ids_agree(snapshots, sha1, content)
    before = sha1.object_count()
    snapshot_id = snapshots.create()
    blob = item_blob(snapshots.add(snapshot_id, "file", path, content).expect(in_git_tree)["item"])
    check_equal(in_git_tree, blob, in_tree, f"the File item's blob (the commit tree has {in_tree} at {path})")
    check_equal(in_git_tree, sha1.object_count() - before, 0, "the objects adding a committed file stored")
    _ = snapshots.finalized(snapshot_id)
    sha1.gc()
    check_equal(reachable, sha1.blob(in_tree), content, "the File item's blob after git gc --prune=now")
    back = snapshots.read_blob(in_tree).expect(reachable)["content"]
    check(reachable, content_bytes(back) == content, "read_blob of the File item's blob after gc gave other bytes")


@requirement(HOLDS)
def test_each_capture_keeps_the_content_it_had(snapshots: Snapshots, sha1: Repository) -> None:
    """The same path captured twice with other content: two blobs, and the first still gives the first content."""
    old, new = unique("notes v1"), unique("notes v2")
    first = snapshots.with_items([("file", "notes.md", old)])
    second = snapshots.with_items([("file", "notes.md", new)])
    blobs = [item_blob(items_of(snapshots.get(s))[0]) for s in (first, second)]
    check(HOLDS, blobs[0] != blobs[1], "two contents of one path got one blob", received=blobs)
    for blob, content in zip(blobs, (old, new), strict=True):
        check_equal(HOLDS, sha1.blob(str(blob)), content, f"the content blob {blob} holds")


@pytest.mark.parametrize(
    ("algorithm", "wanted"),
    [
        pytest.param("sha1", HOLDS, id="sha1", marks=requirement(HOLDS)),
        # A SHA-256 blob read back is part of the sha256 requirement ("its blobs are stored there").
        pytest.param("sha256", R.ITEMS_BLOB_SHA256, id="sha256", marks=requirement(R.ITEMS_BLOB_SHA256)),
    ],
)
def test_read_blob_takes_the_tagged_byte_array_form(snapshots: Snapshots, algorithm: str, wanted: str) -> None:
    """read_blob accepts the origin's {"Sha1": [20 bytes]} / {"Sha256": [32 bytes]} as well as hex."""
    content = unique("tagged")
    snapshot_id = snapshots.with_items([("file", "t.md", content)], algorithm=algorithm if algorithm == "sha256" else None)
    blob = str(item_blob(items_of(snapshots.get(snapshot_id))[0]))
    tagged = {"Sha1" if algorithm == "sha1" else "Sha256": list(bytes.fromhex(blob))}
    for form in (blob, tagged):
        back = content_bytes(snapshots.read_blob(form, serves=wanted).expect(wanted)["content"])
        check(wanted, back == content, "read_blob gave other bytes than the item's content", sent=form)


@requirement(HOLDS)
@pytest.mark.parametrize("blob", ["0" * 40, "ab" * 20, "0" * 64, {"Sha1": [7] * 20}])
def test_read_blob_of_an_unknown_id_is_not_found(snapshots: Snapshots, blob: object) -> None:
    """A well-formed id that no stored blob has is BLOB_NOT_FOUND."""
    snapshots.read_blob(blob, serves=HOLDS).refused(HOLDS, "BLOB_NOT_FOUND")


@requirement(R.ITEMS_BLOB_SHA256)
def test_a_sha256_snapshot_stores_its_blobs_in_the_sha256_repository(snapshots: Snapshots, repos: dict[str, Repository]) -> None:
    """Items of a sha256 snapshot get 64-digit ids that the SHA-256 repository holds."""
    wanted = R.ITEMS_BLOB_SHA256
    contents = [unique("sha256 notes"), bytes(range(200))]
    items: list[tuple[object, str, bytes]] = [("file", "notes.md", contents[0]), ("file", "data.bin", contents[1])]
    snapshot_id = snapshots.with_items(items, algorithm="sha256", serves=wanted)
    result = snapshots.get(snapshot_id)
    check_equal(wanted, result.get("algorithm", "sha256"), "sha256", "the algorithm the snapshot reports")
    for item, content in zip(items_of(result), contents, strict=True):
        expected = repos["sha256"].hash_object(content)
        check_equal(wanted, item_blob(item), expected, "the blob of a sha256 snapshot's item", sent=content)
        check_equal(wanted, repos["sha256"].blob(expected), content, f"the content the SHA-256 repository holds as {expected}")
    _ = snapshots.add(snapshots.create(algorithm="sha256", serves=wanted), "snippet", "x", b"x", serves=wanted).result
