"""Transcripts in reports are clipped: nesting, long strings and long lists past the limits become notes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ctxconform.conformance.judge._clip import MAX_CHARS, MAX_DEPTH, MAX_ITEMS, clip
from ctxconform.conformance.report._model import TestResult
from helpers import depth_of


def nested(depth: int) -> Any:
    """A list nested `depth` levels deep around "x"."""
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


def test_small_values_are_kept_as_they_are() -> None:
    """A transcript entry within every limit comes back equal."""
    entry = {"call": {"op": "write", "args": {"key": "k", "value": ["a", {"b": None, "c": 1.5}]}}, "reply": None}
    assert clip(entry) == entry


def test_deep_nesting_is_cut_at_the_limit_with_a_note() -> None:
    """A 500-deep list keeps MAX_DEPTH levels, and the rest becomes a note saying so."""
    clipped = clip({"call": nested(500)})
    assert depth_of(clipped) == MAX_DEPTH
    assert f"nested deeper than {MAX_DEPTH} levels" in json.dumps(clipped)


def test_long_strings_and_lists_say_how_much_was_left_out() -> None:
    """A string past MAX_CHARS and a list or object past MAX_ITEMS keep their start and count the rest."""
    clipped: Any = clip(
        {"s": "y" * (MAX_CHARS + 10), "l": list(range(MAX_ITEMS + 5)), "d": {str(n): n for n in range(MAX_ITEMS + 1)}}
    )
    assert clipped["s"] == "y" * MAX_CHARS + "... (10 more characters)"
    assert clipped["l"][-1] == "... (5 more items)"
    assert len(clipped["l"]) == MAX_ITEMS + 1
    assert clipped["d"]["..."] == "1 more members"


def test_a_clipped_deep_transcript_fits_in_a_report() -> None:
    """A failed test whose transcript held a 500-deep request serializes; the unclipped one does not."""
    fields = {
        "id": "t",
        "name": "t",
        "spec": None,
        "requirements": [],
        "charges": [],
        "failed_requirements": [],
        "verdict": "FAIL",
    }
    fields |= {"duration_s": 0.0, "message": "m", "replay": "r"}
    entry = {"call": {"args": {"value": nested(500)}}, "reply": None, "failure": "PROTOCOL"}
    dumped = TestResult(**fields, transcript=[clip(entry)]).model_dump(mode="json")  # type: ignore[list-item]
    assert json.loads(json.dumps(dumped))["transcript"][0]["failure"] == "PROTOCOL"
    with pytest.raises(ValueError, match="depth"):
        TestResult(**fields, transcript=[entry]).model_dump(mode="json")
