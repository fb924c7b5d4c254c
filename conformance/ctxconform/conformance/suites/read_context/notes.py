"""The ADR's notes summarization as checks: raw up to 40 lines, else head, elision marker and tail."""

from __future__ import annotations

import re
from typing import Any, Final

from ctxconform.conformance.suites.read_context import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.read_context.client import as_text, check_line_breaks, same_text
from ctxconform.conformance.testing import check, check_equal, check_in

__all__ = [
    "ELIDED",
    "HEAD",
    "LONG",
    "SHORT",
    "TAIL",
    "THRESHOLD",
    "check_constants",
    "check_long",
    "check_notes",
    "check_short",
    "lines_of",
]

Json = dict[str, Any]

HEAD: Final = 10
TAIL: Final = 30
THRESHOLD: Final = HEAD + TAIL
# What check_notes checks of notes of at most 40 lines, and of longer notes.
SHORT: Final = (
    R.SUMMARIZATION_THRESHOLD,
    R.LOADING_ORDER_NOTES_TRUNCATED_FLAG,
    R.SUMMARIZATION_SHORT_NOTES_RAW,
    R.RESPONSE_SHAPE_MARKDOWN_LINE_BREAKS,
)
LONG: Final = (
    R.SUMMARIZATION_THRESHOLD,
    R.SUMMARIZATION_TRUNCATED_TRUE,
    R.SUMMARIZATION_HEAD_FIRST_10,
    R.SUMMARIZATION_ELISION_MARKER,
    R.SUMMARIZATION_TAIL_LAST_30,
    R.CONSEQUENCES_SIZE_BOUNDED,
)
ELIDED: Final = " lines elided] ..."
_MARKER: Final = re.compile(r"\n\n\.\.\. \[\d+ lines elided\] \.\.\.\n\n")


def lines_of(text: str) -> list[str]:
    r"""The file's lines: split at \n, a \r before it belongs to the break, a final break starts no line."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if lines[-1] == "":
        lines.pop()
    return lines


def check_notes(notes: Json, text: str) -> None:
    """Check {summary, truncated} against the ADR's rule for `text`: SHORT's checks up to 40 lines, else LONG's."""
    lines = lines_of(text)
    if len(lines) <= THRESHOLD:
        check_short(notes, text, len(lines))
    else:
        check_long(notes, text, lines)


def check_short(notes: Json, text: str, count: int) -> None:
    """Notes of at most 40 lines: not summarized, flagged false, returned as written (line breaks as a reading allows)."""
    summary, truncated = notes["summary"], notes["truncated"]
    summarized = not same_text(summary, text) and ELIDED in summary
    check(R.SUMMARIZATION_THRESHOLD, not summarized, f"notes of {count} lines were summarized", received=notes)
    check(R.LOADING_ORDER_NOTES_TRUNCATED_FLAG, truncated is False, f"notes of {count} lines are flagged", received=notes)
    what = f"the summary of notes of {count} lines"
    check_equal(R.SUMMARIZATION_SHORT_NOTES_RAW, as_text(summary), as_text(text), f"{what}, line breaks read as \\n")
    check_line_breaks(summary, text, what)


def check_long(notes: Json, text: str, lines: list[str]) -> None:
    r"""Notes of more than 40 lines: summarized, flagged true, head, marker, tail and nothing else (breaks read as \n)."""
    summary, truncated, count = as_text(notes["summary"]), notes["truncated"], len(lines)
    summarized = ELIDED in summary or truncated is True
    check(R.SUMMARIZATION_THRESHOLD, summarized, f"notes of {count} lines came back whole", received=notes)
    check(R.SUMMARIZATION_TRUNCATED_TRUE, truncated is True, f"notes of {count} lines are not flagged", received=notes)
    head = "\n".join(lines[:HEAD])
    marker = f"\n\n... [{count - THRESHOLD} lines elided] ...\n\n"
    tail = "\n".join(lines[-TAIL:])
    check(
        R.SUMMARIZATION_HEAD_FIRST_10,
        summary.startswith(head + "\n\n... ["),
        f"the summary of {count} lines does not start with the first 10 lines and the marker",
        received=summary[: len(head) + 40],
        expected=head + "\n\n... [",
    )
    check_equal(
        R.SUMMARIZATION_ELISION_MARKER,
        summary[len(head) : len(head) + len(marker)],
        marker,
        f"what follows the head of {count} lines",
    )
    final = "\n" if text.endswith("\n") else ""
    rest = summary[len(head) + len(marker) :]
    check_in(R.SUMMARIZATION_TAIL_LAST_30, rest, [tail, tail + final], f"what follows the marker of {count} lines")
    check(
        R.CONSEQUENCES_SIZE_BOUNDED,
        len(lines_of(summary)) <= HEAD + 3 + TAIL,
        "the summary holds more than 43 lines",
        received=len(lines_of(summary)),
        expected="<= 43",
    )


def check_constants(notes: Json, text: str) -> None:
    """The cut falls where a 40-line threshold, a 10-line head and a 30-line tail put it (the marker's text is not its)."""
    summary = as_text(str(notes.get("summary", "")))
    found = _MARKER.search(summary)
    observed: Json = {"cut": found is not None or ELIDED in summary}
    expected: Json = {"cut": len(lines_of(text)) > THRESHOLD}
    if not observed["cut"] and summary.removesuffix("\n") != as_text(text).removesuffix("\n"):
        return  # neither cut nor this file's whole text: no cut to measure, the summary is summarization's to judge
    if found is not None and expected["cut"]:
        lines = lines_of(text)
        final = "\n" if text.endswith("\n") else ""
        tail = "\n".join(lines[-TAIL:])
        head_is_10 = summary[: found.start()] == "\n".join(lines[:HEAD])
        observed |= {
            "head is the first 10 lines": head_is_10,
            "tail is the last 30 lines": summary[found.end() :] in (tail, tail + final),
        }
        expected |= {"head is the first 10 lines": True, "tail is the last 30 lines": True}
    shown = {**notes, "summary": summary[:300]}
    message = "the notes are not cut at 40 lines into a 10-line head and a 30-line tail"
    check(
        R.IMPLEMENTATION_NOTES_NOTES_CONSTANTS,
        observed == expected,
        message,
        received={"notes": shown, "measured": observed},
        expected=expected,
    )
