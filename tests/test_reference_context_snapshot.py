"""The context-snapshot reference itself: Git's hashing, its repositories, retention through gc, durability, request checks."""

from __future__ import annotations

import base64
import os
import subprocess
import time
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxconform.conformance.judge._schemas import schema_errors
from ctxconform.reference.context_snapshot import (
    ContextSnapshots,
    GitRepository,
    ObjectId,
    Repositories,
    SnapshotStore,
    _repository,
    blob_id,
)
from ctxconform.reference.context_snapshot._git import run_git
from ctxconform.reference.context_snapshot._requests import create_request, item_request
from ctxconform.reference.exceptions import SpecError, StoreError

ACTOR = {"kind": "agent", "id": "a1"}


def git(repository: Path, *args: str, stdin: bytes = b"") -> bytes:
    """Run git in a repository."""
    return subprocess.run(["git", "-C", str(repository), *args], input=stdin, capture_output=True, check=True, timeout=60).stdout


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A SHA-1 and a SHA-256 bare repository made by git itself."""
    root = tmp_path_factory.mktemp("repos")
    for fmt in ("sha1", "sha256"):
        subprocess.run(["git", "init", "-q", "--bare", f"--object-format={fmt}", str(root / fmt)], check=True, timeout=60)
    return {fmt: root / fmt for fmt in ("sha1", "sha256")}


def service(state: Path, repos: Path) -> ContextSnapshots:
    """A service over a store in `state` and repositories under `repos` (initialized on first use)."""
    paths: dict[Any, Path] = {"sha1": repos / "sha1.git", "sha256": repos / "sha256.git"}
    return ContextSnapshots(SnapshotStore(state / "cs.sqlite3"), Repositories(paths))


def finalized(snapshots: ContextSnapshots, items: list[tuple[object, bytes]], algorithm: str = "sha1") -> str:
    """A finalized snapshot of (kind, content) items."""
    snapshot_id = snapshots.create_snapshot({"created_by": ACTOR, "selection_strategy": "explicit", "algorithm": algorithm})
    object_id = str(snapshot_id["snapshot"]["object_id"])
    for index, (kind, content) in enumerate(items):
        content_arg = {"base64": base64.b64encode(content).decode()}
        snapshots.add_item({"snapshot_id": object_id, "kind": kind, "path": f"p{index}", "content": content_arg})
    snapshots.finalize({"snapshot_id": object_id})
    return object_id


@settings(max_examples=60)
@given(content=st.binary(max_size=300) | st.text(max_size=80).map(str.encode))
def test_blob_id_is_what_git_hash_object_prints(bare: dict[str, Path], content: bytes) -> None:
    """blob_id agrees with `git hash-object` in a SHA-1 and a SHA-256 repository, for any bytes."""
    for fmt, repository in bare.items():
        expected = git(repository, "hash-object", "--stdin", stdin=content).decode().strip()
        assert blob_id(content, fmt).hex == expected  # type: ignore[arg-type]


@given(digest=st.binary(min_size=20, max_size=20) | st.binary(min_size=32, max_size=32))
def test_object_ids_read_back_from_hex_and_tagged_forms(digest: bytes) -> None:
    """An id parsed from its hex or its tagged form is the same id."""
    oid = ObjectId("sha1" if len(digest) == 20 else "sha256", digest)
    assert ObjectId.parse(oid.hex) == oid == ObjectId.parse(oid.tagged())


@pytest.mark.parametrize("value", ["", "A" * 40, "0" * 41, {"Sha1": [0] * 32}, {"Sha1": [True] * 20}, {"Md5": [0] * 16}, None])
def test_malformed_object_ids_raise_value_error(value: object) -> None:
    """Anything but 40/64 lowercase hex or a tagged byte array of the right size is a ValueError."""
    with pytest.raises(ValueError, match="blob id"):
        ObjectId.parse(value)


def test_open_initializes_an_empty_folder_with_the_asked_format(tmp_path: Path) -> None:
    """A missing folder becomes a bare repository of the object format asked for."""
    for fmt in ("sha1", "sha256"):
        repository = GitRepository.open(tmp_path / fmt, fmt)  # type: ignore[arg-type]
        assert git(repository.path, "rev-parse", "--show-object-format").decode().strip() == fmt
        assert git(repository.path, "rev-parse", "--is-bare-repository").decode().strip() == "true"


def test_open_refuses_the_wrong_format_and_a_folder_that_is_not_a_repository(tmp_path: Path, bare: dict[str, Path]) -> None:
    """A SHA-1 repository opened as SHA-256, or a non-empty plain folder, is a StoreError saying what to do."""
    with pytest.raises(StoreError, match="object format is sha1"):
        GitRepository.open(bare["sha1"], "sha256")
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "file.txt").write_text("x", encoding="utf-8")
    with pytest.raises(StoreError, match="not a Git repository"):
        GitRepository.open(tmp_path / "plain", "sha1")


def test_a_folder_inside_a_work_tree_gets_its_own_repository(tmp_path: Path) -> None:
    """An empty folder inside another repository's work tree is initialized, never mistaken for that repository."""
    subprocess.run(["git", "init", "-q", str(tmp_path / "outer")], check=True, timeout=60)
    inner = tmp_path / "outer" / "blobs"
    inner.mkdir()
    repository = GitRepository.open(inner, "sha1")
    oid = repository.write_blob(b"inner only")
    assert git(inner, "cat-file", "-p", oid.hex) == b"inner only"
    assert subprocess.run(["git", "-C", str(tmp_path / "outer"), "cat-file", "-e", oid.hex], check=False).returncode != 0


def test_writing_a_blob_twice_stores_it_once(tmp_path: Path) -> None:
    """write_blob is git hash-object -w: the second write of one content adds nothing."""
    repository = GitRepository.open(tmp_path / "r", "sha1")
    first = repository.write_blob(b"same")
    count = git(repository.path, "count-objects", "-v")
    assert repository.write_blob(b"same") == first
    assert git(repository.path, "count-objects", "-v") == count
    assert repository.read_blob(first) == b"same"
    assert repository.read_blob(blob_id(b"never written")) is None


@pytest.mark.parametrize("algorithm", ["sha1", "sha256"])
def test_a_blob_held_loose_is_found_written_and_read_without_starting_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, algorithm: Any
) -> None:
    """Writing content held already, checking it is there and reading it back start no git process."""
    repository = GitRepository.open(tmp_path / "r", algorithm)
    oid = repository.write_blob(b"held \x00 bytes")
    started: list[tuple[str, ...]] = []
    real = run_git

    def counted(path: Path, *args: str, **options: Any) -> bytes:
        started.append(args)
        return real(path, *args, **options)

    monkeypatch.setattr(_repository, "run_git", counted)
    assert repository.write_blob(b"held \x00 bytes") == oid
    assert repository.missing([oid]) == []
    assert repository.read_blob(oid) == b"held \x00 bytes"
    assert started == []
    assert repository.read_blob(blob_id(b"absent", algorithm)) is None
    assert repository.missing([blob_id(b"absent", algorithm)]) == [blob_id(b"absent", algorithm)]
    assert len(started) == 2  # what is not held loose, git is asked about


def test_writing_a_blob_held_loose_again_freshens_it_as_git_does(tmp_path: Path) -> None:
    """Its file's time becomes now, so that gc's expiry counts it as just written (git hash-object -w does the same)."""
    repository = GitRepository.open(tmp_path / "r", "sha1")
    oid = repository.write_blob(b"old")
    loose = tmp_path / "r" / "objects" / oid.hex[:2] / oid.hex[2:]
    three_weeks_ago = time.time() - 21 * 86400
    os.utime(loose, (three_weeks_ago, three_weeks_ago))
    assert repository.write_blob(b"old") == oid
    assert loose.stat().st_mtime > time.time() - 60
    git(repository.path, "prune", "--expire=2.weeks.ago")
    assert repository.read_blob(oid) == b"old"


def test_a_packed_blob_is_found_through_git(tmp_path: Path) -> None:
    """Once git gc packed a blob, no loose file names it: git is asked, and finds it."""
    repository = GitRepository.open(tmp_path / "r", "sha1")
    oid = repository.write_blob(b"packed")
    git(repository.path, "update-ref", "refs/keep/one", oid.hex)
    git(repository.path, "gc", "--prune=now", "--quiet")
    assert not (tmp_path / "r" / "objects" / oid.hex[:2] / oid.hex[2:]).exists()
    assert repository.read_blob(oid) == b"packed"
    assert repository.missing([oid]) == []
    assert repository.write_blob(b"packed") == oid


def test_a_loose_file_that_is_not_a_readable_blob_is_left_to_git(tmp_path: Path) -> None:
    """A loose file whose header does not fit its content is not trusted: the answer is git's, whatever git makes of it."""
    repository = GitRepository.open(tmp_path / "r", "sha1")
    oid = repository.write_blob(b"real")
    loose = tmp_path / "r" / "objects" / oid.hex[:2] / oid.hex[2:]
    loose.chmod(0o644)
    loose.write_bytes(zlib.compress(b"blob 99\x00real"))
    git_only = GitRepository(repository.path, "sha1")  # no loose-object path: every read asks git
    assert repository.read_blob(oid) == git_only.read_blob(oid)
    loose.write_bytes(b"not zlib at all")
    assert repository.read_blob(oid) == git_only.read_blob(oid)


@pytest.mark.parametrize("strategy", ["ref_anchoring", "orphan_commit", "keep_pack"])
@pytest.mark.parametrize("algorithm", ["sha1", "sha256"])
def test_retained_blobs_survive_gc_and_unretained_ones_do_not(tmp_path: Path, strategy: str, algorithm: str) -> None:
    """After retain, git gc --prune=now keeps every non-File blob; a File blob outside any tree is left to the commit tree."""
    snapshots = service(tmp_path, tmp_path)
    items: list[tuple[object, bytes]] = [
        ("url", b"page"),
        ("image", bytes(range(256))),
        ({"other": "log"}, b"log"),
        ("file", b"f"),
    ]
    object_id = finalized(snapshots, items, algorithm)
    result = snapshots.retain({"snapshot_id": object_id, "strategy": strategy})
    assert sorted(result["retained"]) == sorted(blob_id(c, algorithm).hex for k, c in items if k != "file")  # type: ignore[arg-type]
    repository = tmp_path / f"{algorithm}.git"
    git(repository, "gc", "--prune=now", "--quiet")
    for kind, content in items:
        oid = blob_id(content, algorithm)  # type: ignore[arg-type]
        found = subprocess.run(["git", "-C", str(repository), "cat-file", "-e", oid.hex], check=False).returncode == 0
        assert found == (kind != "file")


def test_retain_refuses_custom_gc_mark_and_pruned_blobs(tmp_path: Path) -> None:
    """custom_gc_mark is not carried out; blobs pruned before retain are BLOB_NOT_FOUND, not a git failure."""
    snapshots = service(tmp_path, tmp_path)
    object_id = finalized(snapshots, [("snippet", b"soon pruned")])
    with pytest.raises(SpecError) as refused:
        snapshots.retain({"snapshot_id": object_id, "strategy": "custom_gc_mark"})
    assert refused.value.code == "UNSUPPORTED_STRATEGY"
    git(tmp_path / "sha1.git", "gc", "--prune=now", "--quiet")
    with pytest.raises(SpecError) as pruned:
        snapshots.retain({"snapshot_id": object_id, "strategy": "ref_anchoring"})
    assert pruned.value.code == "BLOB_NOT_FOUND"


def test_snapshots_survive_closing_and_reopening_the_store(tmp_path: Path) -> None:
    """A finalized snapshot and a draft read back identical from a reopened store."""
    snapshots = service(tmp_path, tmp_path)
    done = finalized(snapshots, [("file", b"a"), ("snippet", b"b")])
    draft = str(snapshots.create_snapshot({"created_by": ACTOR, "selection_strategy": "heuristic"})["snapshot"]["object_id"])
    snapshots.add_item({"snapshot_id": draft, "kind": "url", "path": "https://later"})
    before = [snapshots.get_snapshot({"snapshot_id": s}) for s in (done, draft)]
    snapshots.store.close()
    reopened = service(tmp_path, tmp_path)
    assert [reopened.get_snapshot({"snapshot_id": s}) for s in (done, draft)] == before
    with pytest.raises(SpecError) as refused:
        reopened.add_item({"snapshot_id": done, "kind": "url", "path": "x"})
    assert refused.value.code == "SNAPSHOT_FINALIZED"


def test_a_refused_change_writes_no_blob(tmp_path: Path) -> None:
    """Adding content to a finalized snapshot is refused before the content reaches the repository."""
    snapshots = service(tmp_path, tmp_path)
    object_id = finalized(snapshots, [("snippet", b"in")])
    with pytest.raises(SpecError):
        snapshots.add_item({"snapshot_id": object_id, "kind": "snippet", "path": "p", "content": {"text": "never stored"}})
    assert subprocess.run(
        ["git", "-C", str(tmp_path / "sha1.git"), "cat-file", "-e", blob_id(b"never stored").hex], check=False
    ).returncode


def test_finalize_refuses_an_item_whose_blob_was_pruned(tmp_path: Path) -> None:
    """A draft item whose blob git gc pruned cannot be finalized: BLOB_NOT_FOUND names it."""
    snapshots = service(tmp_path, tmp_path)
    draft = str(snapshots.create_snapshot({"created_by": ACTOR, "selection_strategy": "explicit"})["snapshot"]["object_id"])
    snapshots.add_item({"snapshot_id": draft, "kind": "command", "path": "ls", "content": {"text": "gone"}})
    git(tmp_path / "sha1.git", "gc", "--prune=now", "--quiet")
    with pytest.raises(SpecError) as refused:
        snapshots.finalize({"snapshot_id": draft})
    assert refused.value.code == "BLOB_NOT_FOUND"


UUID = "0b7e7d7e-4a5b-4c3d-8e9f-0a1b2c3d4e5f"
NAMES = st.sampled_from(["file", "url", "image", "video", "", " "]) | st.fixed_dictionaries(
    {"other": st.sampled_from(["x", "", " "])}
)
TEXTS = st.sampled_from(["p", "", " ", "\t", "\u3000", "\x1c", "\ufeff", "a b", "x" * 4097]) | st.integers() | st.none()
ITEMS = st.fixed_dictionaries(
    {"snapshot_id": st.sampled_from([UUID, UUID.upper(), "nope"]), "kind": NAMES, "path": TEXTS},
    optional={
        "content": st.sampled_from([{"text": "t"}, {"base64": "YQ=="}, {"base64": "YQ"}, {"base64": "YR=="}, {}, "x"]),
        "preview": TEXTS,
        "blob": st.just("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"),
    },
)
CREATES = st.fixed_dictionaries(
    {"created_by": st.sampled_from([ACTOR, {"kind": "a", "id": " "}, {"kind": "a", "id": "b", "display_name": None}, "a"])},
    optional={
        "selection_strategy": st.sampled_from(["explicit", "heuristic", "Explicit", None]),
        "summary": TEXTS,
        "algorithm": st.sampled_from(["sha1", "sha256", "md5"]),
    },
)


def accepts(parse: Any, args: object) -> bool:
    """Whether the reference's request check accepts the arguments."""
    try:
        parse(args)
    except SpecError:
        return False
    return True


@settings(max_examples=300)
@given(args=ITEMS)
def test_add_item_checks_agree_with_the_request_schema(args: dict[str, Any]) -> None:
    """The reference accepts an add_item request exactly when add_item.request.json does (one shape, two encodings)."""
    assert accepts(item_request, args) == (schema_errors("context-snapshot/add_item.request.json", args) == [])


@settings(max_examples=200)
@given(args=CREATES)
def test_create_checks_agree_with_the_request_schema(args: dict[str, Any]) -> None:
    """The reference accepts a create_snapshot request exactly when create_snapshot.request.json does."""
    assert accepts(create_request, args) == (schema_errors("context-snapshot/create_snapshot.request.json", args) == [])
