"""Stateful test: random drafts, items, removals and finalizations, checked against a model of what each must give."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, rule, run_state_machine_as_test

from ctxconform.conformance.suites.context_snapshot.client import (
    FINALIZED,
    HASH,
    HASH_SHA256,
    ITEM,
    NO_CHANGE,
    Snapshots,
    as_content,
    item_blob,
    items_of,
    require,
)
from ctxconform.conformance.suites.context_snapshot.repository import Repository
from ctxconform.conformance.suites.context_snapshot.strategies import KINDS

ORDER: Final = "context-snapshot/structs/context-item"
# A small pool, so that contents repeat across items and snapshots; plus fresh bytes now and then.
CONTENTS: Final = st.sampled_from([b"", b"a", b"hello\n", bytes(range(16)), "\u2603".encode()]) | st.binary(max_size=24)
PATHS: Final = st.sampled_from(["src/main.rs", "https://docs.rs/", "cargo test", "notes", "\u30e1\u30e2"])
PREVIEWS: Final = st.none() | st.text(max_size=12)


@dataclass
class Expected:
    """What the model says a snapshot holds."""

    algorithm: str
    finalized: bool = False
    items: list[tuple[Any, str, str | None, str | None]] = field(default_factory=list)


class SnapshotMachine(RuleBasedStateMachine):
    """Every answer must be what the model predicts; blob ids come from `git hash-object`."""

    client: ClassVar[Snapshots]
    repos: ClassVar[dict[str, Repository]]
    ids = Bundle("snapshots")

    def __init__(self) -> None:
        super().__init__()
        self.model: dict[str, Expected] = {}
        self.hashes: dict[tuple[bytes, str], str] = {}

    def blob(self, content: bytes, algorithm: str) -> str:
        """The Git id of some content in the repository of that format."""
        if (content, algorithm) not in self.hashes:
            self.hashes[content, algorithm] = self.repos[algorithm].hash_object(content)
        return self.hashes[content, algorithm]

    @rule(target=ids, strategy=st.sampled_from(["explicit", "heuristic"]), sha256=st.booleans())
    def create(self, strategy: str, sha256: bool) -> str:
        """Create a draft, SHA-256 now and then when the implementation declares it."""
        algorithm = "sha256" if sha256 and "sha256" in self.client.features else "sha1"
        snapshot_id = self.client.create(strategy=strategy, algorithm=None if algorithm == "sha1" else algorithm)
        self.model[snapshot_id] = Expected(algorithm)
        return snapshot_id

    @rule(snapshot_id=ids, kind=st.sampled_from(KINDS), path=PATHS, content=st.none() | CONTENTS, preview=PREVIEWS)
    def add(self, snapshot_id: str, kind: str, path: str, content: bytes | None, preview: str | None) -> None:
        """Add an item, with or without content: refused once finalized."""
        expected = self.model[snapshot_id]
        outcome = self.client.add(snapshot_id, kind, path, content, preview=preview)
        if expected.finalized:
            outcome.refused(NO_CHANGE, "SNAPSHOT_FINALIZED")
            return
        answer = outcome.result(ITEM)
        blob = None if content is None else self.blob(content, expected.algorithm)
        require(
            answer["index"] == len(expected.items), ORDER, f"item added at index {answer['index']}, not {len(expected.items)}"
        )
        require(
            item_blob(answer["item"]) == blob, HASH_SHA256 if expected.algorithm == "sha256" else HASH, f"blob of {content!r}"
        )
        expected.items.append((kind, path, preview, blob))

    @rule(snapshot_id=ids, index=st.integers(0, 4), content=CONTENTS)
    def set_content(self, snapshot_id: str, index: int, content: bytes) -> None:
        """Set an item's content: refused once finalized, or past the last item."""
        expected = self.model[snapshot_id]
        outcome = self.client.call(
            "set_item_content", snapshot_id=snapshot_id, index=index, content=as_content(content, text=False)
        )
        if expected.finalized or index >= len(expected.items):
            outcome.refused(NO_CHANGE if expected.finalized else ORDER, *self.refusals(expected, index))
            return
        blob = self.blob(content, expected.algorithm)
        got = item_blob(outcome.result(ITEM)["item"])
        require(
            got == blob, HASH_SHA256 if expected.algorithm == "sha256" else HASH, f"set_item_content gave blob {got}, not {blob}"
        )
        kind, path, preview, _ = expected.items[index]
        expected.items[index] = (kind, path, preview, blob)

    @rule(snapshot_id=ids, index=st.integers(0, 4))
    def remove(self, snapshot_id: str, index: int) -> None:
        """Remove an item: refused once finalized, or past the last item."""
        expected = self.model[snapshot_id]
        outcome = self.client.call("remove_item", snapshot_id=snapshot_id, index=index)
        if expected.finalized or index >= len(expected.items):
            outcome.refused(NO_CHANGE if expected.finalized else ORDER, *self.refusals(expected, index))
            return
        outcome.result(ITEM)
        expected.items.pop(index)

    @rule(snapshot_id=ids)
    def finalize(self, snapshot_id: str) -> None:
        """Finalize: refused while an item has no blob; finalizing again changes nothing."""
        expected = self.model[snapshot_id]
        outcome = self.client.call("finalize", snapshot_id=snapshot_id)
        if expected.finalized:
            if not outcome.ok:
                outcome.refused(NO_CHANGE, "SNAPSHOT_FINALIZED")
            return
        if any(blob is None for *_, blob in expected.items):
            outcome.refused(FINALIZED, "ITEM_WITHOUT_BLOB")
            return
        outcome.result(FINALIZED)
        expected.finalized = True

    @rule(snapshot_id=ids)
    def check(self, snapshot_id: str) -> None:
        """Read a snapshot back: its state and items are the model's."""
        expected = self.model[snapshot_id]
        result = self.client.get(snapshot_id)
        wanted = "finalized" if expected.finalized else "draft"
        requirement = NO_CHANGE if expected.finalized else ORDER
        require(result["state"] == wanted, requirement, f"the snapshot is {result['state']}, expected {wanted}")
        got = [(i.get("kind"), i.get("path"), i.get("preview"), item_blob(i)) for i in items_of(result)]
        require(got == expected.items, requirement, f"items read back as {got}, expected {expected.items}")

    @staticmethod
    def refusals(expected: Expected, index: int) -> tuple[str, ...]:
        """The codes a refused change may carry."""
        codes = ("SNAPSHOT_FINALIZED",) if expected.finalized else ()
        return (*codes, "ITEM_NOT_FOUND") if index >= len(expected.items) else codes


@pytest.mark.requirement(NO_CHANGE, ORDER, FINALIZED, HASH, HASH_SHA256, ITEM)
def test_random_operation_sequences_match_the_model(snapshots: Snapshots, repos: dict[str, Repository]) -> None:
    """Random drafts, additions, content changes, removals, finalizations and reads all answer as the model predicts."""
    machine = type("Machine", (SnapshotMachine,), {"client": snapshots, "repos": repos})
    run_state_machine_as_test(machine)
