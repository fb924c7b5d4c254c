"""Blob retention: after retain, `git gc --prune=now` keeps every non-File blob of the snapshot readable."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import pytest

from ctxconform.conformance.suites.context_snapshot import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.context_snapshot.client import SPEC, Snapshots, blob_hex, content_bytes, item_blob, items_of
from ctxconform.conformance.suites.context_snapshot.repository import Repository
from ctxconform.conformance.testing import check, check_equal, needs_feature, requirement, unique_hex, unique_uuid

CHOOSES: Final = R.BLOB_RETENTION_APPLICATION_CHOOSES_STRATEGY
STRATEGIES: Final = {
    "ref_anchoring": R.BLOB_RETENTION_REF_ANCHORING,
    "orphan_commit": R.BLOB_RETENTION_ORPHAN_COMMIT,
    "keep_pack": R.BLOB_RETENTION_KEEP_PACK,
}
ALL_STRATEGIES: Final = (*STRATEGIES, "custom_gc_mark")


def non_file_items(label: str) -> list[tuple[object, str, bytes]]:
    """Items of kinds other than File, with content no other test stored.

    No Url item: a page is stored as a blob by items/url-content-as-blob, and retain (like finalize) may refuse a
    snapshot whose blob was never stored; these tests are about keeping blobs that were.
    """
    tag = unique_hex()
    return [
        ("snippet", "design notes", f"{label} snippet {tag}".encode()),
        ("command", "cargo test", f"{label} output {tag}\n".encode()),
        ("image", "screenshot.png", b"\x89PNG\r\n" + bytes.fromhex(tag)),
    ]


def anchored(repository: Repository, blobs: list[str]) -> list[str]:
    """The blobs that no refs/ai/blobs/<hex> ref names."""
    return [blob for blob in blobs if repository.ref(f"refs/ai/blobs/{blob}") != blob]


def uploaded(repository: Repository, blobs: list[str]) -> list[str]:
    """The blobs not reachable from refs/ai/uploads."""
    reachable = repository.reachable("refs/ai/uploads") if repository.ref("refs/ai/uploads") else set()
    return [blob for blob in blobs if blob not in reachable]


def packed(repository: Repository, blobs: list[str]) -> list[str]:
    """The blobs in no pack with a .keep marker."""
    kept = repository.kept()
    return [blob for blob in blobs if blob not in kept]


EVIDENCE: Final[dict[str, Callable[[Repository, list[str]], list[str]]]] = {
    "ref_anchoring": anchored,
    "orphan_commit": uploaded,
    "keep_pack": packed,
}


def gc_for_certain(repository: Repository) -> None:
    """`git gc --prune=now`, shown to prune: an unreferenced control blob is gone afterwards."""
    control = repository.git("hash-object", "-w", "--stdin", stdin=f"unretained {unique_uuid()}".encode()).decode().strip()
    repository.gc()
    if repository.blob(control) is not None:
        raise RuntimeError("harness problem: git gc --prune=now kept an unreferenced blob, so it proves nothing here")


def retained_snapshot(snapshots: Snapshots, repository: Repository, strategy: str) -> tuple[dict[str, bytes | None], set[str]]:
    """A finalized snapshot of non-File items retained with `strategy`: its blobs, and the blobs retain named.

    Each blob maps to what the repository held of it before gc (None: nothing). The blobs are what the items name and
    the contents what the repository held: what each kind stores is the item requirements' concern, keeping it is
    retention's.
    """
    algorithm = None if repository.object_format == "sha1" else repository.object_format
    snapshot_id = snapshots.with_items(non_file_items(strategy), algorithm=algorithm)
    blobs = [str(item_blob(item)) for item in items_of(snapshots.get(snapshot_id))]
    held = {blob: repository.blob(blob) for blob in blobs}
    result = snapshots.request("retain", serves=STRATEGIES[strategy], snapshot_id=snapshot_id, strategy=strategy).result
    return held, {blob_hex(b) for b in result["retained"]}


def strategy_cases() -> list[object]:
    """One case per strategy and object format, declaring that strategy's requirement alone."""
    return [
        pytest.param(strategy, algorithm, id=f"{strategy}-{algorithm}", marks=requirement(wanted))
        for strategy, wanted in STRATEGIES.items()
        for algorithm in ("sha1", "sha256")
    ]


@pytest.mark.parametrize(("strategy", "algorithm"), strategy_cases())
def test_retained_blobs_survive_git_gc(snapshots: Snapshots, repos: dict[str, Repository], strategy: str, algorithm: str) -> None:
    """After retain every non-File blob bears the strategy's mark, and the repository holds each after git gc --prune=now."""
    if algorithm == "sha256":
        needs_feature(SPEC, "sha256")
    wanted, repository = STRATEGIES[strategy], repos[algorithm]
    held, retained = retained_snapshot(snapshots, repository, strategy)
    check_equal(wanted, sorted(set(held) - retained), [], f"the snapshot's blobs retain with {strategy} did not name")
    check_equal(wanted, EVIDENCE[strategy](repository, list(held)), [], f"the blobs {strategy} left no mark on")
    gc_for_certain(repository)
    stored = {blob: content for blob, content in held.items() if content is not None}
    after = {blob: repository.blob(blob) for blob in stored}
    check_equal(wanted, after, stored, "the retained blobs the repository holds after git gc --prune=now")


@requirement(R.ITEMS_BLOB_HOLDS_FULL_CONTENT)
@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_read_blob_gives_retained_blobs_after_git_gc(snapshots: Snapshots, sha1: Repository, strategy: str) -> None:
    """read_blob of a retained blob after git gc --prune=now (which packs it) gives the content the repository holds."""
    needs_feature(SPEC, strategy)
    held, _ = retained_snapshot(snapshots, sha1, strategy)
    gc_for_certain(sha1)
    for blob, content in held.items():
        if content is None:
            continue  # not stored at all: the item requirements' concern, not retention's
        back = snapshots.read_blob(blob).expect(R.ITEMS_BLOB_HOLDS_FULL_CONTENT)["content"]
        check(R.ITEMS_BLOB_HOLDS_FULL_CONTENT, content_bytes(back) == content, "read_blob after gc gave other bytes", sent=blob)


@requirement(CHOOSES)
@pytest.mark.parametrize("strategy", ALL_STRATEGIES)
def test_a_strategy_the_implementation_does_not_declare_is_refused(snapshots: Snapshots, strategy: str) -> None:
    """A retain with a strategy the implementation does not declare is UNSUPPORTED_STRATEGY."""
    if strategy in snapshots.features:
        pytest.skip(f"the implementation declares {strategy}; test_retained_blobs_survive_git_gc checks it")
    snapshot_id = snapshots.with_items(non_file_items("undeclared")[:1])
    retained = snapshots.request("retain", serves=CHOOSES, snapshot_id=snapshot_id, strategy=strategy)
    retained.refused(CHOOSES, "UNSUPPORTED_STRATEGY")


@requirement(CHOOSES)
@pytest.mark.parametrize("strategy", ["gc", "Ref_anchoring", "", None, ["ref_anchoring"]])
def test_an_unknown_strategy_is_refused(snapshots: Snapshots, strategy: object) -> None:
    """A strategy outside the document's table is INVALID_REQUEST, or (a name) UNSUPPORTED_STRATEGY: both codes fit."""
    snapshot_id = snapshots.with_items(non_file_items("unknown")[:1])
    codes = ("INVALID_REQUEST", *(("UNSUPPORTED_STRATEGY",) if isinstance(strategy, str) else ()))
    snapshots.send("retain", {"snapshot_id": snapshot_id, "strategy": strategy}).refused(CHOOSES, *codes)
