"""Blob ids are Git's: compared with what `git hash-object` prints in a SHA-1 and a SHA-256 repository."""

from __future__ import annotations

import hashlib
from typing import Final

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ctxconform.conformance.suites.context_snapshot.client import (
    HASH,
    HASH_SHA256,
    HOLDS,
    ITEM,
    Snapshots,
    content_bytes,
    item_blob,
    require,
)
from ctxconform.conformance.suites.context_snapshot.repository import Repository
from ctxconform.conformance.suites.context_snapshot.strategies import CONTENTS, KINDS

requirement = pytest.mark.requirement

REQUIREMENTS: Final = {"sha1": HASH, "sha256": HASH_SHA256}
# Git's own well-known ids: the empty blob, and "hello world\n".
KNOWN: Final = {
    ("sha1", b""): "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
    ("sha1", b"hello world\n"): "3b18e512dba79e4c8300dd08aeb37f8e728b8dad",
    ("sha256", b""): "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813",
}


def git_id(repository: Repository, content: bytes) -> str:
    """`git hash-object` of the content, cross-checked with hashlib (a broken git would be the harness's problem)."""
    expected = repository.hash_object(content)
    digest = hashlib.new(repository.object_format, b"blob %d\0" % len(content) + content, usedforsecurity=False).hexdigest()
    if expected != digest:
        raise RuntimeError(f"harness problem: git hash-object printed {expected}, hashlib gives {digest}")
    return expected


@requirement(HASH, HASH_SHA256)
@pytest.mark.parametrize("algorithm", ["sha1", "sha256"])
@given(content=CONTENTS)
@example(content=b"")
@example(content=b"\0\x01\xff" * 100)
def test_hash_content_is_what_git_hash_object_prints(
    snapshots: Snapshots, repos: dict[str, Repository], algorithm: str, content: bytes
) -> None:
    """hash_content of any bytes (empty, binary, UTF-8) is the id `git hash-object` gives them."""
    if algorithm == "sha256":
        snapshots.needs("sha256")
    expected = git_id(repos[algorithm], content)
    got = snapshots.hash(content, algorithm)
    require(
        got == expected,
        REQUIREMENTS[algorithm],
        f"hash_content gave {got} for {len(content)} bytes; git hash-object gives {expected}",
    )


@requirement(HASH, HASH_SHA256, HOLDS)
@pytest.mark.parametrize("algorithm", ["sha1", "sha256"])
@given(content=CONTENTS, kind=st.sampled_from(KINDS), binary=st.booleans())
@example(content=b"", kind="snippet", binary=False)
def test_item_blob_is_the_git_id_of_its_content_and_git_holds_it(
    snapshots: Snapshots, repos: dict[str, Repository], *, algorithm: str, content: bytes, kind: str, binary: bool
) -> None:
    """An item's blob is `git hash-object` of its content, and `git cat-file` in the repository gives the content back."""
    if algorithm == "sha256":
        snapshots.needs("sha256")
    snapshot_id = snapshots.create(algorithm=None if algorithm == "sha1" else algorithm)
    outcome = snapshots.add(snapshot_id, kind, "captured", content, text=not binary)
    blob = item_blob(outcome.result(ITEM)["item"])
    expected = git_id(repos[algorithm], content)
    require(blob == expected, REQUIREMENTS[algorithm], f"the item's blob is {blob}; git hash-object gives {expected}")
    stored = repos[algorithm].blob(expected)
    require(stored == content, HOLDS, f"git cat-file {expected} in the {algorithm} repository gives {stored!r:.80}")


@requirement(HASH, HASH_SHA256)
@pytest.mark.parametrize(("algorithm", "content"), list(KNOWN), ids=["sha1-empty", "sha1-hello", "sha256-empty"])
def test_well_known_blob_ids(snapshots: Snapshots, algorithm: str, content: bytes) -> None:
    """The empty blob and "hello world" with a newline get the ids every Git installation knows."""
    if algorithm == "sha256":
        snapshots.needs("sha256")
    got = snapshots.hash(content, algorithm)
    require(got == KNOWN[algorithm, content], REQUIREMENTS[algorithm], f"{content!r} hashed to {got}")


@requirement(HASH, HOLDS)
def test_a_large_binary_content_hashes_and_reads_back(snapshots: Snapshots, sha1: Repository) -> None:
    """One MiB of binary content as an Image item: Git's id, and read_blob gives every byte back."""
    content = bytes(range(256)) * 4096
    snapshot_id = snapshots.create()
    blob = item_blob(snapshots.add(snapshot_id, "image", "screenshot.png", content).result(ITEM)["item"])
    expected = git_id(sha1, content)
    require(blob == expected, HASH, f"1 MiB image: blob {blob}, git hash-object {expected}")
    back = content_bytes(snapshots.read_blob(expected).result(HOLDS)["content"])
    require(back == content, HOLDS, "read_blob did not give back the 1 MiB image byte for byte")
