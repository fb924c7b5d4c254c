"""Notes summarization: raw up to 40 lines, else the first 10, the elision marker with N = lines - 40, and the last 30."""

from __future__ import annotations

from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance.exceptions import RequirementFailure
from ctxconform.conformance.suites.read_context.client import Workspace, fresh_workspace, require

requirement = pytest.mark.requirement
Json = dict[str, Any]

HEAD: Final = 10
TAIL: Final = 30
THRESHOLD: Final = HEAD + TAIL
# Every character str.splitlines breaks at: the suite's lines contain none of them (summarization/threshold).
BREAKS: Final = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
line_text = st.text(st.characters(exclude_characters=BREAKS, exclude_categories=["Cs"]), max_size=30)


def lines_of(text: str) -> list[str]:
    r"""The file's lines: split at \n, a \r before it belongs to the break, a final break starts no line."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if lines[-1] == "":
        lines.pop()
    return lines


def notes_text(lines: list[str], ending: str = "\n", final: bool = True) -> str:
    """A notes file of `lines` with `ending` breaks, and a final break when `final`."""
    return ending.join(lines) + (ending if final and lines else "")


def numbered(count: int) -> list[str]:
    """`count` distinguishable lines."""
    return [f"line {n:05d} of the session notes" for n in range(1, count + 1)]


def check_notes(notes: Json, text: str) -> None:
    """Check {summary, truncated} against the ADR's rule for `text`, pinning each difference to its requirement."""
    lines = lines_of(text)
    summary, truncated = notes["summary"], notes["truncated"]
    if len(lines) <= THRESHOLD:
        # Raw but flagged truncated breaks the flag; summarized at all breaks the threshold.
        flag = "read-context/loading-order/notes-truncated-flag" if summary == text else "read-context/summarization/threshold"
        require(truncated is False, flag, f"{len(lines)} lines gave truncated {truncated}")
        require(summary == text, "read-context/summarization/short-notes-raw", f"{len(lines)} lines gave {summary[:200]!r}")
        return
    if truncated is not True:
        # Summarized but flagged otherwise breaks the flag; not summarized at all breaks the threshold.
        summarized = " lines elided] ..." in summary
        rid = "read-context/summarization/truncated-true" if summarized else "read-context/summarization/threshold"
        raise RequirementFailure(rid, f"{len(lines)} lines gave truncated {truncated}")
    head = "\n".join(lines[:HEAD])
    marker = f"\n\n... [{len(lines) - THRESHOLD} lines elided] ...\n\n"
    tail = "\n".join(lines[-TAIL:])
    require(
        summary.startswith(head + "\n\n... ["),
        "read-context/summarization/head-first-10",
        f"{len(lines)} lines: the summary starts {summary[: len(head) + 40]!r}",
    )
    require(
        summary[len(head) :].startswith(marker),
        "read-context/summarization/elision-marker",
        f"{len(lines)} lines: after the head comes {summary[len(head) : len(head) + 40]!r}, expected {marker!r}",
    )
    final = "\r\n" if text.endswith("\r\n") else "\n" if text.endswith("\n") else ""
    rest = summary[len(head) + len(marker) :]
    require(
        rest in (tail, tail + final),
        "read-context/summarization/tail-last-30",
        f"{len(lines)} lines: after the marker comes {rest[:80]!r}...{rest[-80:]!r}",
    )
    require(
        len(lines_of(summary)) <= HEAD + 3 + TAIL,
        "read-context/consequences/size-bounded",
        f"{len(lines_of(summary))} lines in the summary",
    )


def notes_of(workspace: Workspace, text: str | bytes) -> Json:
    """Write notes.md and return the notes piece."""
    workspace.write("notes.md", text)
    notes: Json = workspace.read().context()["notes"]
    return notes


@requirement(
    "read-context/summarization/threshold",
    "read-context/summarization/short-notes-raw",
    "read-context/summarization/truncated-true",
    "read-context/summarization/head-first-10",
    "read-context/summarization/elision-marker",
    "read-context/summarization/tail-last-30",
    "read-context/implementation-notes/notes-constants",
    "read-context/loading-order/notes-truncated-flag",
)
@pytest.mark.parametrize("count", [39, 40, 41, 42])
@pytest.mark.parametrize(("ending", "final"), [("\n", True), ("\n", False), ("\r\n", True), ("\r\n", False)])
def test_notes_at_the_threshold(workspace: Workspace, count: int, ending: str, final: bool) -> None:
    """39 and 40 lines come back raw and not truncated; 41 and 42 lines give head, marker with N = 1 or 2, and tail."""
    text = notes_text(numbered(count), ending, final)
    notes = notes_of(workspace, text)
    check_notes(notes, text)
    require(
        notes["truncated"] is (count > THRESHOLD),
        "read-context/loading-order/notes-truncated-flag",
        f"{count} lines gave truncated {notes['truncated']}",
    )


@requirement(
    "read-context/summarization/head-first-10",
    "read-context/summarization/elision-marker",
    "read-context/summarization/tail-last-30",
    "read-context/summarization/truncated-true",
)
def test_41_lines_give_the_exact_summary(workspace: Workspace) -> None:
    r"""41 numbered lines: lines 1-10, '\n\n... [1 lines elided] ...\n\n', lines 12-41."""
    lines = numbered(41)
    notes = notes_of(workspace, notes_text(lines, final=False))
    check_notes(notes, notes_text(lines, final=False))
    expected = "\n".join(lines[:10]) + "\n\n... [1 lines elided] ...\n\n" + "\n".join(lines[11:])
    assert notes == {"summary": expected, "truncated": True}


@requirement("read-context/summarization/truncated-true", "read-context/loading-order/notes-truncated-flag")
@pytest.mark.parametrize("line", ["x", "", " "], ids=["one-character", "blank", "space"])
def test_long_notes_of_short_lines_are_truncated(workspace: Workspace, line: str) -> None:
    """41 very short lines are truncated even though the marker makes the summary longer than the file."""
    text = notes_text([line] * 41)
    notes = notes_of(workspace, text)
    check_notes(notes, text)
    require(notes["truncated"] is True, "read-context/summarization/truncated-true", f"truncated {notes['truncated']}")


@requirement("read-context/summarization/short-notes-raw", "read-context/response-shape/structured-top-prose-body")
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
    r"""Notes of at most 40 lines are returned byte for byte (breaks, blank lines, whitespace, \r\n) and not truncated."""
    notes = notes_of(workspace, text)
    check_notes(notes, text)
    assert notes == {"summary": text, "truncated": False}


@requirement("read-context/loading-order/notes-truncated-flag", "read-context/response-shape/notes-object")
@pytest.mark.parametrize("content", [None, ""], ids=["missing", "empty"])
def test_missing_or_empty_notes_are_not_truncated(workspace: Workspace, content: str | None) -> None:
    """Missing or empty notes.md gives summary '' and truncated false (a JSON boolean)."""
    if content is not None:
        workspace.write("notes.md", content)
    assert workspace.read().context()["notes"] == {"summary": "", "truncated": False}


@st.composite
def notes_texts(draw: st.DrawFn, max_lines: int = 3000) -> str:
    r"""Notes of up to `max_lines` lines drawn from hypothesis text, sometimes numbered, with \n or \r\n breaks."""
    count = draw(st.one_of(st.integers(0, 60), st.integers(0, max_lines)))
    pool = draw(st.lists(line_text, min_size=1, max_size=50))
    numbering = draw(st.booleans())
    lines = [f"{n} {pool[n % len(pool)]}" if numbering else pool[n % len(pool)] for n in range(count)]
    return notes_text(lines, draw(st.sampled_from(["\n", "\r\n"])), draw(st.booleans()))


@requirement(
    "read-context/summarization/threshold",
    "read-context/summarization/short-notes-raw",
    "read-context/summarization/head-first-10",
    "read-context/summarization/elision-marker",
    "read-context/summarization/tail-last-30",
    "read-context/summarization/truncated-true",
    "read-context/implementation-notes/notes-constants",
    "read-context/consequences/size-bounded",
)
@given(text=notes_texts())
def test_generated_notes_follow_the_rule(implementation: Implementation, text: str) -> None:
    """For generated notes of 0 to 3000 lines the summary and flag are exactly the ADR's."""
    with fresh_workspace(implementation) as workspace:
        check_notes(notes_of(workspace, text), text)


@requirement(
    "read-context/summarization/elision-marker",
    "read-context/implementation-notes/notes-constants",
    "read-context/consequences/size-bounded",
)
@given(count=st.integers(THRESHOLD + 1, 5000), lines=st.lists(line_text, min_size=1, max_size=5))
def test_marker_counts_the_elided_lines(implementation: Implementation, count: int, lines: list[str]) -> None:
    """N in the marker is the line count minus 40, whatever the lines hold."""
    text = notes_text([lines[n % len(lines)] for n in range(count)])
    with fresh_workspace(implementation) as workspace:
        notes = notes_of(workspace, text)
    check_notes(notes, text)
    require(
        f"\n\n... [{count - THRESHOLD} lines elided] ...\n\n" in notes["summary"],
        "read-context/summarization/elision-marker",
        f"{count} lines: no marker with N = {count - THRESHOLD}",
    )


@requirement("read-context/consequences/size-bounded", "read-context/summarization/elision-marker")
def test_very_long_notes_still_give_43_lines(workspace: Workspace) -> None:
    """Notes of 100,000 lines give a summary of 43 lines with N = 99960."""
    text = notes_text(numbered(100_000))
    notes = notes_of(workspace, text)
    check_notes(notes, text)
    assert "... [99960 lines elided] ..." in notes["summary"]


@requirement("read-context/summarization/deterministic")
def test_the_summary_is_the_same_on_every_call(workspace: Workspace) -> None:
    """Repeated calls on unchanged long and short notes give identical responses."""
    for text in (notes_text(numbered(120)), "short\nnotes\n"):
        workspace.write("notes.md", text)
        first = workspace.read().context()
        for _ in range(3):
            require(workspace.read().context() == first, "read-context/summarization/deterministic", "a later call differed")


@requirement("read-context/summarization/deterministic")
@given(text=notes_texts(max_lines=300))
def test_equal_notes_give_equal_summaries(implementation: Implementation, text: str) -> None:
    """Two images whose notes have the same text get the same notes piece."""
    with fresh_workspace(implementation) as first, fresh_workspace(implementation) as second:
        first.write("notes.md", text)
        second.write("notes.md", text)
        one, two = first.read().context()["notes"], second.read().context()["notes"]
    require(one == two, "read-context/summarization/deterministic", f"{one['summary'][:80]!r} vs {two['summary'][:80]!r}")


@requirement("read-context/loading-order/notes-per-image")
def test_each_image_reads_its_own_notes(implementation: Implementation, workspace: Workspace) -> None:
    """Two images with different notes (one long, one short) each get their own."""
    long_notes = notes_text(numbered(90))
    with fresh_workspace(implementation) as other:
        workspace.write("notes.md", long_notes)
        other.write("notes.md", "the other image\n")
        mine, theirs = workspace.read().context()["notes"], other.read().context()["notes"]
    check_notes(mine, long_notes)
    assert theirs == {"summary": "the other image\n", "truncated": False}


@requirement("read-context/summarization/tail-last-30", "read-context/summarization/head-first-10")
def test_blank_lines_at_the_edges_count_as_lines(workspace: Workspace) -> None:
    """Blank lines at the start and end of long notes are lines like any other, kept in head and tail."""
    text = notes_text(["", "", *numbered(60), "", ""])
    notes = notes_of(workspace, text)
    check_notes(notes, text)
    assert notes["summary"].startswith("\n\nline 00001")
