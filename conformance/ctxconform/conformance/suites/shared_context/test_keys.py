"""Key naming (section 4.3): which keys are accepted, and that every other key is refused and never stored."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance.suites.shared_context.client import SPEC, Outcome, Session, check, fresh_session

requirement = pytest.mark.requirement

KEY_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"
VALID_KEY = re.compile("[a-z0-9_]{1,64}")
SEED = {"problem_summary": "Throughput dropped 30%.", "current_phase": "analysis"}

# Characters that look like, fold to, or count as letters and digits without being [a-z0-9_].
LOOKALIKES = list("AZéıİſKßａＡ０９٣۴१²½ⅰⅫªаоοℓﬁ\u0301ǅ")
SEPARATORS = list("./:\\-|#@$%*+=~,;!?'\"[]{}()<>")
WHITESPACE_AND_CONTROLS = list(" \t\n\r\x0b\x0c\x00\x1b\x7f\x85\xa0\u2028\u200b\u200e\u200f\u202e\ufeff")
BAD_CHARS = LOOKALIKES + SEPARATORS + WHITESPACE_AND_CONTROLS

valid_keys = st.text(KEY_CHARS, min_size=1, max_size=64)
short_valid_keys = st.text(KEY_CHARS, max_size=63)
bad_chars = st.one_of(st.sampled_from(BAD_CHARS), st.characters(codec="utf-8").filter(lambda c: c not in KEY_CHARS))


@st.composite
def with_bad_char(draw: st.DrawFn) -> str:
    """A key of at most 64 characters that would be valid but for one character outside [a-z0-9_]."""
    base = draw(short_valid_keys)
    at = draw(st.integers(0, len(base)))
    return base[:at] + draw(bad_chars) + base[at:]


invalid_keys = st.one_of(
    st.just(""),
    st.text(KEY_CHARS, min_size=65, max_size=300),  # too long, valid characters only
    with_bad_char(),  # one bad character anywhere, length within the limit
    st.builds(lambda key, char: key + char, valid_keys, st.sampled_from(["\n", "\r\n", " ", "\x00"])),  # trailing junk
    st.builds(lambda key: key.upper(), valid_keys).filter(lambda key: key != key.lower()),  # uppercase
    st.builds(
        lambda a, sep, b: a + sep + b, valid_keys, st.sampled_from([".", "/", ":", "::", "-", "\\"]), valid_keys
    ),  # hierarchical
    st.text(max_size=80).filter(lambda key: VALID_KEY.fullmatch(key) is None),  # anything else
)


# The properties share one session per module: hypothesis runs many examples, and none of them leaves a trace.
@pytest.fixture(scope="module")
def seeded(implementation: Implementation) -> Iterator[Session]:
    """A session holding SEED, which refused calls must leave as it is."""
    with fresh_session(implementation, SEED) as session:
        yield session


@pytest.fixture(scope="module")
def blank(implementation: Implementation) -> Iterator[Session]:
    """An empty session; each example deletes what it wrote."""
    with fresh_session(implementation, {}) as session:
        yield session


def attempt(session: Session, action: str, key: str, value: str = "x") -> Outcome:
    """Call read, write or delete where a refusal is expected.

    The reply is not checked against the action's response schema, so a key wrongly accepted fails the key
    requirement the test names rather than the response shape.
    """
    request = {"action": action, "key": key} | ({"value": value} if action == "write" else {})
    context = {"session_id": session.session_id, "participant": session.participant}
    return check("", session.implementation.call(SPEC, "shared_context", request, context))


def listed(session: Session) -> list[dict[str, Any]]:
    """The list_keys items, read without the response schema check (a wrongly stored key must fail the key requirement)."""
    context = {"session_id": session.session_id, "participant": session.participant}
    outcome = check("", session.implementation.call(SPEC, "shared_context", {"action": "list_keys"}, context))
    return list(outcome.expect("shared-context/3.1/returns-all-keys")["keys"])


# --- valid keys ---------------------------------------------------------------------------------


@requirement("shared-context/4.3/key-pattern", "shared-context/4.3/key-max-length")
@given(key=valid_keys, value=st.text(max_size=50))
def test_every_valid_key_is_accepted_and_round_trips(blank: Session, key: str, value: str) -> None:
    """Any key of 1 to 64 characters from [a-z0-9_] is written, listed, read back and deleted under exactly that name."""
    assert VALID_KEY.fullmatch(key) is not None
    written = blank.write(key, value).expect("shared-context/4.3/key-pattern")
    assert written["key"] == key
    assert [item["key"] for item in listed(blank)] == [key]
    assert blank.read(key).expect("shared-context/4.3/key-pattern")["value"] == value
    assert blank.delete(key).expect("shared-context/4.3/key-pattern")["deleted"] == key


@requirement("shared-context/4.3/key-max-length", "shared-context/5/invalid-key-on-write")
@pytest.mark.parametrize("char", ["a", "z", "0", "9", "_"])
def test_64_characters_are_accepted_and_65_refused(session: Session, char: str) -> None:
    """A key of exactly 64 characters is accepted; one of 65 gets INVALID_KEY and is not stored."""
    assert session.write(char * 64, "at the limit").expect("shared-context/4.3/key-max-length")["key"] == char * 64
    attempt(session, "write", char * 65, "over the limit").refused("shared-context/4.3/key-max-length", "INVALID_KEY")
    assert [item["key"] for item in listed(session)] == [char * 64]
    assert session.read(char * 64).result["value"] == "at the limit"


@requirement("shared-context/4.3/key-max-length", "shared-context/5/invalid-key-on-read-delete")
def test_a_65_character_key_cannot_be_read_or_deleted(session: Session) -> None:
    """A 65-character key is never found by read or delete, and its 64-character prefix is untouched."""
    session.write("k" * 64, "prefix").expect("shared-context/4.3/key-max-length")
    attempt(session, "read", "k" * 65).refused("shared-context/5/invalid-key-on-read-delete", "INVALID_KEY", "KEY_NOT_FOUND")
    attempt(session, "delete", "k" * 65).refused("shared-context/5/invalid-key-on-read-delete", "INVALID_KEY", "KEY_NOT_FOUND")
    assert session.read("k" * 64).result["version"] == 1


# --- invalid keys -------------------------------------------------------------------------------


@requirement(
    "shared-context/5/invalid-key-on-write",
    "shared-context/4.3/key-pattern",
    "shared-context/4.3/key-max-length",
    "shared-context/4.3/no-separators",
)
@given(key=invalid_keys)
def test_every_invalid_key_is_refused_on_write_and_never_stored(seeded: Session, key: str) -> None:
    """A write whose key breaks [a-z0-9_]{1,64} in any way gets INVALID_KEY and leaves list_keys unchanged."""
    assert VALID_KEY.fullmatch(key) is None
    before = listed(seeded)
    attempt(seeded, "write", key, "must not be stored").refused("shared-context/5/invalid-key-on-write", "INVALID_KEY")
    assert listed(seeded) == before


@requirement("shared-context/5/invalid-key-on-read-delete", "shared-context/4.3/key-pattern")
@given(key=invalid_keys)
def test_every_invalid_key_is_refused_on_read_and_delete(seeded: Session, key: str) -> None:
    """Read and delete of an invalid key get INVALID_KEY or KEY_NOT_FOUND, and delete removes nothing."""
    assert VALID_KEY.fullmatch(key) is None
    before = listed(seeded)
    attempt(seeded, "read", key).refused("shared-context/5/invalid-key-on-read-delete", "INVALID_KEY", "KEY_NOT_FOUND")
    attempt(seeded, "delete", key).refused("shared-context/5/invalid-key-on-read-delete", "INVALID_KEY", "KEY_NOT_FOUND")
    assert listed(seeded) == before


@requirement("shared-context/4.3/no-separators", "shared-context/5/invalid-key-on-write")
@pytest.mark.parametrize(
    "key",
    [
        "inv:findings_summary",
        "rev:review_result",
        "inv.findings",
        "inv/findings",
        "inv\\findings",
        "inv-findings",
        "a::b",
        "/",
        ".",
        ":",
    ],
)
def test_keys_with_separators_are_refused(session: Session, key: str) -> None:
    """Dots, slashes, colons and other hierarchical separators, also the prefixes of 7.1, get INVALID_KEY."""
    assert VALID_KEY.fullmatch(key) is None
    attempt(session, "write", key, "namespaced").refused("shared-context/4.3/no-separators", "INVALID_KEY")
    assert listed(session) == []


@requirement("shared-context/4.3/key-pattern", "shared-context/5/invalid-key-on-write")
@pytest.mark.parametrize("char", BAD_CHARS, ids=[f"U+{ord(c):04X}" for c in BAD_CHARS])
def test_each_notable_bad_character_is_refused(session: Session, char: str) -> None:
    """Uppercase, lookalike letters and digits of other scripts, punctuation, whitespace and controls get INVALID_KEY."""
    key = f"problem{char}summary"
    assert VALID_KEY.fullmatch(key) is None
    attempt(session, "write", key, "lookalike").refused("shared-context/4.3/key-pattern", "INVALID_KEY")
    attempt(session, "write", char, "alone").refused("shared-context/4.3/key-pattern", "INVALID_KEY")
    assert listed(session) == []


@requirement("shared-context/4.3/key-pattern", "shared-context/5/invalid-key-on-write")
@pytest.mark.parametrize(
    "key", ["", " ", "problem_summary\n", " problem_summary", "problem_summary ", "Problem_Summary", "PROBLEM_SUMMARY"]
)
def test_near_miss_keys_do_not_reach_the_real_key(session: Session, key: str) -> None:
    """Keys that trimming or case folding would turn into an existing key are refused and leave that key alone."""
    session.write("problem_summary", "original").expect("shared-context/3.3/creates-or-overwrites")
    attempt(session, "write", key, "replacement").refused("shared-context/4.3/key-pattern", "INVALID_KEY")
    attempt(session, "read", key).refused("shared-context/5/invalid-key-on-read-delete", "INVALID_KEY", "KEY_NOT_FOUND")
    attempt(session, "delete", key).refused("shared-context/5/invalid-key-on-read-delete", "INVALID_KEY", "KEY_NOT_FOUND")
    entry = session.read("problem_summary").result
    assert (entry["value"], entry["version"]) == ("original", 1)
    assert [item["key"] for item in listed(session)] == ["problem_summary"]
