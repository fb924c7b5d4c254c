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

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance.exceptions import RequirementFailure
from ctxconform.conformance.suites.read_context.client import (
    FRESH,
    GAP_DEFAULTS,
    Workspace,
    conflicts_of,
    fresh_workspace,
    gap_core,
    jsonl,
    limited_context,
    require,
)

requirement = pytest.mark.requirement
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
    "log.jsonl": "read-context/loading-order/recent-log-newest-first",
    "vocabulary_gaps.jsonl": "read-context/loading-order/recent-gaps-newest-first",
}
# The defaults a gap line without optional fields gets (response-shape/gap-record-defaults).
FRESH_GAP: Final = GAP_DEFAULTS


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


FILES: Final = ["brief.md", "notes.md", "log.jsonl", "vocabulary_gaps.jsonl", "_default.md", "tastes folder"]


@requirement("read-context/tolerance/missing-files-empty")
@pytest.mark.parametrize("name", FILES)
def test_each_missing_file_gives_its_empty_struct(workspace: Workspace, name: str) -> None:
    """With one file (or the tastes folder) missing its piece is the empty struct and every other piece is unchanged."""
    populate(workspace)
    baseline = workspace.read().context()
    path = target(workspace, name)
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink()
    context = workspace.read().context("read-context/tolerance/missing-files-empty")
    for piece, value in expected_without(baseline, name).items():
        require(
            comparable(context)[piece] == value,
            "read-context/tolerance/missing-files-empty",
            f"{name} missing: {piece} is {context[piece]}",
        )


@requirement("read-context/tolerance/unreadable-files-empty")
@pytest.mark.parametrize("name", FILES)
def test_a_directory_in_place_of_a_file_reads_as_missing(workspace: Workspace, name: str) -> None:
    """A directory where a file should be (a file where the tastes folder should be) gives the missing file's result."""
    populate(workspace)
    baseline = workspace.read().context()
    path = target(workspace, name)
    if path.is_dir():
        shutil.rmtree(path)
        path.write_text("not a folder\n", encoding="utf-8")
    else:
        path.unlink()
        path.mkdir()
        (path / "inside.md").write_text("a file inside the directory\n", encoding="utf-8")
    try:
        context = workspace.read().context("read-context/tolerance/unreadable-files-empty")
    finally:
        if path.is_file() and name == "tastes folder":  # the next workspace empties the tastes folder as a folder
            path.unlink()
            path.mkdir()
    for piece, value in expected_without(baseline, name).items():
        require(
            comparable(context)[piece] == value,
            "read-context/tolerance/unreadable-files-empty",
            f"{name} unreadable: {piece} is {context[piece]}",
        )


@requirement("read-context/tolerance/unreadable-files-empty", "read-context/tolerance/missing-genre-file")
def test_a_directory_in_place_of_a_genre_file_reads_as_missing(workspace: Workspace) -> None:
    """A directory named like a declared genre file is that genre missing: left out or '', and in no conflict."""
    populate(workspace)
    (workspace.tastes_dir / "wildlife.md").unlink()
    (workspace.tastes_dir / "wildlife.md").mkdir()
    context = workspace.read().context("read-context/tolerance/unreadable-files-empty")
    genres = context["tastes"]["genres"]
    require(
        {k: v for k, v in genres.items() if v} == {"underwater": UNDERWATER} and genres.get("wildlife", "") == "",
        "read-context/tolerance/unreadable-files-empty",
        f"genres {genres}",
    )
    require(context["tastes"]["conflicts"] == [], "read-context/tolerance/missing-genre-file", str(context["tastes"]))


# --- bytes that are not UTF-8 ------------------------------------------------------------------------


def replaced(data: bytes) -> str:
    """The text under the replacement reading: each invalid byte becomes U+FFFD."""
    return data.decode("utf-8", "replace")


@requirement("read-context/tolerance/non-utf8-files")
def test_a_brief_with_invalid_bytes_follows_a_reading(workspace: Workspace) -> None:
    """A brief with a byte that is not UTF-8 is empty (unreadable) or decoded with U+FFFD; never an error."""
    workspace.taste("underwater", UNDERWATER)
    data = b"# Manta\nTastes: underwater\nMoody \xff blue water.\n"
    workspace.write("brief.md", data)
    context = workspace.read().context("read-context/tolerance/non-utf8-files")
    brief = context["brief"]
    readings = [("", "", []), (replaced(data), "# Manta\nMoody \ufffd blue water.", ["underwater"])]
    require(
        (brief["raw"], brief["intent"].strip(), brief["tastes"]) in readings,
        "read-context/tolerance/non-utf8-files",
        f"brief {brief}",
    )
    require(
        {k: v for k, v in context["tastes"]["genres"].items() if v} == ({"underwater": UNDERWATER} if brief["tastes"] else {}),
        "read-context/tolerance/non-utf8-files",
        f"genres {context['tastes']['genres']} for declared {brief['tastes']}",
    )


@requirement("read-context/tolerance/non-utf8-files", "read-context/summarization/short-notes-raw")
@pytest.mark.parametrize(
    "data",
    [b"Session \xff one.\n", b"\xc3\x28 truncated sequence\nsecond line\n", b"\xe2\x82 cut euro\n"],
    ids=["ff", "bad-continuation", "cut-sequence"],
)
def test_short_notes_with_invalid_bytes_follow_a_reading(workspace: Workspace, data: bytes) -> None:
    """Short notes with invalid bytes are empty and not truncated, or decoded with U+FFFD and returned raw."""
    workspace.write("notes.md", data)
    notes = workspace.read().context("read-context/tolerance/non-utf8-files")["notes"]
    readings = [{"summary": "", "truncated": False}, {"summary": replaced(data), "truncated": False}]
    require(notes in readings, "read-context/tolerance/non-utf8-files", f"notes {notes}")


@requirement("read-context/tolerance/non-utf8-files", "read-context/summarization/head-first-10")
def test_long_notes_with_invalid_bytes_follow_a_reading(workspace: Workspace) -> None:
    """Long notes with invalid bytes in the head and in the elided middle are empty, or summarized from the decoded text."""
    lines = [f"line {n}".encode() for n in range(1, 61)]
    lines[4] += b" \xff head"
    lines[24] += b" \xfe elided"
    data = b"\n".join(lines) + b"\n"
    workspace.write("notes.md", data)
    notes = workspace.read().context("read-context/tolerance/non-utf8-files")["notes"]
    text = replaced(data).split("\n")
    summary = "\n".join(text[:10]) + "\n\n... [20 lines elided] ...\n\n" + "\n".join(text[30:60])
    readings = [
        {"summary": "", "truncated": False},
        {"summary": summary, "truncated": True},
        {"summary": summary + "\n", "truncated": True},
    ]
    require(notes in readings, "read-context/tolerance/non-utf8-files", f"notes {str(notes)[:300]}")


@requirement(
    "read-context/tolerance/non-utf8-files",
    "read-context/loading-order/recent-log-newest-first",
    "read-context/loading-order/recent-gaps-newest-first",
)
@pytest.mark.parametrize("name", ["log.jsonl", "vocabulary_gaps.jsonl"])
def test_jsonl_with_invalid_bytes_follows_a_reading(workspace: Workspace, name: str) -> None:
    """A JSONL line with an invalid byte empties the list, is skipped alone, or is read with U+FFFD."""
    lines = (
        [{"timestamp": "t0", "op": "tag", "name": "first"}, {"timestamp": "t1", "op": "tag", "name": "BAD"}, {"op": "tag"}]
        if name == "log.jsonl"
        else [{"image_id": "i", "description": d, "timestamp": "t"} for d in ("first", "BAD", "last")]
    )
    data = jsonl(lines).encode().replace(b"BAD", b"B\xffD")
    workspace.write(name, data)
    context = workspace.read().context("read-context/tolerance/non-utf8-files")
    if name == "log.jsonl":
        found = context["recent_log"]
        shaped = [
            {
                "timestamp": e.get("timestamp", ""),
                "op": e["op"],
                "details": {k: v for k, v in e.items() if k not in ("timestamp", "op")},
            }
            for e in lines
        ]
    else:
        found = [gap_core(g) for g in context["recent_gaps"]]
        shaped = [{**FRESH_GAP, **e} for e in lines]
    with_fffd = json.loads(json.dumps(shaped[::-1]).replace("BAD", "B\\ufffdD"))
    readings = [[], [shaped[2], shaped[0]], with_fffd]
    if found[::-1] in readings and found not in readings:
        raise RequirementFailure(NEWEST_FIRST[name], f"{name}: oldest first")
    require(found in readings, "read-context/tolerance/non-utf8-files", f"{name}: {found}")


@requirement("read-context/tolerance/non-utf8-files", "read-context/tolerance/missing-genre-file")
def test_taste_files_with_invalid_bytes_follow_a_reading(workspace: Workspace) -> None:
    """_default.md and a genre file with invalid bytes are empty (the genre missing) or decoded with U+FFFD."""
    default, genre = b"# All\nwarm \xff tones\n", b"# Wildlife\n\xfe sharp\nKeep the grain subtle.\n"
    workspace.taste("_default", default)
    workspace.taste("underwater", UNDERWATER)
    workspace.taste("wildlife", genre)
    workspace.write("brief.md", "Tastes: underwater, wildlife\n")
    tastes = workspace.read().context("read-context/tolerance/non-utf8-files")["tastes"]
    require(tastes["default"] in ("", replaced(default)), "read-context/tolerance/non-utf8-files", repr(tastes["default"]))
    wildlife = tastes["genres"].get("wildlife", "")
    require(wildlife in ("", replaced(genre)), "read-context/tolerance/non-utf8-files", repr(wildlife))
    require(tastes["genres"].get("underwater") == UNDERWATER, "read-context/tolerance/non-utf8-files", str(tastes["genres"]))
    expected = {"Keep the grain subtle.": frozenset({"underwater", "wildlife"})} if wildlife else {}
    require(conflicts_of({"tastes": tastes}) == expected, "read-context/tolerance/non-utf8-files", str(tastes["conflicts"]))


@requirement("read-context/tolerance/non-utf8-files", "read-context/response-shape/structured-top-prose-body")
def test_valid_non_ascii_utf8_comes_back_exactly(workspace: Workspace) -> None:
    """Valid UTF-8 beyond ASCII (accents, CJK, emoji, combining marks) comes back exactly from every file."""
    text = "Ünïcode — 水中写真 🐠 e\u0301 \u200d\n"
    workspace.taste("_default", text)
    workspace.taste("underwater", text + "ok\n")
    workspace.write("brief.md", "Tastes: underwater\n" + text)
    workspace.write("notes.md", text)
    workspace.write("log.jsonl", json.dumps({"op": "tag", "name": text}, ensure_ascii=False) + "\n")
    workspace.write("vocabulary_gaps.jsonl", json.dumps({"description": text, "image_id": "i"}, ensure_ascii=False) + "\n")
    context = workspace.read().context("read-context/tolerance/non-utf8-files")
    require(context["tastes"]["default"] == text, "read-context/tolerance/non-utf8-files", repr(context["tastes"]["default"]))
    require(
        context["tastes"]["genres"] == {"underwater": text + "ok\n"},
        "read-context/tolerance/non-utf8-files",
        str(context["tastes"]),
    )
    require(
        context["brief"]["raw"] == "Tastes: underwater\n" + text, "read-context/tolerance/non-utf8-files", repr(context["brief"])
    )
    require(context["notes"]["summary"] == text, "read-context/tolerance/non-utf8-files", repr(context["notes"]))
    require(
        context["recent_log"][0]["details"] == {"name": text}, "read-context/tolerance/non-utf8-files", str(context["recent_log"])
    )
    require(
        context["recent_gaps"][0]["description"] == text, "read-context/tolerance/non-utf8-files", str(context["recent_gaps"])
    )


# --- garbage, enormous and empty files ---------------------------------------------------------------

TARGETS: Final = ("brief.md", "notes.md", "log.jsonl", "vocabulary_gaps.jsonl", "_default.md", "underwater.md")


def write_bytes(workspace: Workspace, name: str, data: bytes) -> None:
    """Write a workspace or taste file by name."""
    target(workspace, name).write_bytes(data)


@requirement("read-context/tolerance/non-utf8-files", "read-context/tolerance/unreadable-files-empty")
@pytest.mark.parametrize("seed", range(3))
def test_binary_garbage_in_every_file_is_never_an_error(workspace: Workspace, seed: int) -> None:
    """100 KB of random bytes in every file gives a response of the fixed shape, never an error."""
    rng = random.Random(seed)  # noqa: S311 - reproducible test data, not secrets
    for name in TARGETS:
        write_bytes(workspace, name, rng.randbytes(100_000))
    workspace.read().context("read-context/tolerance/unreadable-files-empty")


@requirement("read-context/tolerance/non-utf8-files")
@given(files=st.fixed_dictionaries({name: st.binary(max_size=600) for name in TARGETS}))
def test_any_bytes_in_any_file_are_never_an_error(implementation: Implementation, files: dict[str, bytes]) -> None:
    """Arbitrary bytes in all six files give a response of the fixed shape, never an error."""
    with fresh_workspace(implementation) as workspace:
        for name, data in files.items():
            write_bytes(workspace, name, data)
        workspace.write("brief.md", b"Tastes: underwater\n" + files["brief.md"])
        workspace.read().context("read-context/tolerance/non-utf8-files")


@requirement("read-context/summarization/short-notes-raw", "read-context/tolerance/unreadable-files-empty")
@pytest.mark.parametrize("ending", ["", "\n"])
def test_an_enormous_single_line_of_notes_comes_back_raw(workspace: Workspace, ending: str) -> None:
    """notes.md of one 5 MB line is one line: returned whole, not truncated."""
    text = "n" * MEGABYTES + ending
    workspace.write("notes.md", text)
    notes = workspace.read().context("read-context/tolerance/unreadable-files-empty")["notes"]
    require(notes["truncated"] is False, "read-context/summarization/short-notes-raw", "one line was truncated")
    require(notes["summary"] == text, "read-context/summarization/short-notes-raw", f"{len(notes['summary'])} characters back")


@requirement("read-context/consequences/size-bounded", "read-context/summarization/elision-marker")
def test_an_enormous_elided_line_is_left_out(workspace: Workspace) -> None:
    """A 5 MB line among 100 short ones is elided: the summary is head, marker with N = 60 and tail, no bigger."""
    lines = [f"line {n}" for n in range(1, 101)]
    lines[49] = "x" * MEGABYTES
    workspace.write("notes.md", "\n".join(lines) + "\n")
    notes = workspace.read().context("read-context/tolerance/unreadable-files-empty")["notes"]
    summary = "\n".join(lines[:10]) + "\n\n... [60 lines elided] ...\n\n" + "\n".join(lines[70:])
    require(
        notes["summary"] in (summary, summary + "\n"),
        "read-context/consequences/size-bounded",
        f"{len(notes['summary'])} characters",
    )
    assert notes["truncated"] is True


@requirement(
    "read-context/tolerance/malformed-jsonl-lines",
    "read-context/tolerance/unreadable-files-empty",
    "read-context/loading-order/recent-log-newest-first",
    "read-context/loading-order/recent-gaps-newest-first",
)
@pytest.mark.parametrize("name", ["log.jsonl", "vocabulary_gaps.jsonl"])
def test_an_enormous_garbage_line_in_jsonl_is_never_an_error(workspace: Workspace, name: str) -> None:
    """A 5 MB line that is not JSON between two good lines is skipped or empties the list; never an error."""
    first, last = (
        ({"op": "tag", "timestamp": "a"}, {"op": "reset", "timestamp": "b"})
        if name == "log.jsonl"
        else ({"description": "a", "image_id": "i", "timestamp": "t"}, {"description": "b", "image_id": "i", "timestamp": "t"})
    )
    workspace.write(name, json.dumps(first) + "\n" + "{" * MEGABYTES + "\n" + json.dumps(last) + "\n")
    context = workspace.read().context("read-context/tolerance/malformed-jsonl-lines")
    if name == "log.jsonl":
        found = [e["timestamp"] for e in context["recent_log"]]
    else:
        found = [g["description"] for g in context["recent_gaps"]]
    if found == ["a", "b"]:
        raise RequirementFailure(NEWEST_FIRST[name], f"{name}: oldest first")
    require(found in (["b", "a"], []), "read-context/tolerance/malformed-jsonl-lines", f"{name}: {found}")


@requirement(
    "read-context/loading-order/recent-log-last-10",
    "read-context/loading-order/recent-log-newest-first",
    "read-context/tolerance/unreadable-files-empty",
)
def test_an_enormous_valid_line_before_the_last_10_does_not_matter(workspace: Workspace) -> None:
    """A 5 MB JSON line older than the last 10 entries leaves recent_log the last 10 entries."""
    lines = [{"op": "tag", "timestamp": f"t{n}", "n": n} for n in range(12)]
    lines[0]["blob"] = "b" * MEGABYTES
    workspace.write("log.jsonl", jsonl(lines))
    log = limited_context(workspace.read(), "read-context/tolerance/unreadable-files-empty")["recent_log"]
    found = [e["details"].get("n") for e in log]
    require(
        sorted(map(str, found)) == sorted(map(str, range(2, 12))), "read-context/loading-order/recent-log-last-10", str(found)
    )
    require(found == list(range(11, 1, -1)), "read-context/loading-order/recent-log-newest-first", str(found))


@requirement("read-context/tolerance/fresh-workspace", "read-context/tolerance/missing-files-empty")
def test_empty_files_give_the_empty_response(workspace: Workspace) -> None:
    """All four workspace files and _default.md present but empty give exactly the fresh response."""
    for name in ("brief.md", "notes.md", "log.jsonl", "vocabulary_gaps.jsonl"):
        workspace.write(name, "")
    workspace.taste("_default", "")
    workspace.taste("underwater", "")
    context = workspace.read().context("read-context/tolerance/fresh-workspace")
    require(context == FRESH, "read-context/tolerance/missing-files-empty", f"response {context}")


@requirement("read-context/tolerance/fresh-workspace")
def test_fresh_workspace_without_a_tastes_folder(workspace: Workspace) -> None:
    """An empty workspace with no tastes folder at all gives exactly the fresh response."""
    shutil.rmtree(workspace.tastes_dir)
    context = workspace.read().context("read-context/tolerance/fresh-workspace")
    require(context == FRESH, "read-context/tolerance/fresh-workspace", f"response {context}")


@requirement("read-context/tolerance/fresh-workspace", "read-context/loading-order/default-taste-always-loads")
def test_fresh_workspace_still_gets_the_global_tastes(workspace: Workspace) -> None:
    """An empty workspace gets _default.md and otherwise the empty structs."""
    workspace.taste("_default", DEFAULT)
    workspace.taste("underwater", UNDERWATER)
    context = workspace.read().context("read-context/tolerance/fresh-workspace")
    expected = {**FRESH, "tastes": {**EMPTY_TASTES, "default": DEFAULT}}
    require(context == expected, "read-context/tolerance/fresh-workspace", f"response {context}")
