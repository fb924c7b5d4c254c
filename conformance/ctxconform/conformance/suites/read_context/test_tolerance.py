"""Tolerance: missing, unreadable, undecodable, garbage, enormous and empty files give empty structs, never an error."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance.suites.read_context import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.read_context.client import (
    FRESH,
    Workspace,
    conflicts_of,
    fresh_workspace,
    gap_core,
    genre_texts,
    jsonl,
    taste_text,
    taste_texts,
    within_limits,
)
from ctxconform.conformance.suites.read_context.notes import LONG, check_notes
from ctxconform.conformance.testing import Implementation, check, check_equal, check_in, requirement

Json = dict[str, Any]

DEFAULT: Final = "# Everything\nNatural skin tones.\n"
UNDERWATER: Final = "# Underwater\nRestore reds.\nKeep the grain subtle.\n"
WILDLIFE: Final = "# Wildlife\nSharp eyes.\nKeep the grain subtle.\n"
BRIEF: Final = "# Manta\nTastes: underwater, wildlife\nMoody blue water.\n"
NOTES: Final = "Session 1: lifted shadows.\n"
LOGS: Final = [{"timestamp": f"2026-04-29T10:0{n}:00Z", "op": "tag", "name": f"t{n}"} for n in range(3)]
GAPS: Final = [{"timestamp": f"2026-04-29T11:0{n}:00Z", "image_id": "manta", "description": f"gap {n}"} for n in range(2)]
EMPTY_TASTES: Final[Json] = FRESH["tastes"]
MEGABYTES: Final = 5 * 1024 * 1024
NEWEST_FIRST: Final = {
    "log.jsonl": R.LOADING_ORDER_RECENT_LOG_NEWEST_FIRST,
    "vocabulary_gaps.jsonl": R.LOADING_ORDER_RECENT_GAPS_NEWEST_FIRST,
}
NON_UTF8: Final = R.TOLERANCE_NON_UTF8_FILES
UNREADABLE: Final = R.TOLERANCE_UNREADABLE_FILES_EMPTY


def populate(workspace: Workspace) -> None:
    """Every file present: tastes, brief, notes, log and gaps."""
    workspace.taste("_default", DEFAULT)
    workspace.taste("underwater", UNDERWATER)
    workspace.taste("wildlife", WILDLIFE)
    workspace.write("brief.md", BRIEF)
    workspace.write("notes.md", NOTES)
    workspace.write("log.jsonl", jsonl(LOGS))
    workspace.write("vocabulary_gaps.jsonl", jsonl(GAPS))


def target(workspace: Workspace, name: str) -> Path:
    """The path of a file named in the parameters: workspace files, taste files and the tastes folder."""
    if name == "tastes folder":
        return workspace.tastes_dir
    if name.endswith(".md") and name not in ("brief.md", "notes.md"):
        return workspace.tastes_dir / name
    return workspace.folder / name


def expected_without(baseline: Json, name: str) -> Json:
    """The response with `name` missing: its piece is the empty struct, the others as in `baseline`."""
    expected: Json = json.loads(json.dumps(baseline))
    if name == "brief.md":
        expected["brief"] = FRESH["brief"]
        expected["tastes"] = {**baseline["tastes"], "genres": {}, "conflicts": []}
    elif name == "notes.md":
        expected["notes"] = FRESH["notes"]
    elif name == "log.jsonl":
        expected["recent_log"] = []
    elif name == "vocabulary_gaps.jsonl":
        expected["recent_gaps"] = []
    elif name == "_default.md":
        expected["tastes"]["default"] = ""
    elif name == "tastes folder":
        expected["tastes"] = EMPTY_TASTES
    return expected


def comparable(context: Json) -> Json:
    """The context with declared genres that have no text left out (missing-genre-file allows them as '')."""
    genres = {name: text for name, text in context["tastes"]["genres"].items() if text}
    return {**context, "tastes": {**context["tastes"], "genres": genres}}


# The parts of the response that another requirement owns when a file is missing: with no brief, no genre is
# declared (declared-genres-layer-on-top) and _default.md still loads (default-taste-always-loads); with no taste
# files, the brief still lists its genres (brief-tastes-list).
OWNED_ELSEWHERE: Final[dict[str, dict[str, str]]] = {
    "brief.md": {
        "tastes.default": R.LOADING_ORDER_DEFAULT_TASTE_ALWAYS_LOADS,
        "tastes.genres": R.LOADING_ORDER_DECLARED_GENRES_LAYER_ON_TOP,
        "tastes.conflicts": R.LOADING_ORDER_DECLARED_GENRES_LAYER_ON_TOP,
    },
    "tastes folder": {"brief": R.RESPONSE_SHAPE_BRIEF_TASTES_LIST},
}
FILES: Final = [
    pytest.param(name, id=name, marks=requirement(*dict.fromkeys(OWNED_ELSEWHERE.get(name, {}).values())))
    for name in ("brief.md", "notes.md", "log.jsonl", "vocabulary_gaps.jsonl", "_default.md", "tastes folder")
]


def baseline_of(workspace: Workspace, requirement: str) -> Json:
    """The context with every file present, from a second call: what a first call lacks is one-tool-call's.

    The calls must leave every file as it was (markdown-stays-human-edited), else a later piece differs for that.
    """
    before = files_of(workspace)
    workspace.context(requirement)
    baseline = workspace.context(requirement)
    unchanged = files_of(workspace) == before
    check(R.CONSEQUENCES_MARKDOWN_STAYS_HUMAN_EDITED, unchanged, "reading changed the workspace or the tastes files")
    return baseline


def files_of(workspace: Workspace) -> dict[str, bytes]:
    """Every file of the workspace and the tastes folder, by path."""
    folders = (workspace.folder, workspace.tastes_dir)
    return {str(path): path.read_bytes() for folder in folders for path in sorted(folder.rglob("*")) if path.is_file()}


def parts_of(context: Json) -> Json:
    """The response cut into parts (tastes into its three), declared genres without text left out."""
    tastes = comparable(context)["tastes"]
    rest = {piece: value for piece, value in context.items() if piece != "tastes"}
    return {**{f"tastes.{key}": value for key, value in tastes.items()}, **rest}


def check_pieces(requirement: str, context: Json, expected: Json, name: str, what: str) -> None:
    """Each part of `context` is the expected one; a part another requirement owns for `name` is checked first."""
    found, wanted = parts_of(context), parts_of(expected)
    owners = OWNED_ELSEWHERE.get(name, {})
    for part in sorted(wanted, key=lambda part: part not in owners):
        check_equal(owners.get(part, requirement), found.get(part), wanted[part], f"{name} {what}: {part}")


@requirement(R.TOLERANCE_MISSING_FILES_EMPTY, R.CONSEQUENCES_MARKDOWN_STAYS_HUMAN_EDITED)
@pytest.mark.parametrize("name", FILES)
def test_each_missing_file_gives_its_empty_struct(workspace: Workspace, name: str) -> None:
    """With one file (or the tastes folder) missing its piece is the empty struct and every other piece is unchanged."""
    populate(workspace)
    baseline = baseline_of(workspace, R.TOLERANCE_MISSING_FILES_EMPTY)
    path = target(workspace, name)
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink()
    context = workspace.context(R.TOLERANCE_MISSING_FILES_EMPTY)
    check_pieces(R.TOLERANCE_MISSING_FILES_EMPTY, context, expected_without(baseline, name), name, "missing")


@requirement(UNREADABLE, R.CONSEQUENCES_MARKDOWN_STAYS_HUMAN_EDITED)
@pytest.mark.parametrize("name", FILES)
def test_a_directory_in_place_of_a_file_reads_as_missing(workspace: Workspace, name: str) -> None:
    """A directory where a file should be (a file where the tastes folder should be) gives the missing file's result."""
    populate(workspace)
    baseline = baseline_of(workspace, UNREADABLE)
    path = target(workspace, name)
    if path.is_dir():
        shutil.rmtree(path)
        path.write_text("not a folder\n", encoding="utf-8")
    else:
        path.unlink()
        path.mkdir()
        (path / "inside.md").write_text("a file inside the directory\n", encoding="utf-8")
    try:
        context = workspace.context(UNREADABLE)
    finally:
        if path.is_file() and name == "tastes folder":  # the next workspace empties the tastes folder as a folder
            path.unlink()
            path.mkdir()
    check_pieces(UNREADABLE, context, expected_without(baseline, name), name, "unreadable")


@requirement(UNREADABLE, R.TOLERANCE_MISSING_GENRE_FILE)
def test_a_directory_in_place_of_a_genre_file_reads_as_missing(workspace: Workspace) -> None:
    """A directory named like a declared genre file is that genre missing: left out or '', and in no conflict."""
    populate(workspace)
    (workspace.tastes_dir / "wildlife.md").unlink()
    (workspace.tastes_dir / "wildlife.md").mkdir()
    context = workspace.context(UNREADABLE)
    genres = taste_texts(genre_texts(context["tastes"]["genres"]))
    check(
        UNREADABLE,
        {k: v for k, v in genres.items() if v} == {"underwater": taste_text(UNDERWATER)} and genres.get("wildlife", "") == "",
        "a directory in place of wildlife.md did not read as a missing genre file",
        received=genres,
        expected={"underwater": UNDERWATER, "wildlife": "(absent or '')"},
    )
    check_equal(R.TOLERANCE_MISSING_GENRE_FILE, context["tastes"]["conflicts"], [], "tastes.conflicts")


# --- bytes that are not UTF-8 ------------------------------------------------------------------------


def replaced(data: bytes) -> str:
    """The text under the replacement reading: each invalid byte becomes U+FFFD."""
    return data.decode("utf-8", "replace")


@requirement(NON_UTF8)
def test_a_brief_with_invalid_bytes_follows_a_reading(workspace: Workspace) -> None:
    """A brief with a byte that is not UTF-8 is empty (unreadable) or decoded with U+FFFD; never an error."""
    workspace.taste("underwater", UNDERWATER)
    data = b"# Manta\nTastes: underwater\nMoody \xff blue water.\n"
    workspace.write("brief.md", data)
    context = workspace.context(NON_UTF8)
    brief = context["brief"]
    readings = [("", "", []), (replaced(data), "# Manta\nMoody \ufffd blue water.", ["underwater"])]
    check_in(NON_UTF8, (brief["raw"], brief["intent"].strip(), brief["tastes"]), readings, "brief (raw, intent, tastes)")
    # The declared genres load: genres nobody declared are declared-genres-layer-on-top's.
    genres = taste_texts(genre_texts(context["tastes"]["genres"]))
    declared = {k: v for k, v in genres.items() if v and k in brief["tastes"]}
    expected = {"underwater": taste_text(UNDERWATER)} if brief["tastes"] else {}
    check_equal(NON_UTF8, declared, expected, f"the genres loaded for the declared {brief['tastes']}")


@requirement(NON_UTF8)
@pytest.mark.parametrize(
    "data",
    [b"Session \xff one.\n", b"\xc3\x28 truncated sequence\nsecond line\n", b"\xe2\x82 cut euro\n"],
    ids=["ff", "bad-continuation", "cut-sequence"],
)
def test_short_notes_with_invalid_bytes_follow_a_reading(workspace: Workspace, data: bytes) -> None:
    """Short notes with invalid bytes are empty and not truncated, or decoded with U+FFFD and returned raw."""
    workspace.write("notes.md", data)
    notes = workspace.context(NON_UTF8)["notes"]
    readings = [{"summary": "", "truncated": False}, {"summary": replaced(data), "truncated": False}]
    check_in(NON_UTF8, notes, readings, "the notes piece")


@requirement(NON_UTF8, R.LOADING_ORDER_NOTES_TRUNCATED_FLAG)
def test_long_notes_with_invalid_bytes_follow_a_reading(workspace: Workspace) -> None:
    """Long notes with invalid bytes in the head and in the elided middle are empty, or summarized from the decoded text."""
    lines = [f"line {n}".encode() for n in range(1, 61)]
    lines[4] += b" \xff head"
    lines[24] += b" \xfe elided"
    data = b"\n".join(lines) + b"\n"
    workspace.write("notes.md", data)
    notes = workspace.context(NON_UTF8)["notes"]
    elided = " lines elided] ..." in notes["summary"]
    flag = R.LOADING_ORDER_NOTES_TRUNCATED_FLAG
    check(flag, notes["truncated"] is elided, "truncated does not say whether lines were elided", received=notes)
    text = replaced(data).split("\n")
    summary = "\n".join(text[:10]) + "\n\n... [20 lines elided] ...\n\n" + "\n".join(text[30:60])
    readings = [
        {"summary": "", "truncated": False},
        {"summary": summary, "truncated": True},
        {"summary": summary + "\n", "truncated": True},
    ]
    check_in(NON_UTF8, notes, readings, "the notes piece")


@requirement(NON_UTF8)
@pytest.mark.parametrize(
    "name",
    [
        pytest.param("log.jsonl", marks=requirement(NEWEST_FIRST["log.jsonl"])),
        pytest.param(
            "vocabulary_gaps.jsonl", marks=requirement(NEWEST_FIRST["vocabulary_gaps.jsonl"], R.RESPONSE_SHAPE_GAP_WORKAROUND)
        ),
    ],
)
def test_jsonl_with_invalid_bytes_follows_a_reading(workspace: Workspace, name: str) -> None:
    """A JSONL line with an invalid byte empties the list, is skipped alone, or is read with U+FFFD."""
    # Timestamps in file order: both readings of newest-first give one order.
    stamps = [f"2026-04-29T10:0{n}:00Z" for n in range(3)]
    lines = (
        [{"timestamp": t, "op": op} for t, op in zip(stamps, ("first", "BAD", "last"), strict=True)]
        if name == "log.jsonl"
        else [{"image_id": "i", "description": d, "timestamp": t} for t, d in zip(stamps, ("first", "BAD", "last"), strict=True)]
    )
    data = jsonl(lines).encode().replace(b"BAD", b"B\xffD")
    workspace.write(name, data)
    context = workspace.context(NON_UTF8)
    # Each entry by the value that holds the bad byte: the rest of an entry's shape is the shape requirements'.
    if name == "log.jsonl":
        found = [entry["op"] for entry in context["recent_log"]]
        written = [line["op"] for line in lines]
    else:
        found = [gap_core(record)["description"] for record in context["recent_gaps"]]
        written = [line["description"] for line in lines]
    with_fffd = [value.replace("BAD", "B\ufffdD") if value else value for value in written[::-1]]
    readings = [[], [written[2], written[0]], with_fffd]
    oldest_first = found[::-1] in readings and found not in readings
    check(NEWEST_FIRST[name], not oldest_first, f"{name}: the entries are oldest first", received=found)
    check_in(NON_UTF8, found, readings, f"the entries of {name}")


@requirement(NON_UTF8)
def test_taste_files_with_invalid_bytes_follow_a_reading(workspace: Workspace) -> None:
    """_default.md and a genre file with invalid bytes are empty (the genre missing) or decoded with U+FFFD."""
    default, genre = b"# All\nwarm \xff tones\n", b"# Wildlife\n\xfe sharp\nKeep the grain subtle.\n"
    workspace.taste("_default", default)
    workspace.taste("underwater", UNDERWATER)
    workspace.taste("wildlife", genre)
    workspace.write("brief.md", "Tastes: underwater,wildlife\n")
    tastes = workspace.context(NON_UTF8)["tastes"]
    # Taste texts trimmed: their surrounding whitespace is taste-text-whitespace's.
    check_in(NON_UTF8, taste_text(tastes["default"]), ["", taste_text(replaced(default))], "tastes.default, trimmed")
    genres = taste_texts(genre_texts(tastes["genres"]))
    wildlife = genres.get("wildlife", "")
    check_in(NON_UTF8, wildlife, ["", taste_text(replaced(genre))], "the wildlife genre, trimmed")
    check_equal(NON_UTF8, genres.get("underwater"), taste_text(UNDERWATER), "the underwater genre, trimmed")
    expected = {"Keep the grain subtle.": frozenset({"underwater", "wildlife"})} if wildlife else {}
    found = conflicts_of({"tastes": tastes}, NON_UTF8)
    check(NON_UTF8, found == expected, "the conflicts are not those of the texts read", received=tastes["conflicts"])


@requirement(NON_UTF8, R.LOADING_ORDER_RECENT_LOG_LAST_10, R.LOADING_ORDER_RECENT_GAPS_LAST_10)
def test_valid_non_ascii_utf8_comes_back_exactly(workspace: Workspace) -> None:
    """Valid UTF-8 beyond ASCII (accents, CJK, emoji, combining marks) comes back exactly from every file."""
    # No final break and no surrounding whitespace: how those come back is other requirements' concern.
    text = "Ünïcode — 水中写真 🐠 e\u0301 \u200d"
    workspace.taste("_default", text)
    workspace.taste("underwater", text + "\nok\n")
    workspace.write("brief.md", "Manta.\n" + text)
    workspace.write("notes.md", text)
    # The name both as a key and in a details object: found in details under either reading of log-entry-shape.
    workspace.write("log.jsonl", json.dumps({"op": "tag", "name": text, "details": {"name": text}}, ensure_ascii=False) + "\n")
    workspace.write("vocabulary_gaps.jsonl", json.dumps({"description": text, "image_id": "i"}, ensure_ascii=False) + "\n")
    context = workspace.context(NON_UTF8)
    counts = [len(context["recent_log"]), len(context["recent_gaps"])]
    check_equal(R.LOADING_ORDER_RECENT_LOG_LAST_10, counts[0], 1, "the number of log entries")
    check_equal(R.LOADING_ORDER_RECENT_GAPS_LAST_10, counts[1], 1, "the number of gap records")
    check_equal(NON_UTF8, context["tastes"]["default"], text, "tastes.default")
    check_equal(NON_UTF8, context["brief"]["raw"], "Manta.\n" + text, "brief.raw")
    check_equal(NON_UTF8, context["notes"]["summary"], text, "notes.summary")
    check_equal(NON_UTF8, [e["details"].get("name") for e in context["recent_log"]], [text], "the log entry's name")
    check_equal(NON_UTF8, [g["description"] for g in context["recent_gaps"]], [text], "the gap's description")
    # A genre is declared in a second read: what a declaration does to tastes.default is not this requirement's.
    workspace.write("brief.md", "Tastes: underwater\n")
    genres = taste_texts(genre_texts(workspace.context(NON_UTF8)["tastes"]["genres"]))
    check_equal(NON_UTF8, genres, {"underwater": taste_text(text + "\nok\n")}, "tastes.genres, each text trimmed")


# --- garbage, enormous and empty files ---------------------------------------------------------------

TARGETS: Final = ("brief.md", "notes.md", "log.jsonl", "vocabulary_gaps.jsonl", "_default.md", "underwater.md")


def write_bytes(workspace: Workspace, name: str, data: bytes) -> None:
    """Write a workspace or taste file by name."""
    target(workspace, name).write_bytes(data)


@requirement(NON_UTF8)
@pytest.mark.parametrize("seed", range(3))
def test_binary_garbage_in_every_file_is_never_an_error(workspace: Workspace, seed: int) -> None:
    """100 KB of random bytes in every file gives a response of the fixed shape, never an error."""
    rng = random.Random(seed)  # noqa: S311 - reproducible test data, not secrets
    for name in TARGETS:
        write_bytes(workspace, name, rng.randbytes(100_000))
    workspace.answered(NON_UTF8)


@requirement(NON_UTF8)
@given(files=st.fixed_dictionaries({name: st.binary(max_size=600) for name in TARGETS}))
def test_any_bytes_in_any_file_are_never_an_error(implementation: Implementation, files: dict[str, bytes]) -> None:
    """Arbitrary bytes in all six files give a response of the fixed shape, never an error."""
    with fresh_workspace(implementation) as workspace:
        for name, data in files.items():
            write_bytes(workspace, name, data)
        workspace.write("brief.md", b"Tastes: underwater\n" + files["brief.md"])
        workspace.answered(NON_UTF8)


@requirement(R.SUMMARIZATION_SHORT_NOTES_RAW)
@pytest.mark.parametrize("ending", ["", "\n"])
def test_an_enormous_single_line_of_notes_comes_back_raw(workspace: Workspace, ending: str) -> None:
    """notes.md of one 5 MB line is one line: returned whole, not truncated."""
    text = "n" * MEGABYTES + ending
    workspace.write("notes.md", text)
    notes = workspace.context(R.SUMMARIZATION_SHORT_NOTES_RAW)["notes"]
    check(R.SUMMARIZATION_SHORT_NOTES_RAW, notes["truncated"] is False, "one line was truncated", received=notes["truncated"])
    summary = notes["summary"]
    check(R.SUMMARIZATION_SHORT_NOTES_RAW, summary == text, "the line did not come back whole", received=len(summary))


@requirement(*LONG)
def test_an_enormous_elided_line_is_left_out(workspace: Workspace) -> None:
    """A 5 MB line among 100 short ones is elided: the summary is head, marker with N = 60 and tail, no bigger."""
    lines = [f"line {n}" for n in range(1, 101)]
    lines[49] = "x" * MEGABYTES
    text = "\n".join(lines) + "\n"
    workspace.write("notes.md", text)
    check_notes(workspace.context(R.CONSEQUENCES_SIZE_BOUNDED)["notes"], text)


LAST_10: Final = {
    "log.jsonl": R.LOADING_ORDER_RECENT_LOG_LAST_10,
    "vocabulary_gaps.jsonl": R.LOADING_ORDER_RECENT_GAPS_LAST_10,
}


@requirement(R.TOLERANCE_MALFORMED_JSONL_LINES)
@pytest.mark.parametrize(
    "name",
    [
        pytest.param("log.jsonl", marks=requirement(NEWEST_FIRST["log.jsonl"], LAST_10["log.jsonl"])),
        pytest.param(
            "vocabulary_gaps.jsonl",
            marks=requirement(NEWEST_FIRST["vocabulary_gaps.jsonl"], LAST_10["vocabulary_gaps.jsonl"]),
        ),
    ],
)
def test_an_enormous_garbage_line_in_jsonl_is_never_an_error(workspace: Workspace, name: str) -> None:
    """A 5 MB line that is not JSON between two good lines is skipped or empties the list; never an error."""
    first, last = (
        ({"op": "a", "timestamp": "2026-04-29T10:00:00Z"}, {"op": "b", "timestamp": "2026-04-29T10:01:00Z"})
        if name == "log.jsonl"
        else (
            {"description": "a", "image_id": "i", "timestamp": "2026-04-29T10:00:00Z"},
            {"description": "b", "image_id": "i", "timestamp": "2026-04-29T10:01:00Z"},
        )
    )
    workspace.write(name, json.dumps(first) + "\n" + "{" * MEGABYTES + "\n" + json.dumps(last) + "\n")
    context = workspace.context(R.TOLERANCE_MALFORMED_JSONL_LINES)
    if name == "log.jsonl":
        found = [e["op"] for e in context["recent_log"]]
    else:
        found = [g["description"] for g in context["recent_gaps"]]
    check(NEWEST_FIRST[name], found != ["a", "b"], f"{name}: the entries are oldest first", received=found)
    # Some entries but not both: the list stops before the last well-formed entries, which every reading keeps.
    check(LAST_10[name], found not in (["b"], ["a"]), f"{name}: an entry of the last 10 is missing", received=found)
    check_in(R.TOLERANCE_MALFORMED_JSONL_LINES, found, [["b", "a"], []], f"the entries of {name}")


@requirement(R.LOADING_ORDER_RECENT_LOG_LAST_10, R.LOADING_ORDER_RECENT_LOG_NEWEST_FIRST)
def test_an_enormous_valid_line_before_the_last_10_does_not_matter(workspace: Workspace) -> None:
    """A 5 MB JSON line older than the last 10 entries leaves recent_log the last 10 entries."""
    stamps = [f"2026-04-29T10:00:{n:02d}Z" for n in range(12)]  # in file order: both readings of newest-first agree
    lines = [{"op": "tag", "timestamp": stamp, "n": n} for n, stamp in enumerate(stamps)]
    lines[0]["blob"] = "b" * MEGABYTES
    workspace.write("log.jsonl", jsonl(lines))
    last_10 = R.LOADING_ORDER_RECENT_LOG_LAST_10
    log = within_limits(workspace.read(last_10), last_10, "recent_log")["recent_log"]
    found = [e["timestamp"] for e in log]
    check_equal(last_10, sorted(map(str, found)), stamps[2:], "the entries' timestamps, in any order")
    check_equal(R.LOADING_ORDER_RECENT_LOG_NEWEST_FIRST, found, stamps[:1:-1], "the entries' timestamps")


@requirement(R.TOLERANCE_MISSING_FILES_EMPTY)
def test_empty_files_give_the_empty_response(workspace: Workspace) -> None:
    """All four workspace files and _default.md present but empty give exactly the fresh response."""
    for name in ("brief.md", "notes.md", "log.jsonl", "vocabulary_gaps.jsonl"):
        workspace.write(name, "")
    workspace.taste("_default", "")
    workspace.taste("underwater", "")
    context = workspace.context(R.TOLERANCE_MISSING_FILES_EMPTY)
    check_equal(R.TOLERANCE_MISSING_FILES_EMPTY, context, FRESH, "the response")


@requirement(R.TOLERANCE_FRESH_WORKSPACE)
def test_fresh_workspace_without_a_tastes_folder(workspace: Workspace) -> None:
    """An empty workspace with no tastes folder at all gives exactly the fresh response."""
    shutil.rmtree(workspace.tastes_dir)
    context = workspace.context(R.TOLERANCE_FRESH_WORKSPACE)
    check_equal(R.TOLERANCE_FRESH_WORKSPACE, context, FRESH, "the response")


@requirement(R.TOLERANCE_FRESH_WORKSPACE, R.LOADING_ORDER_DECLARED_GENRES_LAYER_ON_TOP)
def test_fresh_workspace_still_gets_the_global_tastes(workspace: Workspace) -> None:
    """An empty workspace gets _default.md and otherwise the empty structs."""
    workspace.taste("_default", DEFAULT)
    workspace.taste("underwater", UNDERWATER)
    context = workspace.context(R.TOLERANCE_FRESH_WORKSPACE)
    genres = context["tastes"]["genres"]
    check_equal(R.LOADING_ORDER_DECLARED_GENRES_LAYER_ON_TOP, genres, {}, "tastes.genres with no brief")
    # tastes.default trimmed: its surrounding whitespace is taste-text-whitespace's.
    found = {**context, "tastes": {**context["tastes"], "default": taste_text(context["tastes"]["default"])}}
    expected = {**FRESH, "tastes": {**EMPTY_TASTES, "default": taste_text(DEFAULT)}}
    check_equal(R.TOLERANCE_FRESH_WORKSPACE, found, expected, "the response, tastes.default trimmed")
