"""Report documents as indented JSON text: what the standard library would write, at native speed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ctxconform.conformance.report._json import indented_json

DOCUMENTS: list[Any] = [
    {"tests": [{"id": "a::b[x]", "duration_s": 0.25, "verdict": "PASS", "transcript": []}], "conformant": True},
    {"text": "non-ASCII é ✓ and a NUL \x00", "nested": {"list": [1, 2.5, None, False]}, "empty": {}},
    [],
]


@pytest.mark.parametrize("document", DOCUMENTS)
def test_indented_json_is_the_standard_librarys_text(document: Any) -> None:
    """Two-space indents, non-ASCII as itself, a final newline: the text json.dumps writes for these documents."""
    assert indented_json(document) == json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def test_a_lone_surrogate_is_written_rather_than_refused() -> None:
    """A document holding a lone surrogate (which UTF-8 cannot encode) is written as the standard library writes it."""
    document = {"reply": {"value": "\ud800"}}
    assert indented_json(document) == json.dumps(document, indent=2, ensure_ascii=False) + "\n"
