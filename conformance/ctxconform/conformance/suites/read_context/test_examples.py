"""The ADR's response shape: a populated workspace gives every piece in full, a fresh one the exact empty response."""

from __future__ import annotations

import json
from typing import Any, Final

import pytest

from ctxconform.conformance.suites.read_context.client import (
    FRESH,
    GAP_DEFAULTS,
    Workspace,
    conflicts_of,
    gap_core,
    jsonl,
    require,
)

requirement = pytest.mark.requirement

KEYS: Final = ("tastes", "brief", "notes", "recent_log", "recent_gaps")
DEFAULT: Final = "# My tastes\n\nNatural skin tones.\nNo heavy vignettes.\n"
UNDERWATER: Final = "# Underwater\n\nRestore reds lost at depth.\nKeep the grain subtle.\n"
WILDLIFE: Final = "# Wildlife\n\nThe eye must be sharp.\nKeep the grain subtle.\n"
STREET: Final = "# Street\n\nHigh contrast black and white.\n"
BRIEF: Final = (
    "# Manta at Socorro\n\nTastes: underwater, wildlife\n\nMoody blue water, the manta lit from above.\nKeep it dark.\n"
)
INTENT: Final = "# Manta at Socorro\n\n\nMoody blue water, the manta lit from above.\nKeep it dark."
NOTES: Final = "Session 1: lifted shadows.\nSession 2: tried a cooler white balance, reverted.\n"
LOG: Final[list[dict[str, Any]]] = [
    {"timestamp": "2026-04-29T10:00:00Z", "op": "snapshot", "hash": "a1b2", "label": "baseline"},
    {"timestamp": "2026-04-29T10:05:00Z", "op": "branch", "name": "cool-wb"},
    {"timestamp": "2026-04-29T10:09:00Z", "op": "checkout", "ref": "main"},
]
FULL_GAP: Final[dict[str, Any]] = {
    "timestamp": "2026-04-29T10:07:00Z",
    "image_id": "manta-socorro",
    "description": "no primitive for a graduated underwater red restore",
    "session_id": "s-42",
    "snapshot_hash": "a1b2",
    "intent": "bring back the reds near the surface only",
    "intent_category": "color",
    "missing_capability": "graduated color mask",
    "operations_involved": ["white_balance", "mask"],
    "vocabulary_used": ["warm", "graduated"],
    "satisfaction": -1,
    "notes": "worked around with two snapshots",
}
MINIMAL_GAP: Final[dict[str, Any]] = {
    "timestamp": "2026-04-29T10:08:00Z",
    "image_id": "manta-socorro",
    "description": "cannot name 'blue hour' directly",
}
DEFAULTS: Final = GAP_DEFAULTS


def populate(workspace: Workspace) -> None:
    """Write the populated example: tastes, a brief declaring two genres, notes, a log and gaps."""
    workspace.taste("_default", DEFAULT)
    workspace.taste("underwater", UNDERWATER)
    workspace.taste("wildlife", WILDLIFE)
    workspace.taste("street", STREET)
    workspace.write("brief.md", BRIEF)
    workspace.write("notes.md", NOTES)
    workspace.write("log.jsonl", jsonl(LOG))
    workspace.write("vocabulary_gaps.jsonl", jsonl([FULL_GAP, MINIMAL_GAP]))


@requirement(
    "read-context/response-shape/top-level-keys",
    "read-context/loading-order/response-key-order",
    "read-context/consequences/one-tool-call",
    "read-context/consequences/fixed-schema",
)
def test_populated_workspace_returns_the_five_pieces(workspace: Workspace) -> None:
    """One call on a populated workspace returns exactly tastes, brief, notes, recent_log and recent_gaps, each filled."""
    populate(workspace)
    context = workspace.read().context("read-context/consequences/one-tool-call")
    # Under either reading of response-key-order the five keys are there; their order is not checked.
    require(set(context) == set(KEYS), "read-context/response-shape/top-level-keys", f"keys {list(context)}")
    require(
        context["tastes"]["genres"] and context["brief"]["raw"] and context["notes"]["summary"],
        "read-context/consequences/one-tool-call",
        "a piece of the populated workspace came back empty",
    )
    require(
        len(context["recent_log"]) == 3 and len(context["recent_gaps"]) == 2,
        "read-context/consequences/one-tool-call",
        "the log or the gaps came back incomplete",
    )


@requirement(
    "read-context/response-shape/tastes-object",
    "read-context/response-shape/genres-map",
    "read-context/response-shape/conflict-entry",
    "read-context/loading-order/default-taste-always-loads",
    "read-context/loading-order/declared-genres-layer-on-top",
    "read-context/loading-order/conflicts-surfaced",
)
def test_populated_tastes_hold_default_declared_genres_and_the_shared_line(workspace: Workspace) -> None:
    """Tastes is _default.md, the two declared genres (not the undeclared one) and one conflict on their shared line."""
    populate(workspace)
    tastes = workspace.read().context()["tastes"]
    require(tastes["default"] == DEFAULT, "read-context/loading-order/default-taste-always-loads", repr(tastes["default"]))
    require(
        tastes["genres"] == {"underwater": UNDERWATER, "wildlife": WILDLIFE},
        "read-context/loading-order/declared-genres-layer-on-top",
        f"genres {sorted(tastes['genres'])}",
    )
    require(
        conflicts_of({"tastes": tastes}) == {"Keep the grain subtle.": frozenset({"underwater", "wildlife"})},
        "read-context/loading-order/conflicts-surfaced",
        f"conflicts {tastes['conflicts']}",
    )


@requirement(
    "read-context/response-shape/brief-raw",
    "read-context/response-shape/brief-intent",
    "read-context/response-shape/brief-tastes-list",
    "read-context/response-shape/notes-object",
    "read-context/response-shape/structured-top-prose-body",
)
def test_populated_brief_and_notes_are_the_markdown_as_written(workspace: Workspace) -> None:
    """Brief holds raw, the intent without the Tastes: line and the declared list; short notes come back raw."""
    populate(workspace)
    context = workspace.read().context()
    brief = context["brief"]
    require(brief["raw"] == BRIEF, "read-context/response-shape/brief-raw", repr(brief["raw"]))
    require(brief["intent"].strip() == INTENT, "read-context/response-shape/brief-intent", repr(brief["intent"]))
    require(brief["tastes"] == ["underwater", "wildlife"], "read-context/response-shape/brief-tastes-list", repr(brief["tastes"]))
    require(
        context["notes"] == {"summary": NOTES, "truncated": False},
        "read-context/response-shape/structured-top-prose-body",
        repr(context["notes"]),
    )


@requirement(
    "read-context/response-shape/log-entry-shape",
    "read-context/response-shape/structured-top-prose-body",
    "read-context/loading-order/recent-log-newest-first",
)
def test_populated_log_entries_are_structured_newest_first(workspace: Workspace) -> None:
    """recent_log is {timestamp, op, details} per line, details the other keys, last line first."""
    populate(workspace)
    expected = [
        {"timestamp": r["timestamp"], "op": r["op"], "details": {k: v for k, v in r.items() if k not in ("timestamp", "op")}}
        for r in reversed(LOG)
    ]
    log = workspace.read().context()["recent_log"]
    require(
        sorted(json.dumps(e, sort_keys=True) for e in log) == sorted(json.dumps(e, sort_keys=True) for e in expected),
        "read-context/response-shape/log-entry-shape",
        f"log {log}",
    )
    require(log == expected, "read-context/loading-order/recent-log-newest-first", f"log {log}")


@requirement(
    "read-context/response-shape/gap-record-fields",
    "read-context/response-shape/gap-record-defaults",
    "read-context/response-shape/gap-workaround",
    "read-context/loading-order/recent-gaps-newest-first",
)
def test_populated_gaps_are_full_records_with_defaults_newest_first(workspace: Workspace) -> None:
    """recent_gaps gives the minimal record with the ADR's defaults first, then the full record as written."""
    populate(workspace)
    gaps = [gap_core(record) for record in workspace.read().context()["recent_gaps"]]
    require(len(gaps) == 2, "read-context/loading-order/recent-gaps-newest-first", f"{len(gaps)} records")
    require(gaps[1] == FULL_GAP or gaps[0] == FULL_GAP, "read-context/response-shape/gap-record-fields", f"gaps {gaps}")
    require(gaps[1] == FULL_GAP, "read-context/loading-order/recent-gaps-newest-first", f"gaps {gaps}")
    require(gaps[0] == {**MINIMAL_GAP, **DEFAULTS}, "read-context/response-shape/gap-record-defaults", f"record {gaps[0]}")


@requirement(
    "read-context/tolerance/fresh-workspace",
    "read-context/consequences/fixed-schema",
    "read-context/response-shape/top-level-keys",
)
def test_fresh_workspace_returns_the_exact_empty_response(workspace: Workspace) -> None:
    """A workspace with none of the files and an empty tastes folder gives exactly the empty structs, no error."""
    context = workspace.read().context("read-context/tolerance/fresh-workspace")
    require(context == FRESH, "read-context/tolerance/fresh-workspace", f"response {context}")


@requirement("read-context/response-shape/structured-top-prose-body")
def test_markdown_with_crlf_breaks_comes_back_as_written(workspace: Workspace) -> None:
    r"""Taste files, the brief and short notes written with \r\n breaks come back with them, not re-read as text."""
    crlf = {
        "default": DEFAULT.replace("\n", "\r\n"),
        "underwater": UNDERWATER.replace("\n", "\r\n"),
        "brief": "# Manta\r\nTastes: underwater\r\n\r\nMoody blue water.\r\n",
        "notes": NOTES.replace("\n", "\r\n"),
    }
    workspace.taste("_default", crlf["default"])
    workspace.taste("underwater", crlf["underwater"])
    workspace.write("brief.md", crlf["brief"])
    workspace.write("notes.md", crlf["notes"])
    context = workspace.read().context()
    found = {
        "default": context["tastes"]["default"],
        "underwater": context["tastes"]["genres"].get("underwater"),
        "brief": context["brief"]["raw"],
        "notes": context["notes"]["summary"],
    }
    changed = sorted(name for name, text in crlf.items() if found[name] != text)
    require(not changed, "read-context/response-shape/structured-top-prose-body", f"{changed} came back changed: {found}")
