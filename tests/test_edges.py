"""The edge-input strategies of the testing API, and a second instance of an implementation on the same state."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from ctxconform.conformance import connect, parse_adapter
from ctxconform.conformance.exceptions import ImplementationUnavailable
from ctxconform.conformance.testing import (
    DEGENERATE_TEXTS,
    HOSTILE_NAMES,
    around,
    awkward_texts,
    hostile_names,
    name_pairs,
    sized_text,
    wrong_types,
)

SC = "shared-context"
CONTEXT = {"session_id": "s1", "participant": "orchestrator"}


@given(value=wrong_types(exclude=(str,)))
def test_a_wrong_type_for_text_is_never_text(value: Any) -> None:
    """wrong_types(exclude=(str,)) draws no string, the empty one included."""
    assert not isinstance(value, str)


@given(value=wrong_types(exclude=(int,)))
def test_a_wrong_type_for_an_integer_may_be_a_boolean_but_no_integer(value: Any) -> None:
    """JSON's true is no integer: booleans stay among the wrong types of an integer position, integers do not."""
    assert type(value) is bool or not isinstance(value, int)


@given(pair=name_pairs())
def test_confusable_names_are_distinct(pair: tuple[str, str]) -> None:
    """The two ids of a pair differ, so an implementation that merges them is caught."""
    assert pair[0] != pair[1]


@given(size=around(1000, step=4))
def test_around_draws_the_limit_and_its_neighbours(size: int) -> None:
    """around(limit) draws the limit itself, one step under and one step over."""
    assert size in (996, 1000, 1004)


@given(text=awkward_texts(surrogates=False))
def test_awkward_texts_without_surrogates_encode_as_utf8(text: str) -> None:
    """With surrogates=False every awkward text survives UTF-8 (for transports that cannot carry lone surrogates)."""
    assert text.encode("utf-8").decode("utf-8") == text


@given(name=hostile_names(max_size=100))
def test_hostile_names_stay_within_their_size(name: str) -> None:
    """Hostile names are bounded by max_size."""
    assert len(name) <= 100


def test_the_named_cases_cover_each_class_of_hostile_name() -> None:
    """Dot segments, separators, absolute paths, prototype names, the empty string and normalization pairs are there."""
    for case in ("..", ".", "a/b", "/etc/passwd", "__proto__", "", "\u00e9", "e\u0301", "a\x00b"):
        assert case in HOSTILE_NAMES
    assert "" in DEGENERATE_TEXTS
    assert "\n" in DEGENERATE_TEXTS
    assert len(sized_text(4000)) == 4000
    assert len(sized_text(7, fill="ab")) == 7


@pytest.mark.parametrize("adapter", ["reference", f"stdio:{sys.executable} -m ctxconform.reference.stdio"])
def test_a_second_instance_shares_the_state_of_the_first(adapter: str, tmp_path: Path) -> None:
    """What one instance writes, a second instance started on the same state reads, while both run."""
    first = connect(parse_adapter(adapter), tmp_path, timeout=10)
    first.start()
    second = first.another()
    second.start()
    try:
        first.call(SC, "create_session", {"session_id": "s1"})
        first.call(SC, "shared_context", {"action": "write", "key": "k", "value": "v"}, CONTEXT)
        reply = second.call(SC, "shared_context", {"action": "read", "key": "k"}, CONTEXT)
    finally:
        second.stop()
        first.stop()
    assert reply.result["value"] == "v"


def test_a_server_the_harness_did_not_start_has_no_second_instance(tmp_path: Path) -> None:
    """An http:// adapter names one running server: asking for another instance says so."""
    implementation = connect(parse_adapter("http://127.0.0.1:9"), tmp_path, timeout=1)
    with pytest.raises(ImplementationUnavailable, match="second instance"):
        implementation.another()
