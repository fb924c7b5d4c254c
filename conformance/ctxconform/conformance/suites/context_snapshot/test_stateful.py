"""Stateful test: random drafts, items, removals and finalizations, checked against a model of what each must give."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, rule, run_state_machine_as_test

from ctxconform.conformance.suites.context_snapshot import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.context_snapshot.client import (
    SPEC,
    Snapshots,
    as_content,
    item_blob,
    items_of,
    previews_as_given,
)
from ctxconform.conformance.suites.context_snapshot.repository import Repository
from ctxconform.conformance.suites.context_snapshot.strategies import KINDS
from ctxconform.conformance.testing import Checked, check_equal, needs_feature, requirement, unique_hex

NO_CHANGE: Final = R.DEFINITION_NO_CHANGE_AFTER_CREATION
ORDER: Final = R.STRUCTS_CONTEXT_ITEM
FINALIZED: Final = R.ITEMS_BLOB_SET_WHEN_FINALIZED
LAYERS: Final = R.ITEMS_THREE_LAYERS
# A small pool, so that contents repeat across items and snapshots; plus fresh bytes now and then.
CONTENTS: Final = st.sampled_from([b"", b"a", b"hello\n", bytes(range(16)), "\u2603".encode()]) | st.binary(max_size=24)
PATHS: Final = st.sampled_from(["src/main.rs", "https://docs.rs/", "cargo test", "notes", "\u30e1\u30e2"])
PREVIEWS: Final = st.none() | st.text(max_size=12)
Item = tuple[Any, Any, Any, str | None]


@dataclass
class Expected:
    """What the model says a snapshot holds."""

    finalized: bool = False
    items: list[Item] = field(default_factory=list)
    sealed: list[Item] = field(default_factory=list)  # the items finalize answered


class SnapshotMachine(RuleBasedStateMachine):
    """Every answer must be what the model predicts; blob ids come from `git hash-object`.

    One machine per object format, each checking every answer: the sha256 case checks its blob ids and their storage
    under blob-sha256 and the rest as the sha1 case does. A machine that left an answer unchecked would go on with a
    model the implementation no longer matches, and fail a later, unrelated call instead.
    """

    client: ClassVar[Snapshots]
    repository: ClassVar[Repository]
    hashing: ClassVar[str]
    storing: ClassVar[str]
    checked: ClassVar[frozenset[str]]
    ids = Bundle("snapshots")

    def __init__(self) -> None:
        super().__init__()
        self.model: dict[str, Expected] = {}
        self.hashes: dict[bytes, str] = {}
        # The repositories outlive each run of the machine: content of its own keeps whether a blob is held from
        # depending on what earlier runs stored, so a failure replays the same (hypothesis needs that to shrink).
        self.own = f"{unique_hex()}\n".encode()

    def verify(self, requirement_id: str, received: object, expected: object, what: str) -> None:
        """Check `what` under `requirement_id` when this test checks that requirement."""
        if requirement_id in self.checked:
            check_equal(requirement_id, received, expected, what)

    def refusal(self, answered: Checked, requirement_id: str, *codes: str) -> None:
        """Check a refusal under `requirement_id` when this test checks that requirement."""
        if requirement_id in self.checked:
            answered.refused(requirement_id, *codes)

    def blob(self, content: bytes) -> str:
        """The Git id of some content in the machine's repository."""
        if content not in self.hashes:
            self.hashes[content] = self.repository.hash_object(content)
        return self.hashes[content]

    @rule(target=ids, strategy=st.sampled_from(["explicit", "heuristic"]))
    def create(self, strategy: str) -> str:
        """Create a draft in the machine's object format."""
        algorithm = None if self.repository.object_format == "sha1" else self.repository.object_format
        snapshot_id = self.client.create(strategy=strategy, algorithm=algorithm)
        self.model[snapshot_id] = Expected()
        return snapshot_id

    @rule(snapshot_id=ids, kind=st.sampled_from(KINDS), path=PATHS, content=st.none() | CONTENTS, preview=PREVIEWS)
    def add(self, snapshot_id: str, kind: str, path: str, content: bytes | None, preview: str | None) -> None:
        """Add an item, with or without content: refused once finalized."""
        expected = self.model[snapshot_id]
        content = None if content is None else self.own + content
        added = self.client.add(snapshot_id, kind, path, content, preview=preview)
        if expected.finalized:
            self.refusal(added, NO_CHANGE, "SNAPSHOT_FINALIZED")
            return
        answer = added.result
        blob = None if content is None else self.blob(content)
        self.verify(ORDER, answer["index"], len(expected.items), "the index of an added item")
        self.verify(self.hashing, item_blob(answer["item"]), blob, f"the blob of {content!r}")
        expected.items.append((kind, path, preview, blob))

    @rule(snapshot_id=ids, index=st.integers(0, 4), content=CONTENTS)
    def set_content(self, snapshot_id: str, index: int, content: bytes) -> None:
        """Set an item's content: refused once finalized, or past the last item."""
        expected = self.model[snapshot_id]
        content = self.own + content
        answered = self.client.request(
            "set_item_content", snapshot_id=snapshot_id, index=index, content=as_content(content, text=False)
        )
        if expected.finalized or index >= len(expected.items):
            self.refusal(answered, NO_CHANGE if expected.finalized else ORDER, *self.refusals(expected, index))
            return
        blob = self.blob(content)
        self.verify(self.hashing, item_blob(answered.result["item"]), blob, "the blob set_item_content answered")
        kind, path, preview, _ = expected.items[index]
        expected.items[index] = (kind, path, preview, blob)

    @rule(snapshot_id=ids, index=st.integers(0, 4))
    def remove(self, snapshot_id: str, index: int) -> None:
        """Remove an item: refused once finalized, or past the last item."""
        expected = self.model[snapshot_id]
        answered = self.client.request("remove_item", snapshot_id=snapshot_id, index=index)
        if expected.finalized or index >= len(expected.items):
            self.refusal(answered, NO_CHANGE if expected.finalized else ORDER, *self.refusals(expected, index))
            return
        _ = answered.result
        expected.items.pop(index)

    @rule(snapshot_id=ids)
    def finalize(self, snapshot_id: str) -> None:
        """Finalize: refused while an item has no blob; finalizing again changes nothing."""
        expected = self.model[snapshot_id]
        answered = self.client.request("finalize", snapshot_id=snapshot_id)
        if expected.finalized:
            if not answered.ok:
                self.refusal(answered, NO_CHANGE, "SNAPSHOT_FINALIZED")
            return
        if any(blob is None for *_, blob in expected.items):
            self.refusal(answered, FINALIZED, "ITEM_WITHOUT_BLOB")
            return
        # finalize may refuse a blob the repository lacks: that is the blob's failure, checked first.
        held = {blob: self.repository.blob(str(blob)) is not None for *_, blob in expected.items}
        self.verify(self.storing, held, dict.fromkeys(held, True), "whether the repository holds each item's blob")
        result = answered.expect(FINALIZED) if FINALIZED in self.checked else answered.result
        expected.finalized = True
        expected.sealed = read_items(result)

    @rule(snapshot_id=ids)
    def check(self, snapshot_id: str) -> None:
        """Read a snapshot back: its state and items are the model's, and a finalized one's are what finalize answered."""
        expected = self.model[snapshot_id]
        result = self.client.get(snapshot_id)
        state = "finalized" if expected.finalized else "draft"
        self.verify(NO_CHANGE if expected.finalized else ORDER, result["state"], state, "the state read back")
        got = read_items(result)
        order = [(kind, path) for kind, path, *_ in expected.items]
        self.verify(ORDER, [(kind, path) for kind, path, *_ in got], order, "the items' kinds and paths, in order")
        as_given = previews_as_given(got, expected.items)
        self.verify(LAYERS, as_given, expected.items, "the items read back (kind, path, preview, blob)")
        if expected.finalized:
            self.verify(NO_CHANGE, got, expected.sealed, "the items of a finalized snapshot")

    @staticmethod
    def refusals(expected: Expected, index: int) -> tuple[str, ...]:
        """The codes a refused change may carry."""
        codes = ("SNAPSHOT_FINALIZED",) if expected.finalized else ()
        return (*codes, "ITEM_NOT_FOUND") if index >= len(expected.items) else codes


SHA1_CHECKS: Final = (NO_CHANGE, ORDER, FINALIZED, LAYERS, R.ITEMS_BLOB_GIT_HASH, R.ITEMS_BLOB_HOLDS_FULL_CONTENT)
SHA256_CHECKS: Final = (NO_CHANGE, ORDER, FINALIZED, LAYERS, R.ITEMS_BLOB_SHA256)


def read_items(result: dict[str, Any]) -> list[Item]:
    """A snapshot result's items as the model holds them."""
    return [(i.get("kind"), i.get("path"), i.get("preview"), item_blob(i)) for i in items_of(result)]


@pytest.mark.parametrize(
    ("algorithm", "checked"),
    [
        pytest.param("sha1", SHA1_CHECKS, id="sha1", marks=requirement(*SHA1_CHECKS)),
        pytest.param("sha256", SHA256_CHECKS, id="sha256", marks=requirement(*SHA256_CHECKS)),
    ],
)
def test_random_operation_sequences_match_the_model(
    snapshots: Snapshots, repos: dict[str, Repository], algorithm: str, checked: tuple[str, ...]
) -> None:
    """Random drafts, additions, content changes, removals, finalizations and reads all answer as the model predicts."""
    if algorithm == "sha256":
        needs_feature(SPEC, "sha256")  # it declares requirements without a feature too: skip before anything is sent
    hashing = R.ITEMS_BLOB_GIT_HASH if algorithm == "sha1" else R.ITEMS_BLOB_SHA256
    storing = R.ITEMS_BLOB_HOLDS_FULL_CONTENT if algorithm == "sha1" else R.ITEMS_BLOB_SHA256
    attributes = {
        "client": snapshots,
        "repository": repos[algorithm],
        "hashing": hashing,
        "storing": storing,
        "checked": frozenset(checked),
    }
    run_state_machine_as_test(type("Machine", (SnapshotMachine,), attributes))
