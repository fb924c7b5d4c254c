"""The read-context reference itself: the incremental line counter and the notes summary it feeds."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.read_context import LineCounter, ReadContext, parse_brief, split_lines, summarize_notes
from ctxconform.reference.read_context._notes import MAX_NOTES_SUMMARY_BYTES
from ctxconform.reference.read_context._text import MAX_TEXT_BYTES

CHUNKS = st.lists(st.text(st.sampled_from("ab\n\r\u00e9"), max_size=30), min_size=1, max_size=8)


def true_count(data: bytes) -> int:
    r"""Lines by the ADR rule: split on \n, a final unterminated line counts, no phantom line after a final break."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def counted(path: Path, counter: LineCounter) -> int:
    """Count through the counter, as the reference does."""
    with path.open("rb") as handle:
        return counter.count(handle, os.fstat(handle.fileno()))


@settings(max_examples=150)
@given(chunks=CHUNKS, rewrite_at=st.integers(0, 8))
def test_the_counter_follows_appends_and_rewrites(tmp_path_factory: object, chunks: list[str], rewrite_at: int) -> None:
    """After every append, and after the file is rewritten shorter or changed in place, the count is exact."""
    path = Path(str(tmp_path_factory.mktemp("notes"))) / "notes.md"  # type: ignore[attr-defined]
    path.write_bytes(b"")
    counter = LineCounter()
    for index, chunk in enumerate(chunks):
        if index == rewrite_at:
            path.write_bytes(chunk.encode())
        else:
            with path.open("ab") as out:
                out.write(chunk.encode())
        assert counted(path, counter) == true_count(path.read_bytes())


def test_a_same_size_edit_of_the_end_is_noticed(tmp_path: Path) -> None:
    """Changing the last bytes without changing the size still recounts (the probe of the end differs)."""
    path = tmp_path / "notes.md"
    path.write_bytes(b"a\nb\nc\n")
    counter = LineCounter()
    assert counted(path, counter) == 3
    path.write_bytes(b"a\nb\n\n\n")
    assert counted(path, counter) == 4


def test_the_summary_of_a_growing_file_has_the_right_elided_count(tmp_path: Path) -> None:
    """The marker's N tracks lines - 40 as a notes file grows by appends."""
    path = tmp_path / "notes.md"
    counter = LineCounter()
    path.write_text("".join(f"line {n}\n" for n in range(45)))
    assert "[5 lines elided]" in summarize_notes(path, counter)["summary"]
    with path.open("a") as out:
        out.write("".join(f"more {n}\n" for n in range(100)))
    summary = summarize_notes(path, counter)["summary"]
    assert "[105 lines elided]" in summary
    assert summary.endswith("more 99")


def service(tmp_path: Path) -> ReadContext:
    """A reference over empty folders under tmp_path."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "tastes").mkdir()
    return ReadContext(tmp_path / "ws", tmp_path / "tastes")


def test_an_image_id_no_file_system_can_hold_is_refused_not_a_crash(tmp_path: Path) -> None:
    """A lone surrogate in the id is invalid_image_id, not an exception from the path layer."""
    with pytest.raises(SpecError) as raised:
        service(tmp_path).read_context("img\ud800")
    assert raised.value.code == "invalid_image_id"


def test_genres_with_non_ascii_names_load(tmp_path: Path) -> None:
    """A declared genre named in any script loads from its file."""
    reference = service(tmp_path)
    (tmp_path / "ws" / "img").mkdir()
    (tmp_path / "ws" / "img" / "brief.md").write_text("Tastes: ünterwasser, 黑白\n", encoding="utf-8")
    (tmp_path / "tastes" / "ünterwasser.md").write_text("blau\n", encoding="utf-8")
    (tmp_path / "tastes" / "黑白.md").write_text("kontrast\n", encoding="utf-8")
    assert reference.read_context("img")["tastes"]["genres"] == {"ünterwasser": "blau\n", "黑白": "kontrast\n"}


def test_notes_whose_last_lines_are_huge_are_still_summarized(tmp_path: Path) -> None:
    """The last 30 lines come back whole even when together they exceed the JSONL readers' scan bound."""
    reference = service(tmp_path)
    (tmp_path / "ws" / "img").mkdir()
    long_line = "x" * (1 << 20)
    (tmp_path / "ws" / "img" / "notes.md").write_text("short\n" * 20 + (long_line + "\n") * 30, encoding="utf-8")
    notes = reference.read_context("img")["notes"]
    assert notes["truncated"] is True
    assert notes["summary"].endswith(long_line)
    assert "[10 lines elided]" in notes["summary"]


def line_by_line_brief(raw: str) -> dict[str, object]:
    """The brief as the line-based definition reads it: declaration lines name tastes, the rest is the intent."""
    declaration = re.compile(r"^\s*tastes\s*:(?P<rest>.*)$", re.IGNORECASE)
    tastes: list[str] = []
    kept = []
    for line in split_lines(raw):
        match = declaration.match(line)
        if match is None:
            kept.append(line)
            continue
        listed = match["rest"].strip()
        listed = listed[1:-1] if listed.startswith("[") and listed.endswith("]") else listed
        names = (item.strip().strip("\"'`").strip() for item in listed.split(","))
        tastes.extend(name for name in names if name and name not in tastes)
    return {"raw": raw, "intent": "\n".join(kept).strip(), "tastes": tastes}


BRIEF_PIECES = ["a", " ", "\t", "\r", "\n", "\x0b", "Tastes:", "tastes :", "[b, 'c']", ",", "\u2028"]


@settings(max_examples=300)
@given(raw=st.lists(st.sampled_from(BRIEF_PIECES)).map("".join))
def test_the_brief_is_parsed_as_the_line_based_definition_says(raw: str) -> None:
    """The whole-text parse (no list of lines, so memory stays bounded) agrees with the line-by-line reading."""
    assert parse_brief(raw) == line_by_line_brief(raw)


def test_a_brief_over_the_memory_cap_reads_as_empty(tmp_path: Path) -> None:
    """A brief over MAX_TEXT_BYTES (which bounds the reply's memory, not only the file) reads as the empty brief."""
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "brief.md").write_bytes(b"\x00" * (16 * 1024 * 1024 + 1))
    assert MAX_TEXT_BYTES <= 16 * 1024 * 1024
    assert ReadContext(tmp_path, tmp_path / "tastes").read_context("img")["brief"] == {"raw": "", "intent": "", "tastes": []}


def test_many_large_genres_share_one_budget(tmp_path: Path) -> None:
    """Declared genres together hold at most MAX_TEXT_BYTES, however many the brief declares."""
    (tmp_path / "img").mkdir()
    (tmp_path / "tastes").mkdir()
    names = [f"g{n}" for n in range(5)]
    for name in names:
        (tmp_path / "tastes" / f"{name}.md").write_text(name + "x" * (MAX_TEXT_BYTES // 4 - len(name)))
    (tmp_path / "img" / "brief.md").write_text("Tastes: " + ", ".join(names) + "\n")
    genres = ReadContext(tmp_path, tmp_path / "tastes").read_context("img")["tastes"]["genres"]
    assert sum(len(text) for text in genres.values()) <= MAX_TEXT_BYTES
    assert list(genres) == names[:4]


@pytest.mark.parametrize("where", ["head", "tail"])
def test_notes_whose_summary_would_exceed_the_memory_cap_read_as_unreadable(tmp_path: Path, where: str) -> None:
    """A summary line too long to hold within MAX_NOTES_SUMMARY_BYTES gives the empty struct, not a huge reply."""
    reference = service(tmp_path)
    (tmp_path / "ws" / "img").mkdir()
    lines = ["short\n"] * 50
    lines[0 if where == "head" else -1] = "x" * (MAX_NOTES_SUMMARY_BYTES + 1) + "\n"
    (tmp_path / "ws" / "img" / "notes.md").write_text("".join(lines), encoding="utf-8")
    assert reference.read_context("img")["notes"] == {"summary": "", "truncated": False}
