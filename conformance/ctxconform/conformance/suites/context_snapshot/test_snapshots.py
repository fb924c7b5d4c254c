"""Snapshot tests: the scripts of fixtures/context-snapshot, answers normalized and compared with the golden snapshots."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any, Final

import pytest
from syrupy.assertion import SnapshotAssertion

from ctxconform.conformance._data import fixtures_dir
from ctxconform.conformance.exceptions import RequirementFailure
from ctxconform.conformance.suites.context_snapshot.client import (
    HASH,
    HASH_SHA256,
    RECORD,
    SPEC,
    Outcome,
    Snapshots,
    as_content,
    blob_hex,
    content_bytes,
    item_blob,
    require,
)
from ctxconform.conformance.suites.context_snapshot.repository import Repository

requirement = pytest.mark.requirement

SCRIPTS: Final = sorted((fixtures_dir() / SPEC).glob("*.json"))
Json = dict[str, Any]


def load(script: Path) -> Json:
    """A script: description, features, the requirements a difference breaks, and its steps."""
    fixture: Json = json.loads(script.read_text(encoding="utf-8"))
    return fixture


# Every requirement some script is about, plus the blob ids every script checks against git.
REQUIREMENTS: Final = sorted({r for script in SCRIPTS for r in load(script)["requirements"]} | {HASH, HASH_SHA256})


class Replay:
    """Runs a script's steps, naming each snapshot by the alias the script gives it."""

    def __init__(self, snapshots: Snapshots, repos: dict[str, Repository], charge: str) -> None:
        self.snapshots = snapshots
        self.repos = repos
        self.charge = charge  # what a malformed answer breaks: the script's first requirement
        self.ids: dict[str, str] = {}
        self.algorithms: dict[str, str] = {}

    def expand(self, value: Any) -> Any:
        """The arguments with "$alias" replaced by the snapshot's object_id."""
        if isinstance(value, str) and value.startswith("$"):
            return self.ids[value[1:]]
        if isinstance(value, dict):
            return {key: self.expand(inner) for key, inner in value.items()}
        if isinstance(value, list):
            return [self.expand(inner) for inner in value]
        return value

    def step(self, step: Json) -> Json:
        """One step: its call and its normalized answer."""
        args = self.expand(step["args"])
        outcome = self.snapshots.send(step["op"], args)
        if outcome.ok and "as" in step:
            self.ids[step["as"]] = str(outcome.result(self.charge)["snapshot"]["object_id"]).lower()
            self.algorithms[self.ids[step["as"]]] = args.get("algorithm", "sha1")
        if outcome.ok and isinstance(args, dict) and isinstance(args.get("content"), dict):
            self.check_blob(args, outcome.result(self.charge))
        return {"op": step["op"], "args": step["args"], "answer": self.answer(outcome)}

    def check_blob(self, args: Json, result: Json) -> None:
        """A blob computed from given content is `git hash-object` of it: a wrong one fails the hash requirement alone."""
        algorithm = args.get("algorithm", "sha1") if "snapshot_id" not in args else self.algorithms[args["snapshot_id"]]
        expected = self.repos[algorithm].hash_object(content_bytes(args["content"]))
        got = blob_hex(result["blob"]) if "blob" in result else item_blob(result["item"])
        require(got == expected, HASH if algorithm == "sha1" else HASH_SHA256, f"blob {got}; git hash-object gives {expected}")

    def answer(self, outcome: Outcome) -> Json:
        """What conforming implementations share: codes, aliases for ids, hex blob ids, no timestamps."""
        if not outcome.ok:
            return {"error": outcome.code}
        result = outcome.result(self.charge)
        op = outcome.action
        if "snapshot" in result:
            return {"state": result["state"], "snapshot": self.record(result["snapshot"])}
        if "item" in result:
            return {"index": result["index"], "item": item(result["item"])}
        if op == "hash_content":
            return {"blob": blob_hex(result["blob"])}
        if op == "read_blob":
            return {"content": as_content(content_bytes(result["content"]))}
        return {"retained": sorted(blob_hex(b) for b in result["retained"])}

    def record(self, snapshot: Json) -> Json:
        """A snapshot with its object_id as its alias and its created_at checked, then hidden."""
        aliases = {object_id: alias for alias, object_id in self.ids.items()}
        created = datetime.fromisoformat(str(snapshot["created_at"]))
        require(created.utcoffset() is not None, RECORD, f"created_at {snapshot['created_at']!r} is not a UTC timestamp")
        shown: Json = {
            "object_id": f"${aliases.get(str(snapshot['object_id']).lower(), '<new>')}",
            "object_type": snapshot["object_type"],
            "created_at": "<timestamp>",
            "created_by": snapshot["created_by"],
            "selection_strategy": snapshot["selection_strategy"],
            "items": [item(i) for i in snapshot.get("items", [])],
        }
        if snapshot.get("summary") is not None:
            shown["summary"] = snapshot["summary"]
        return shown


def item(found: Json) -> Json:
    """An item with its blob in hex, and no blob field when it has none (absent or null)."""
    shown: Json = {key: found[key] for key in ("kind", "path", "preview") if key in found}
    blob = item_blob(found)
    return shown if blob is None else shown | {"blob": blob}


@requirement(*REQUIREMENTS)
@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_scripted_snapshots_match_the_golden_snapshot(
    snapshots: Snapshots, repos: dict[str, Repository], script: Path, snapshot: SnapshotAssertion
) -> None:
    """A script's answers, with ids as aliases and timestamps hidden, match the golden snapshot."""
    fixture = load(script)
    for feature in fixture["features"]:
        snapshots.needs(feature)
    replay = Replay(snapshots, repos, fixture["requirements"][0])
    transcript = [replay.step(step) for step in fixture["steps"]]
    try:
        assert transcript == snapshot
    except AssertionError as error:
        # A difference is charged to what the script is about, not to every requirement a script could touch.
        failures = [
            RequirementFailure(r, f"{script.stem}: the answers differ from the golden snapshot") for r in fixture["requirements"]
        ]
        raise ExceptionGroup(f"{script.stem}: the answers differ from the golden snapshot\n{error}"[:4000], failures) from None
