"""Golden scripts: the scenarios of fixtures/context-snapshot, answers normalized and compared part by part."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from syrupy.assertion import SnapshotAssertion

from ctxconform.conformance.suites.context_snapshot.client import (
    SPEC,
    Snapshots,
    actor_as_given,
    as_content,
    blob_hex,
    content_bytes,
    item_blob,
)
from ctxconform.conformance.suites.context_snapshot.repository import Repository
from ctxconform.conformance.testing import (
    GoldenPart,
    GoldenScript,
    GoldenStep,
    check_equal,
    fixtures_dir,
    golden_params,
    load_script,
    replay_script,
)

FOLDER: Final = fixtures_dir() / SPEC
Json = dict[str, Any]


class Replay:
    """Runs a script's steps: binds each new snapshot to its alias, checks blobs against git, cuts answers into parts."""

    def __init__(self, snapshots: Snapshots, repos: dict[str, Repository], script: GoldenScript) -> None:
        self.snapshots = snapshots
        self.repos = repos
        self.script = script
        self.ids: dict[str, str] = {}
        self.algorithms: dict[str, str] = {}
        self.file_blobs: dict[str, set[str]] = {}  # per snapshot: the blobs only its File items have

    def expand(self, value: Any) -> Any:
        """The arguments with "$alias" replaced by the object_id of the snapshot bound to that alias."""
        if isinstance(value, str) and value.startswith("$"):
            if value[1:] not in self.ids:
                raise RuntimeError(f"{self.script.description[:40]}...: no earlier step binds {value}")
            return self.ids[value[1:]]
        if isinstance(value, dict):
            return {key: self.expand(inner) for key, inner in value.items()}
        if isinstance(value, list):
            return [self.expand(inner) for inner in value]
        return value

    def owner(self, step: GoldenStep, part: str) -> str:
        """The requirement owning one part of a step's answer."""
        return step.owner_of(part, self.script.owner)

    def answer(self, _index: int, step: GoldenStep) -> Iterator[GoldenPart]:
        """One step: its call, the checks against git, and its normalized answer in parts."""
        args = self.expand(step.args)
        answered = self.snapshots.send(step.op, args, serves=step.owner or self.script.owner)
        content = self.content_of(step, args)
        hashed = None if content is None else self.check_hash(step, args, content)
        if answered.ok:
            result = answered.result
            self.bind(step, args, result)
            if content is not None:
                self.check_blob(step, args, content, result)
            yield from self.parts(answered.op, result, args)
        else:
            yield GoldenPart(name="error", value=answered.code)
        if hashed is not None:
            yield GoldenPart(name="hash", value=hashed)

    @staticmethod
    def content_of(step: GoldenStep, args: Any) -> bytes | None:
        """The bytes a valid step hands over as content, if any."""
        if step.invalid or not isinstance(args, dict) or not isinstance(args.get("content"), dict):
            return None
        return content_bytes(args["content"])

    def algorithm(self, args: Json) -> str:
        """The object format a step's blobs are in: its snapshot's, or hash_content's own argument."""
        if "snapshot_id" in args:
            return self.algorithms.get(str(args["snapshot_id"]).lower(), "sha1")
        return str(args.get("algorithm", "sha1"))

    def bind(self, step: GoldenStep, args: Json, result: Json) -> None:
        """Remember the snapshot a step creates under the step's alias."""
        if step.bind is None:
            return
        object_id = str(result["snapshot"]["object_id"]).lower()
        self.ids[step.bind] = object_id
        self.algorithms[object_id] = str(args.get("algorithm", "sha1"))

    def check_hash(self, step: GoldenStep, args: Json, content: bytes) -> str:
        """hash_content of a step's content is `git hash-object` of it (what every blob of this content must be)."""
        algorithm = self.algorithm(args)
        wanted = self.owner(step, "hash") if step.op != "hash_content" else self.owner(step, "blob")
        got = self.snapshots.hash(content, algorithm, serves=wanted)
        check_equal(wanted, got, self.repos[algorithm].hash_object(content), "hash_content of the step's content", sent=content)
        return got

    def check_blob(self, step: GoldenStep, args: Json, content: bytes, result: Json) -> None:
        """An item's blob is the Git id of the content it was given, and the repository holds that content."""
        if "item" not in result:
            return
        repository = self.repos[self.algorithm(args)]
        wanted, expected = self.owner(step, "blob"), repository.hash_object(content)
        check_equal(wanted, item_blob(result["item"]), expected, "the item's blob", sent=content)
        check_equal(wanted, repository.blob(expected), content, f"the content the repository holds as {expected}")

    def parts(self, op: str, result: Json, args: Any) -> Iterator[GoldenPart]:
        """What conforming implementations share, in parts: aliases for ids, hex blob ids, no timestamps."""
        if "snapshot" in result:
            items = result["snapshot"].get("items") or []
            self.file_blobs[str(result["snapshot"]["object_id"]).lower()] = file_only_blobs(items)
            yield GoldenPart(name="state", value=result["state"])
            yield GoldenPart(name="header", value=self.header(result["snapshot"]))
            yield GoldenPart(name="items", value=[with_blob(i) for i in items])
        elif "item" in result:
            yield GoldenPart(name="index", value=result["index"])
            yield GoldenPart(name="item", value=shown_item(result["item"]))
            yield GoldenPart(name="blob", value=item_blob(result["item"]))
        elif op == "hash_content":
            yield GoldenPart(name="blob", value=blob_hex(result["blob"]))
        elif op == "read_blob":
            yield GoldenPart(name="content", value=as_content(content_bytes(result["content"])))
        else:
            # Keeping a File blob as well is harmless ("For File items this is not a concern"): only the others count.
            snapshot_id = args.get("snapshot_id") if isinstance(args, dict) else None
            kept_anyway = self.file_blobs.get(str(snapshot_id).lower(), set())
            retained = {blob_hex(b) for b in result["retained"]} - kept_anyway
            yield GoldenPart(name="retained", value=sorted(retained))

    def header(self, snapshot: Json) -> Json:
        """A snapshot's fields but its items: its object_id as its alias, created_at hidden (the schema checked it)."""
        aliases = {object_id: alias for alias, object_id in self.ids.items()}
        shown: Json = {
            "object_id": f"${aliases.get(str(snapshot['object_id']).lower(), '<new>')}",
            "object_type": snapshot["object_type"],
            "created_at": "<timestamp>",
            "created_by": actor_as_given(snapshot["created_by"]),
            "selection_strategy": snapshot["selection_strategy"],
        }
        if snapshot.get("summary") is not None:
            shown["summary"] = snapshot["summary"]
        return shown


def shown_item(found: Json) -> Json:
    """An item's kind, path and preview (when it has one: absent and null are alike)."""
    return {key: found[key] for key in ("kind", "path", "preview") if found.get(key) is not None}


def file_only_blobs(items: list[Json]) -> set[str]:
    """The blobs of a snapshot's File items that none of its other items has."""
    files = {item_blob(i) for i in items if i.get("kind") == "file"}
    others = {item_blob(i) for i in items if i.get("kind") != "file"}
    return {blob for blob in files - others if blob is not None}


def with_blob(found: Json) -> Json:
    """An item with its blob in hex, and no blob field when it has none (absent or null)."""
    blob = item_blob(found)
    return shown_item(found) if blob is None else shown_item(found) | {"blob": blob}


@pytest.mark.parametrize("script", golden_params(FOLDER))
def test_scripted_snapshots_match_the_golden_snapshot(
    snapshots: Snapshots, repos: dict[str, Repository], script: Path, snapshot: SnapshotAssertion
) -> None:
    """A script's answers, with ids as aliases and timestamps hidden, match the golden snapshot part by part."""
    loaded = load_script(script)
    replay_script(loaded, Replay(snapshots, repos, loaded).answer, snapshot)
