"""Snapshot tests: the fixture workspaces of fixtures/read-context, answers normalized and compared with the golden snapshots."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Final

import pytest
from syrupy.assertion import SnapshotAssertion

from ctxconform.conformance._data import fixtures_dir
from ctxconform.conformance.exceptions import RequirementFailure
from ctxconform.conformance.suites.read_context.client import Workspace, conflicts_of, gap_core, limited_context

requirement = pytest.mark.requirement
Json = dict[str, Any]

FIXTURES: Final = sorted(path for path in (fixtures_dir() / "read-context").iterdir() if path.is_dir())


def install(fixture: Path, workspace: Workspace) -> None:
    """Copy the fixture's workspace/ and tastes/ files into the image's workspace and the tastes folder."""
    for part, target in (("workspace", workspace.folder), ("tastes", workspace.tastes_dir)):
        if (fixture / part).is_dir():
            shutil.copytree(fixture / part, target, dirs_exist_ok=True)


def line_workarounds(fixture: Path) -> dict[tuple[Any, Any], str]:
    """The workaround of each gap line by (timestamp, description); '' where a line has none."""
    path = fixture / "workspace" / "vocabulary_gaps.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    records = [json.loads(line) for line in lines if line.strip()]
    return {(r.get("timestamp"), r.get("description")): r.get("workaround", "") for r in records}


def normalize(context: Json, fixture: Path) -> Json:
    """What conforming implementations share under every reading of the registry."""
    tastes, brief, notes = context["tastes"], context["brief"], context["notes"]
    summary, workarounds = notes["summary"], line_workarounds(fixture)
    if notes["truncated"]:  # tail-last-30: the file's final line break may be kept (the fixtures' last lines are not blank)
        summary = summary.removesuffix("\n")
    return {
        "tastes": {
            "default": tastes["default"],
            # missing-genre-file: a declared genre without a file is left out or ''.
            "genres": {name: text for name, text in tastes["genres"].items() if text},
            # conflict-entry: files as a set of genre names ("x.md" read as "x"), entries in any order.
            "conflicts": sorted(
                ({"point": point, "files": sorted(files)} for point, files in conflicts_of(context).items()),
                key=lambda entry: str(entry["point"]),
            ),
        },
        # brief-intent: compared with surrounding whitespace removed.
        "brief": {"raw": brief["raw"], "intent": brief["intent"].strip(), "tastes": brief["tastes"]},
        "notes": {"summary": summary, "truncated": notes["truncated"]},
        "recent_log": context["recent_log"],
        # gap-workaround: absent, or the line's workaround (checked by gap_core), is left out.
        "recent_gaps": [
            gap_core(record, workarounds.get((record["timestamp"], record["description"]), ""))
            for record in context["recent_gaps"]
        ],
    }


NOTES_LIMIT: Final = 40


def parts(normalized: Json, fixture: Path) -> list[tuple[str, Any, str]]:
    """The parts compared with the golden snapshots, each with the requirement a difference in it breaks."""
    tastes, brief, log, gaps = normalized["tastes"], normalized["brief"], normalized["recent_log"], normalized["recent_gaps"]
    notes = fixture / "workspace" / "notes.md"
    long_notes = notes.is_file() and len(notes.read_text(encoding="utf-8").splitlines()) > NOTES_LIMIT
    return [
        ("tastes.default", tastes["default"], "read-context/loading-order/default-taste-always-loads"),
        ("tastes.genres", tastes["genres"], "read-context/loading-order/declared-genres-layer-on-top"),
        ("tastes.conflicts", tastes["conflicts"], "read-context/loading-order/conflicts-surfaced"),
        ("brief.raw", brief["raw"], "read-context/response-shape/brief-raw"),
        ("brief.intent", brief["intent"], "read-context/response-shape/brief-intent"),
        ("brief.tastes", brief["tastes"], "read-context/response-shape/brief-tastes-list"),
        (
            "notes",
            normalized["notes"],
            "read-context/implementation-notes/notes-constants" if long_notes else "read-context/summarization/short-notes-raw",
        ),
        ("recent_log.timestamps", sorted(e["timestamp"] for e in log), "read-context/loading-order/recent-log-last-10"),
        (
            "recent_log.any-order",
            sorted(json.dumps(e, sort_keys=True) for e in log),
            "read-context/response-shape/log-entry-shape",
        ),
        ("recent_log", log, "read-context/loading-order/recent-log-newest-first"),
        ("recent_gaps.timestamps", sorted(str(g["timestamp"]) for g in gaps), "read-context/loading-order/recent-gaps-last-10"),
        (
            "recent_gaps.any-order",
            sorted(json.dumps(g, sort_keys=True) for g in gaps),
            "read-context/response-shape/gap-record-fields",
        ),
        ("recent_gaps", gaps, "read-context/loading-order/recent-gaps-newest-first"),
    ]


@requirement(
    "read-context/loading-order/default-taste-always-loads",
    "read-context/loading-order/declared-genres-layer-on-top",
    "read-context/loading-order/conflicts-surfaced",
    "read-context/response-shape/brief-raw",
    "read-context/response-shape/brief-intent",
    "read-context/response-shape/brief-tastes-list",
    "read-context/implementation-notes/notes-constants",
    "read-context/summarization/short-notes-raw",
    "read-context/loading-order/recent-log-last-10",
    "read-context/response-shape/log-entry-shape",
    "read-context/loading-order/recent-log-newest-first",
    "read-context/loading-order/recent-gaps-last-10",
    "read-context/response-shape/gap-record-fields",
    "read-context/loading-order/recent-gaps-newest-first",
    "read-context/tolerance/fresh-workspace",
)
@pytest.mark.parametrize("fixture", FIXTURES, ids=[path.name for path in FIXTURES])
def test_fixture_workspace_matches_the_golden_snapshot(fixture: Path, workspace: Workspace, snapshot: SnapshotAssertion) -> None:
    """read_context on a fixture workspace, normalized where the registry allows readings, matches the golden snapshots."""
    install(fixture, workspace)
    normalized = normalize(limited_context(workspace.read()), fixture)
    # Every part is compared (syrupy records each); the first that differs names the requirement it breaks.
    differing = [(name, value, rid) for name, value, rid in parts(normalized, fixture) if snapshot(name=name) != value]
    if differing:
        name, value, rid = differing[0]
        fresh = not any((fixture / folder).is_dir() for folder in ("workspace", "tastes"))
        raise RequirementFailure(
            "read-context/tolerance/fresh-workspace" if fresh else rid,
            f"{fixture.name}: {', '.join(d[0] for d in differing)} differ from the snapshots; {name} is {str(value)[:400]}",
        )
