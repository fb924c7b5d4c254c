"""The ADR's response shape: a populated workspace gives every piece in full, a fresh one the exact empty response."""

from __future__ import annotations

import json
from typing import Any, Final

from ctxconform.conformance.suites.read_context import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.read_context.client import (
    FRESH,
    GAP_DEFAULTS,
    Workspace,
    as_text,
    check_line_breaks,
    check_repeats,
    conflicts_of,
    gap_core,
    genre_texts,
    jsonl,
    log_entry,
    origin_details,
    raw_of,
    taste_text,
    taste_texts,
)
from ctxconform.conformance.testing import check, check_equal, requirement

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


@requirement(R.RESPONSE_SHAPE_TOP_LEVEL_KEYS, R.LOADING_ORDER_RESPONSE_KEY_ORDER)
def test_populated_workspace_returns_the_five_pieces(workspace: Workspace) -> None:
    """One call on a populated workspace returns an object of exactly tastes, brief, notes, recent_log and recent_gaps."""
    populate(workspace)
    raw = raw_of(workspace.read(R.RESPONSE_SHAPE_TOP_LEVEL_KEYS), R.RESPONSE_SHAPE_TOP_LEVEL_KEYS)
    keys = list(raw) if isinstance(raw, dict) else raw
    check(R.RESPONSE_SHAPE_TOP_LEVEL_KEYS, isinstance(raw, dict) and set(raw) == set(KEYS), "keys", received=keys, expected=KEYS)
    # Under either reading of response-key-order the five keys are there; their order is not checked.
    check(R.LOADING_ORDER_RESPONSE_KEY_ORDER, sorted(keys) == sorted(KEYS), "keys", received=keys, expected=KEYS)


@requirement(R.CONSEQUENCES_ONE_TOOL_CALL, R.CONSEQUENCES_FIXED_SCHEMA)
def test_populated_workspace_is_complete_in_one_call(workspace: Workspace) -> None:
    """The first call on a populated workspace returns every piece filled: the whole log and gaps, tastes, brief and notes."""
    populate(workspace)
    context = workspace.context(R.CONSEQUENCES_ONE_TOOL_CALL)
    check(
        R.CONSEQUENCES_ONE_TOOL_CALL,
        bool(context["tastes"]["genres"] and context["brief"]["raw"] and context["notes"]["summary"]),
        "a piece of the populated workspace came back empty",
        received=context,
    )
    check(
        R.CONSEQUENCES_ONE_TOOL_CALL,
        len(context["recent_log"]) == len(LOG) and len(context["recent_gaps"]) == 2,
        "the log or the gaps came back incomplete on the first call",
        received={"recent_log": context["recent_log"], "recent_gaps": context["recent_gaps"]},
        expected={"entries": len(LOG), "records": 2},
    )


@requirement(R.LOADING_ORDER_DEFAULT_TASTE_ALWAYS_LOADS)
def test_populated_default_taste_is_default_md(workspace: Workspace) -> None:
    """tastes.default is _default.md as written while two genres are declared."""
    populate(workspace)
    tastes = workspace.context(R.LOADING_ORDER_DEFAULT_TASTE_ALWAYS_LOADS)["tastes"]
    # Surrounding whitespace and line breaks aside: they are taste-text-whitespace's and markdown-line-breaks'.
    default = taste_text(tastes["default"])
    check_equal(R.LOADING_ORDER_DEFAULT_TASTE_ALWAYS_LOADS, default, taste_text(DEFAULT), "tastes.default, trimmed")


@requirement(R.LOADING_ORDER_DECLARED_GENRES_LAYER_ON_TOP, R.RESPONSE_SHAPE_GENRES_MAP)
def test_populated_genres_are_the_two_declared(workspace: Workspace) -> None:
    """tastes.genres maps the two declared genres (not the undeclared one) to their text."""
    populate(workspace)
    genres = workspace.context(R.LOADING_ORDER_DECLARED_GENRES_LAYER_ON_TOP)["tastes"]["genres"]
    loaded = sorted(name.removesuffix(".md") for name in genres)
    check_equal(R.LOADING_ORDER_DECLARED_GENRES_LAYER_ON_TOP, loaded, ["underwater", "wildlife"], "the genres loaded")
    expected = taste_texts({"underwater": UNDERWATER, "wildlife": WILDLIFE})
    check_equal(R.RESPONSE_SHAPE_GENRES_MAP, taste_texts(genres), expected, "tastes.genres, each text trimmed")


@requirement(R.LOADING_ORDER_CONFLICTS_SURFACED, R.RESPONSE_SHAPE_CONFLICT_ENTRY)
def test_populated_conflicts_hold_the_shared_line(workspace: Workspace) -> None:
    """The line both declared genres share is one {point, files} conflict naming both."""
    populate(workspace)
    raw = raw_of(workspace.read(R.LOADING_ORDER_CONFLICTS_SURFACED), R.LOADING_ORDER_CONFLICTS_SURFACED)
    conflicts = raw.get("tastes", {}).get("conflicts") if isinstance(raw, dict) else None
    # On the raw reply, before the schema: an entry of another shape fails conflict-entry.
    check(
        R.RESPONSE_SHAPE_CONFLICT_ENTRY,
        isinstance(conflicts, list) and all(isinstance(e, dict) and set(e) == {"point", "files"} for e in conflicts),
        "tastes.conflicts is not a list of {point, files}",
        received=conflicts,
    )
    context = check_repeats(workspace.read(R.LOADING_ORDER_CONFLICTS_SURFACED), R.RESPONSE_SHAPE_CONFLICT_ENTRY)
    found = conflicts_of(context, R.RESPONSE_SHAPE_CONFLICT_ENTRY)
    expected = {"Keep the grain subtle.": frozenset({"underwater", "wildlife"})}
    check(
        R.LOADING_ORDER_CONFLICTS_SURFACED,
        found == expected,
        "the shared line is not one conflict naming both genres",
        received=context["tastes"]["conflicts"],
        expected=[{"point": "Keep the grain subtle.", "files": ["underwater", "wildlife"]}],
    )


@requirement(R.RESPONSE_SHAPE_BRIEF_RAW, R.RESPONSE_SHAPE_BRIEF_INTENT, R.RESPONSE_SHAPE_BRIEF_TASTES_LIST)
def test_populated_brief_is_raw_intent_and_declared_list(workspace: Workspace) -> None:
    """Brief holds the file as written, the intent without the Tastes: line and the declared list."""
    populate(workspace)
    brief = workspace.context(R.RESPONSE_SHAPE_BRIEF_RAW)["brief"]
    check_equal(R.RESPONSE_SHAPE_BRIEF_RAW, brief["raw"], BRIEF, "brief.raw")
    check_equal(R.RESPONSE_SHAPE_BRIEF_INTENT, brief["intent"].strip(), INTENT, "brief.intent (stripped)")
    check_equal(R.RESPONSE_SHAPE_BRIEF_TASTES_LIST, brief["tastes"], ["underwater", "wildlife"], "brief.tastes")


@requirement(R.RESPONSE_SHAPE_NOTES_OBJECT, R.RESPONSE_SHAPE_STRUCTURED_TOP_PROSE_BODY)
def test_populated_short_notes_are_the_markdown_as_written(workspace: Workspace) -> None:
    """The notes piece is exactly {summary, truncated}: short notes come back as written, not truncated."""
    populate(workspace)
    raw = raw_of(workspace.read(R.RESPONSE_SHAPE_NOTES_OBJECT), R.RESPONSE_SHAPE_NOTES_OBJECT)
    notes = raw.get("notes") if isinstance(raw, dict) else None
    keys = sorted(notes) if isinstance(notes, dict) else notes
    check_equal(R.RESPONSE_SHAPE_NOTES_OBJECT, keys, ["summary", "truncated"], "the keys of notes")
    context = workspace.context(R.RESPONSE_SHAPE_NOTES_OBJECT)
    check_equal(R.RESPONSE_SHAPE_STRUCTURED_TOP_PROSE_BODY, context["notes"], {"summary": NOTES, "truncated": False}, "notes")


@requirement(R.RESPONSE_SHAPE_LOG_ENTRY_SHAPE, R.LOADING_ORDER_RECENT_LOG_NEWEST_FIRST, R.LOADING_ORDER_RECENT_LOG_LAST_10)
def test_populated_log_entries_are_structured_newest_first(workspace: Workspace) -> None:
    """recent_log is {timestamp, op, details} per line, details the other keys (or the line's details object), last line first."""
    populate(workspace)
    expected = [log_entry(line) for line in reversed(LOG)]
    # details that are the line's own details object ({} here) are read as the other keys: log-entry-shape's readings.
    log = origin_details(workspace.context(R.RESPONSE_SHAPE_LOG_ENTRY_SHAPE)["recent_log"], LOG)
    check_equal(R.LOADING_ORDER_RECENT_LOG_LAST_10, len(log), len(LOG), "the number of log entries")
    check_equal(
        R.RESPONSE_SHAPE_LOG_ENTRY_SHAPE,
        sorted(json.dumps(e, sort_keys=True) for e in log),
        sorted(json.dumps(e, sort_keys=True) for e in expected),
        "recent_log's entries, in any order",
    )
    check_equal(R.LOADING_ORDER_RECENT_LOG_NEWEST_FIRST, log, expected, "recent_log")


@requirement(
    R.RESPONSE_SHAPE_GAP_RECORD_FIELDS,
    R.RESPONSE_SHAPE_GAP_RECORD_DEFAULTS,
    R.RESPONSE_SHAPE_GAP_WORKAROUND,
    R.LOADING_ORDER_RECENT_GAPS_NEWEST_FIRST,
    R.LOADING_ORDER_RECENT_GAPS_LAST_10,
)
def test_populated_gaps_are_full_records_with_defaults_newest_first(workspace: Workspace) -> None:
    """recent_gaps gives the minimal record with the ADR's defaults first, then the full record as written."""
    populate(workspace)
    gaps = [gap_core(record) for record in workspace.context(R.RESPONSE_SHAPE_GAP_RECORD_FIELDS)["recent_gaps"]]
    check_equal(R.LOADING_ORDER_RECENT_GAPS_LAST_10, len(gaps), 2, "the number of gap records")
    check(R.RESPONSE_SHAPE_GAP_RECORD_FIELDS, FULL_GAP in gaps, "the full gap line did not come back as written", received=gaps)
    check_equal(R.LOADING_ORDER_RECENT_GAPS_NEWEST_FIRST, gaps[-1:], [FULL_GAP], "the oldest record")
    check_equal(R.RESPONSE_SHAPE_GAP_RECORD_DEFAULTS, gaps[:1], [{**MINIMAL_GAP, **GAP_DEFAULTS}], "the minimal record")


@requirement(R.TOLERANCE_FRESH_WORKSPACE, R.CONSEQUENCES_FIXED_SCHEMA)
def test_fresh_workspace_returns_the_exact_empty_response(workspace: Workspace) -> None:
    """A workspace with none of the files and an empty tastes folder gives exactly the empty structs, no error."""
    context = workspace.context(R.TOLERANCE_FRESH_WORKSPACE)
    check_equal(R.TOLERANCE_FRESH_WORKSPACE, context, FRESH, "the response")


# Who owns each text of the CRLF test apart from its line breaks, which are markdown-line-breaks'.
CRLF_OWNERS: Final = {
    "default": R.LOADING_ORDER_DEFAULT_TASTE_ALWAYS_LOADS,
    "underwater": R.LOADING_ORDER_DECLARED_GENRES_LAYER_ON_TOP,
    "brief": R.RESPONSE_SHAPE_BRIEF_RAW,
    "notes": R.SUMMARIZATION_SHORT_NOTES_RAW,
}
TASTES: Final = ("default", "underwater")


@requirement(R.RESPONSE_SHAPE_STRUCTURED_TOP_PROSE_BODY, R.RESPONSE_SHAPE_MARKDOWN_LINE_BREAKS, *CRLF_OWNERS.values())
def test_markdown_with_crlf_breaks_keeps_its_line_breaks(workspace: Workspace) -> None:
    r"""Taste files, the brief and short notes written with \r\n breaks come back with them, or read as \n: never joined."""
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
    context = workspace.context(R.RESPONSE_SHAPE_STRUCTURED_TOP_PROSE_BODY)
    found = {
        "default": context["tastes"]["default"],
        "underwater": genre_texts(context["tastes"]["genres"]).get("underwater"),
        "brief": context["brief"]["raw"],
        "notes": context["notes"]["summary"],
    }
    # Taste texts without their surrounding whitespace, which is taste-text-whitespace's.
    trim = {name: (text.strip() if name in TASTES and isinstance(text, str) else text) for name, text in found.items()}
    written = {name: (text.strip() if name in TASTES else text) for name, text in crlf.items()}
    for name, owner in CRLF_OWNERS.items():  # the text itself first: its line breaks are checked below
        check_equal(owner, as_text(trim[name]), as_text(written[name]), f"{name}, line breaks aside")
    for name, text in written.items():
        check_line_breaks(trim[name], text, name)
    markdown = {name: as_text(text) for name, text in trim.items()}
    expected = {name: as_text(text) for name, text in written.items()}
    check_equal(R.RESPONSE_SHAPE_STRUCTURED_TOP_PROSE_BODY, markdown, expected, "the markdown texts, line breaks read as \\n")
