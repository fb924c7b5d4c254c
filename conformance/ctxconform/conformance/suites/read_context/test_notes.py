"""Notes summarization: raw up to 40 lines, else the first 10, the elision marker with N = lines - 40, and the last 30."""

from __future__ import annotations

from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance.suites.read_context import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.read_context.client import Workspace, as_text, fresh_workspace, raw_of
from ctxconform.conformance.suites.read_context.notes import (
    LONG,
    SHORT,
    THRESHOLD,
    check_constants,
    check_notes,
    lines_of,
)
from ctxconform.conformance.testing import Implementation, check, check_equal, requirement

Json = dict[str, Any]

# Every character str.splitlines breaks at: the suite's lines contain none of them (summarization/threshold).
BREAKS: Final = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
line_text = st.text(st.characters(exclude_characters=BREAKS, exclude_categories=["Cs"]), max_size=30)


def notes_text(lines: list[str], ending: str = "\n", final: bool = True) -> str:
    """A notes file of `lines` with `ending` breaks, and a final break when `final`."""
    return ending.join(lines) + (ending if final and lines else "")


def numbered(count: int) -> list[str]:
    """`count` distinguishable lines."""
    return [f"line {n:05d} of the session notes" for n in range(1, count + 1)]


def notes_of(workspace: Workspace, text: str | bytes, requirement: str) -> Json:
    """Write notes.md and return the notes piece; a refusal fails `requirement`."""
    workspace.write("notes.md", text)
    notes: Json = workspace.context(requirement)["notes"]
    return notes


@requirement(*SHORT, R.IMPLEMENTATION_NOTES_NOTES_CONSTANTS)
@pytest.mark.parametrize("count", [39, 40])
@pytest.mark.parametrize(("ending", "final"), [("\n", True), ("\n", False), ("\r\n", True), ("\r\n", False)])
def test_short_notes_at_the_threshold(workspace: Workspace, count: int, ending: str, final: bool) -> None:
    """39 and 40 lines come back raw and not truncated, whatever their line breaks."""
    text = notes_text(numbered(count), ending, final)
    notes = notes_of(workspace, text, R.SUMMARIZATION_THRESHOLD)
    check_notes(notes, text)
    check_constants(notes, text)


@requirement(*LONG, R.IMPLEMENTATION_NOTES_NOTES_CONSTANTS)
@pytest.mark.parametrize("count", [41, 42])
@pytest.mark.parametrize(("ending", "final"), [("\n", True), ("\n", False), ("\r\n", True), ("\r\n", False)])
def test_long_notes_at_the_threshold(workspace: Workspace, count: int, ending: str, final: bool) -> None:
    """41 and 42 lines give head, marker with N = 1 or 2, and tail, flagged truncated."""
    text = notes_text(numbered(count), ending, final)
    notes = notes_of(workspace, text, R.SUMMARIZATION_THRESHOLD)
    # The constants first: a cut at the wrong line breaks them, whichever of head and tail shows it.
    check_constants(notes, text)
    check_notes(notes, text)


@requirement(*LONG)
def test_41_lines_give_the_exact_summary(workspace: Workspace) -> None:
    r"""41 numbered lines: lines 1-10, '\n\n... [1 lines elided] ...\n\n', lines 12-41."""
    lines = numbered(41)
    notes = notes_of(workspace, notes_text(lines, final=False), R.SUMMARIZATION_TRUNCATED_TRUE)
    check_notes(notes, notes_text(lines, final=False))
    expected = "\n".join(lines[:10]) + "\n\n... [1 lines elided] ...\n\n" + "\n".join(lines[11:])
    check_equal(R.SUMMARIZATION_TAIL_LAST_30, notes, {"summary": expected, "truncated": True}, "the notes piece")


@requirement(*LONG)
@pytest.mark.parametrize("line", ["x", "", " "], ids=["one-character", "blank", "space"])
def test_long_notes_of_short_lines_are_truncated(workspace: Workspace, line: str) -> None:
    """41 very short lines are truncated even though the marker makes the summary longer than the file."""
    text = notes_text([line] * 41)
    notes = notes_of(workspace, text, R.SUMMARIZATION_TRUNCATED_TRUE)
    check_notes(notes, text)


@requirement(*SHORT, R.RESPONSE_SHAPE_STRUCTURED_TOP_PROSE_BODY)
@pytest.mark.parametrize(
    "text",
    [
        "one line, no break",
        "one line\n",
        "\n",
        "\n\n\n",
        "# Session 3\r\n\r\n- tried **clarity** +20\r\n- reverted\r\n",
        "mixed\r\nendings\nhere\r\n",
        "  leading spaces\n\ttabs\ntrailing   \n\n",
        "Ünïcode — 水中写真 🐠\n",
        "\n".join(["x"] * 40),
        "\n".join(["x"] * 40) + "\n",
    ],
    ids=["no-break", "one", "blank", "blanks", "crlf", "mixed", "whitespace", "unicode", "40-no-final", "40-final"],
)
def test_short_notes_come_back_exactly(workspace: Workspace, text: str) -> None:
    r"""Notes of at most 40 lines come back as written (blank lines, whitespace; \r\n as a reading allows), not truncated."""
    notes = notes_of(workspace, text, R.SUMMARIZATION_SHORT_NOTES_RAW)
    check_notes(notes, text)
    found = {**notes, "summary": as_text(notes["summary"])}
    expected = {"summary": as_text(text), "truncated": False}
    check_equal(R.RESPONSE_SHAPE_STRUCTURED_TOP_PROSE_BODY, found, expected, r"the notes piece, line breaks read as \n")


@requirement(R.LOADING_ORDER_NOTES_TRUNCATED_FLAG, R.RESPONSE_SHAPE_NOTES_OBJECT)
@pytest.mark.parametrize("content", [None, ""], ids=["missing", "empty"])
def test_missing_or_empty_notes_are_not_truncated(workspace: Workspace, content: str | None) -> None:
    """Missing or empty notes.md gives summary '' and truncated false (a JSON boolean)."""
    workspace.write("brief.md", "Manta.\n")  # the workspace is not empty: this is not tolerance/fresh-workspace
    if content is not None:
        workspace.write("notes.md", content)
    checked = workspace.read(R.LOADING_ORDER_NOTES_TRUNCATED_FLAG)
    raw = raw_of(checked, R.LOADING_ORDER_NOTES_TRUNCATED_FLAG)
    notes = raw.get("notes") if isinstance(raw, dict) else None
    keys = sorted(notes) if isinstance(notes, dict) else notes
    check_equal(R.RESPONSE_SHAPE_NOTES_OBJECT, keys, ["summary", "truncated"], "the keys of notes")
    notes = checked.expect(R.LOADING_ORDER_NOTES_TRUNCATED_FLAG)["notes"]
    check_equal(R.LOADING_ORDER_NOTES_TRUNCATED_FLAG, notes, {"summary": "", "truncated": False}, "the notes piece")


@st.composite
def notes_texts(draw: st.DrawFn, max_lines: int = 3000) -> str:
    r"""Notes of up to `max_lines` lines drawn from hypothesis text, sometimes numbered, with \n or \r\n breaks."""
    count = draw(st.one_of(st.integers(0, 60), st.integers(0, max_lines)))
    pool = draw(st.lists(line_text, min_size=1, max_size=50))
    numbering = draw(st.booleans())
    lines = [f"{n} {pool[n % len(pool)]}" if numbering else pool[n % len(pool)] for n in range(count)]
    return notes_text(lines, draw(st.sampled_from(["\n", "\r\n"])), draw(st.booleans()))


@requirement(*dict.fromkeys((*SHORT, *LONG, R.IMPLEMENTATION_NOTES_NOTES_CONSTANTS)))
@given(text=notes_texts())
def test_generated_notes_follow_the_rule(implementation: Implementation, text: str) -> None:
    """For generated notes of 0 to 3000 lines the summary and flag are exactly the ADR's."""
    with fresh_workspace(implementation) as workspace:
        workspace.write("brief.md", "Manta.\n")
        notes = notes_of(workspace, text, R.SUMMARIZATION_THRESHOLD)
    check_notes(notes, text)
    check_constants(notes, text)


@requirement(*LONG, R.IMPLEMENTATION_NOTES_NOTES_CONSTANTS)
@given(count=st.integers(THRESHOLD + 1, 5000), lines=st.lists(line_text, min_size=1, max_size=5))
def test_marker_counts_the_elided_lines(implementation: Implementation, count: int, lines: list[str]) -> None:
    """N in the marker is the line count minus 40, whatever the lines hold."""
    text = notes_text([lines[n % len(lines)] for n in range(count)])
    with fresh_workspace(implementation) as workspace:
        notes = notes_of(workspace, text, R.SUMMARIZATION_ELISION_MARKER)
    check_notes(notes, text)
    check_constants(notes, text)


@requirement(*LONG)
def test_very_long_notes_still_give_43_lines(workspace: Workspace) -> None:
    """Notes of 100,000 lines give a summary of 43 lines with N = 99960."""
    text = notes_text(numbered(100_000))
    notes = notes_of(workspace, text, R.CONSEQUENCES_SIZE_BOUNDED)
    # Bounded first: notes of 3 MB that come back whole break the bound, whatever else they break.
    lines = len(lines_of(str(notes.get("summary", ""))))
    check(R.CONSEQUENCES_SIZE_BOUNDED, lines <= 43, "3 MB of notes give a summary this long", received=lines, expected="<= 43")
    check_notes(notes, text)
    marker = "... [99960 lines elided] ..."
    check(R.SUMMARIZATION_ELISION_MARKER, marker in notes["summary"], "no marker with N = 99960", expected=marker)


@requirement(R.SUMMARIZATION_DETERMINISTIC, R.CONSEQUENCES_MARKDOWN_STAYS_HUMAN_EDITED)
def test_the_summary_is_the_same_on_every_call(workspace: Workspace) -> None:
    """Repeated calls on unchanged long and short notes give identical responses."""
    for text in (notes_text(numbered(120)), "short\nnotes\n"):
        workspace.write("notes.md", text)
        first = workspace.context(R.SUMMARIZATION_DETERMINISTIC)
        for _ in range(3):
            later = workspace.context(R.SUMMARIZATION_DETERMINISTIC)
            # The workspace must stay unchanged for the responses to be comparable: reading it only reads.
            written = sorted(path.name for path in workspace.folder.iterdir())
            check_equal(R.CONSEQUENCES_MARKDOWN_STAYS_HUMAN_EDITED, written, ["notes.md"], "the workspace's files")
            check_equal(
                R.CONSEQUENCES_MARKDOWN_STAYS_HUMAN_EDITED,
                (workspace.folder / "notes.md").read_text(encoding="utf-8"),
                text,
                "notes.md",
            )
            check_equal(R.SUMMARIZATION_DETERMINISTIC, later["notes"], first["notes"], "a later call's notes")
            check_equal(R.SUMMARIZATION_DETERMINISTIC, later, first, "a later call's response")


@requirement(R.SUMMARIZATION_DETERMINISTIC)
@given(text=notes_texts(max_lines=300))
def test_equal_notes_give_equal_summaries(implementation: Implementation, text: str) -> None:
    """Two images whose notes have the same text get the same notes piece."""
    with fresh_workspace(implementation) as first, fresh_workspace(implementation) as second:
        first.write("notes.md", text)
        second.write("notes.md", text)
        one = first.context(R.SUMMARIZATION_DETERMINISTIC)["notes"]
        two = second.context(R.SUMMARIZATION_DETERMINISTIC)["notes"]
    check_equal(R.SUMMARIZATION_DETERMINISTIC, two, one, "the second image's notes")


@requirement(R.LOADING_ORDER_NOTES_PER_IMAGE)
def test_each_image_reads_its_own_notes(implementation: Implementation, workspace: Workspace) -> None:
    """Two images with different notes (one long, one short) each get their own."""
    long_notes = notes_text(numbered(90))
    with fresh_workspace(implementation) as other:
        workspace.write("notes.md", long_notes)
        other.write("notes.md", "the other image\n")
        mine = workspace.context(R.LOADING_ORDER_NOTES_PER_IMAGE)["notes"]
        theirs = other.context(R.LOADING_ORDER_NOTES_PER_IMAGE)["notes"]
    # Whose notes each image got: how they are cut and spaced is summarization's.
    sources = [
        "line 00001 of the session notes" in mine["summary"] and "line 00090 of the session notes" in mine["summary"],
        theirs["summary"].strip() == "the other image",
    ]
    shown = {"first": mine["summary"][:200], "second": theirs["summary"][:200]}
    check_equal(R.LOADING_ORDER_NOTES_PER_IMAGE, sources, [True, True], "each image's notes are its own", sent=shown)


@requirement(*LONG)
def test_blank_lines_at_the_edges_count_as_lines(workspace: Workspace) -> None:
    """Blank lines at the start and end of long notes are lines like any other, kept in head and tail."""
    text = notes_text(["", "", *numbered(60), "", ""])
    notes = notes_of(workspace, text, R.SUMMARIZATION_HEAD_FIRST_10)
    check_notes(notes, text)
    check(R.SUMMARIZATION_HEAD_FIRST_10, notes["summary"].startswith("\n\nline 00001"), "the blank first lines are gone")
