"""Blob ids are Git's: compared with what `git hash-object` prints in a SHA-1 and a SHA-256 repository."""

from __future__ import annotations

import hashlib
from typing import Final

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ctxconform.conformance.suites.context_snapshot import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.context_snapshot.client import Snapshots, content_bytes, item_blob
from ctxconform.conformance.suites.context_snapshot.repository import Repository
from ctxconform.conformance.suites.context_snapshot.strategies import CONTENTS, KINDS
from ctxconform.conformance.testing import check, check_equal, requirement

# The sha256 cases need the sha256 feature: they declare its requirement alone, so they skip without it.
ALGORITHMS: Final = [
    pytest.param("sha1", R.ITEMS_BLOB_GIT_HASH, id="sha1", marks=requirement(R.ITEMS_BLOB_GIT_HASH)),
    pytest.param("sha256", R.ITEMS_BLOB_SHA256, id="sha256", marks=requirement(R.ITEMS_BLOB_SHA256)),
]
# Git's own well-known ids: the empty blob, and "hello world\n".
KNOWN: Final = [
    pytest.param(
        "sha1",
        b"",
        "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
        R.ITEMS_BLOB_GIT_HASH,
        id="sha1-empty",
        marks=requirement(R.ITEMS_BLOB_GIT_HASH),
    ),
    pytest.param(
        "sha1",
        b"hello world\n",
        "3b18e512dba79e4c8300dd08aeb37f8e728b8dad",
        R.ITEMS_BLOB_GIT_HASH,
        id="sha1-hello",
        marks=requirement(R.ITEMS_BLOB_GIT_HASH),
    ),
    pytest.param(
        "sha256",
        b"",
        "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813",
        R.ITEMS_BLOB_SHA256,
        id="sha256-empty",
        marks=requirement(R.ITEMS_BLOB_SHA256),
    ),
]


def git_id(repository: Repository, content: bytes) -> str:
    """`git hash-object` of the content, cross-checked with hashlib (a broken git would be the harness's problem)."""
    expected = repository.hash_object(content)
    digest = hashlib.new(repository.object_format, b"blob %d\0" % len(content) + content, usedforsecurity=False).hexdigest()
    if expected != digest:
        raise RuntimeError(f"harness problem: git hash-object printed {expected}, hashlib gives {digest}")
    return expected


@pytest.mark.parametrize(("algorithm", "wanted"), ALGORITHMS)
@given(content=CONTENTS)
@example(content=b"")
@example(content=b"\0\x01\xff" * 100)
def test_hash_content_is_what_git_hash_object_prints(
    snapshots: Snapshots, repos: dict[str, Repository], algorithm: str, wanted: str, content: bytes
) -> None:
    """hash_content of any bytes (empty, binary, UTF-8) is the id `git hash-object` gives them."""
    got = snapshots.hash(content, algorithm, serves=wanted)
    check_equal(wanted, got, git_id(repos[algorithm], content), f"hash_content of {len(content)} bytes", sent=content)


@pytest.mark.parametrize(
    ("algorithm", "wanted", "stored"),
    [
        pytest.param(
            "sha1",
            R.ITEMS_BLOB_GIT_HASH,
            R.ITEMS_BLOB_HOLDS_FULL_CONTENT,
            id="sha1",
            marks=requirement(R.ITEMS_BLOB_GIT_HASH, R.ITEMS_BLOB_HOLDS_FULL_CONTENT),
        ),
        # Stored in the SHA-256 repository is part of the sha256 requirement ("its blobs are stored there").
        pytest.param("sha256", R.ITEMS_BLOB_SHA256, R.ITEMS_BLOB_SHA256, id="sha256", marks=requirement(R.ITEMS_BLOB_SHA256)),
    ],
)
@given(content=CONTENTS, kind=st.sampled_from(KINDS), binary=st.booleans())
@example(content=b"", kind="snippet", binary=False)
def test_item_blob_is_the_git_id_of_its_content_and_git_holds_it(
    snapshots: Snapshots,
    repos: dict[str, Repository],
    *,
    algorithm: str,
    wanted: str,
    stored: str,
    content: bytes,
    kind: str,
    binary: bool,
) -> None:
    """An item's blob is `git hash-object` of its content, and `git cat-file` in the repository gives the content back."""
    snapshot_id = snapshots.create(algorithm=None if algorithm == "sha1" else algorithm)
    item = snapshots.add(snapshot_id, kind, "captured", content, text=not binary).result["item"]
    expected = git_id(repos[algorithm], content)
    check_equal(wanted, item_blob(item), expected, f"the blob of a {kind} item", sent=content)
    held = repos[algorithm].blob(expected)
    check_equal(stored, held, content, f"git cat-file {expected} in the {algorithm} repository")


@pytest.mark.parametrize(("algorithm", "content", "known", "wanted"), KNOWN)
def test_well_known_blob_ids(snapshots: Snapshots, algorithm: str, content: bytes, known: str, wanted: str) -> None:
    """The empty blob and "hello world" with a newline get the ids every Git installation knows."""
    check_equal(wanted, snapshots.hash(content, algorithm, serves=wanted), known, f"hash_content of {content!r}")


@requirement(R.ITEMS_BLOB_GIT_HASH, R.ITEMS_BLOB_HOLDS_FULL_CONTENT)
def test_a_large_binary_content_hashes_and_reads_back(snapshots: Snapshots, sha1: Repository) -> None:
    """One MiB of binary content as an item: Git's id, and read_blob gives every byte back."""
    content = bytes(range(256)) * 4096
    snapshot_id = snapshots.create()
    blob = item_blob(snapshots.add(snapshot_id, "file", "assets/data.bin", content).result["item"])
    expected = git_id(sha1, content)
    check_equal(R.ITEMS_BLOB_GIT_HASH, blob, expected, "the blob of 1 MiB of binary content")
    back = content_bytes(snapshots.read_blob(expected).expect(R.ITEMS_BLOB_HOLDS_FULL_CONTENT)["content"])
    check(R.ITEMS_BLOB_HOLDS_FULL_CONTENT, back == content, "read_blob did not give back the 1 MiB byte for byte", sent=expected)
