"""Blob retention: after retain, `git gc --prune=now` keeps every non-File blob of the snapshot readable."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import pytest

from ctxconform.conformance._unique import unique_hex, unique_uuid
from ctxconform.conformance.suites.context_snapshot.client import HOLDS, Snapshots, blob_hex, content_bytes, require
from ctxconform.conformance.suites.context_snapshot.repository import Repository

requirement = pytest.mark.requirement

CHOOSES: Final = "context-snapshot/blob-retention/application-chooses-strategy"
STRATEGIES: Final = {
    "ref_anchoring": "context-snapshot/blob-retention/ref-anchoring",
    "orphan_commit": "context-snapshot/blob-retention/orphan-commit",
    "keep_pack": "context-snapshot/blob-retention/keep-pack",
}
ALL_STRATEGIES: Final = (*STRATEGIES, "custom_gc_mark")


def non_file_items(label: str) -> list[tuple[object, str, bytes]]:
    """One item of every kind but File, with content no other test stored."""
    tag = unique_hex()
    return [
        ("url", f"https://example.org/{tag}", f"<p>{label} page {tag}</p>".encode()),
        ("snippet", "design notes", f"{label} snippet {tag}".encode()),
        ("command", "cargo test", f"{label} output {tag}\n".encode()),
        ("image", "screenshot.png", b"\x89PNG\r\n" + bytes.fromhex(tag)),
        ({"other": "log"}, "agent.log", f"{label} log {tag}".encode()),
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


@requirement(*STRATEGIES.values(), HOLDS)
@pytest.mark.parametrize("algorithm", ["sha1", "sha256"])
@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_retained_blobs_survive_git_gc(snapshots: Snapshots, repos: dict[str, Repository], strategy: str, algorithm: str) -> None:
    """After retain every non-File blob bears the strategy's mark, and each is readable after git gc --prune=now."""
    snapshots.needs(strategy)
    if algorithm == "sha256":
        snapshots.needs("sha256")
    wanted = STRATEGIES[strategy]
    items = [i for i in non_file_items(strategy) if isinstance(i[0], str) or "other_kind" in snapshots.features]
    snapshot_id = snapshots.with_items(items, algorithm=algorithm if algorithm == "sha256" else None)
    result = snapshots.call("retain", snapshot_id=snapshot_id, strategy=strategy).result(wanted)
    repository = repos[algorithm]
    blobs = [repository.hash_object(content) for _, _, content in items]
    retained = {blob_hex(b) for b in result["retained"]}
    require(set(blobs) <= retained, wanted, f"retain did not name blobs {sorted(set(blobs) - retained)}")
    unmarked = EVIDENCE[strategy](repository, blobs)
    require(not unmarked, wanted, f"{strategy} left no mark on blobs {unmarked}")
    control = repository.git("hash-object", "-w", "--stdin", stdin=f"unretained {unique_uuid()}".encode()).decode().strip()
    repository.gc()
    if repository.blob(control) is not None:
        raise RuntimeError("harness problem: git gc --prune=now kept an unreferenced blob, so it proves nothing here")
    for blob, (_, _, content) in zip(blobs, items, strict=True):
        require(repository.blob(blob) == content, wanted, f"git gc --prune=now pruned retained blob {blob}")
        back = content_bytes(snapshots.read_blob(blob).result(wanted)["content"])
        require(back == content, HOLDS, f"read_blob({blob}) after gc gave other bytes")


@requirement(CHOOSES)
@pytest.mark.parametrize("strategy", ALL_STRATEGIES)
def test_a_strategy_the_implementation_does_not_declare_is_refused(snapshots: Snapshots, strategy: str) -> None:
    """A retain with a strategy the implementation does not declare is UNSUPPORTED_STRATEGY."""
    if strategy in snapshots.features:
        pytest.skip(f"the implementation declares {strategy}; test_retained_blobs_survive_git_gc checks it")
    snapshot_id = snapshots.with_items(non_file_items("undeclared")[:1])
    snapshots.call("retain", snapshot_id=snapshot_id, strategy=strategy).refused(CHOOSES, "UNSUPPORTED_STRATEGY")


@requirement(CHOOSES)
@pytest.mark.parametrize("strategy", ["gc", "Ref_anchoring", "", None, ["ref_anchoring"]])
def test_an_unknown_strategy_is_refused(snapshots: Snapshots, strategy: object) -> None:
    """A strategy outside the document's table is INVALID_REQUEST."""
    snapshot_id = snapshots.with_items(non_file_items("unknown")[:1])
    snapshots.send("retain", {"snapshot_id": snapshot_id, "strategy": strategy}).refused(CHOOSES, "INVALID_REQUEST")
