"""The requirement registries: verbatim quotes, well-formed entries, and the coverage check."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from ctxconform.conformance import load_registry, specs
from ctxconform.conformance.judge._document import check_document
from ctxconform.conformance.judge._registry import coverage_problems

SPEC_TEXTS = Path(__file__).resolve().parents[2] / "shared" / "specs"


@pytest.mark.parametrize("spec", list(specs()))
def test_every_quote_is_verbatim_from_the_document(spec: str) -> None:
    """Each requirement quotes its document word for word (white space aside)."""
    registry = load_registry(spec)
    document = SPEC_TEXTS / registry.document
    if not document.is_file():
        pytest.skip(f"{document} is not beside this checkout")
    # The check `ctxconform requirements --text` makes: one definition of "found in the document".
    checked = check_document(registry, document.read_text(encoding="utf-8"))
    assert [r.id for r in checked.stale] == []
    assert [i.quote for i in checked.stale_informative] == []


@pytest.mark.parametrize("spec", list(specs()))
def test_ids_name_their_spec_and_section(spec: str) -> None:
    """Ids are `<spec>/<section>/<slug>` with the entry's own section, and unique."""
    registry = load_registry(spec)
    for r in registry.requirements:
        assert re.fullmatch(rf"{spec}/{re.escape(r.section)}/[a-z0-9]+(-[a-z0-9]+)*", r.id), r.id
    assert len(registry.ids) == len(registry.requirements)


def test_shared_context_covers_the_document() -> None:
    """shared-context has at least 40 requirements, every error code among them, and MUST/SHOULD/MAY levels."""
    registry = load_registry("shared-context")
    assert len(registry.requirements) >= 40
    quotes = " ".join(r.quote for r in registry.requirements)
    for code in ("KEY_NOT_FOUND", "VALUE_TOO_LARGE", "STORE_FULL", "INVALID_KEY", "SESSION_NOT_FOUND", "SESSION_ARCHIVED"):
        assert code in quotes
    assert set(Counter(r.level for r in registry.requirements)) == {"MUST", "SHOULD", "MAY"}


def test_untestable_entries_give_a_reason_and_ambiguous_ones_their_readings() -> None:
    """An entry that the suite cannot check says why; an ambiguous one lists the readings it accepts."""
    for r in load_registry("shared-context").requirements:
        if r.kind == "untestable":
            assert r.reason
        if r.kind == "ambiguous":
            assert len(r.readings) >= 2


def test_coverage_check_reports_untested_unknown_and_unnamed() -> None:
    """The coverage check names a testable requirement without a test, an unknown id, and a test naming nothing."""
    registry = load_registry("shared-context")
    testable = [r.id for r in registry.requirements if r.needs_test]
    named = {"t1": testable[1:], "t2": ["shared-context/9.9/invented"], "t3": []}
    problems = coverage_problems([registry], named)
    assert problems == [
        f"untested: {testable[0]} ({registry[testable[0]].level}, {registry[testable[0]].kind})",
        "unknown id 'shared-context/9.9/invented' named by a test",
        "test names no requirement: t3",
    ]
    assert coverage_problems([registry], {"all": testable}) == []
