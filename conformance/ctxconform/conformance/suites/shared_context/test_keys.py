"""Key naming (section 4.3): which keys are accepted, and that every other key is refused and never stored."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance.suites.shared_context import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.shared_context.client import Session, fresh_session, stored, unchanged
from ctxconform.conformance.testing import Checked, Implementation, RequirementId, check_equal, requirement

KEY_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"
VALID_KEY = re.compile("[a-z0-9_]{1,64}")
SEED = {"problem_summary": "Throughput dropped 30%.", "current_phase": "analysis"}
READ_DELETE_CODES = ("INVALID_KEY", "KEY_NOT_FOUND")

# Characters that look like, fold to, or count as letters and digits without being [a-z0-9_].
LOOKALIKES = list("AZéıİſKßａＡ０９٣۴१²½ⅰⅫªаоοℓﬁ\u0301ǅ")
SEPARATORS = list("./:\\-|#@$%*+=~,;!?'\"[]{}()<>")
WHITESPACE_AND_CONTROLS = list(" \t\n\r\x0b\x0c\x00\x1b\x7f\x85\xa0\u2028\u200b\u200e\u200f\u202e\ufeff")
BAD_CHARS = LOOKALIKES + SEPARATORS + WHITESPACE_AND_CONTROLS
HIERARCHICAL = [".", "/", ":", "::", "\\"]

valid_keys = st.text(KEY_CHARS, min_size=1, max_size=64)
short_valid_keys = st.text(KEY_CHARS, max_size=63)
bad_chars = st.one_of(st.sampled_from(BAD_CHARS), st.characters(codec="utf-8").filter(lambda c: c not in KEY_CHARS))


@st.composite
def with_bad_char(draw: st.DrawFn) -> str:
    """A key of at most 64 characters that would be valid but for one character outside [a-z0-9_]."""
    base = draw(short_valid_keys)
    at = draw(st.integers(0, len(base)))
    return base[:at] + draw(bad_chars) + base[at:]


too_long_keys = st.text(KEY_CHARS, min_size=65, max_size=300)
separated_keys = st.builds(
    lambda a, sep, b: a + sep + b,
    st.text(KEY_CHARS, min_size=1, max_size=30),
    st.sampled_from(HIERARCHICAL),
    st.text(KEY_CHARS, min_size=1, max_size=30),
)
badly_spelled_keys = st.one_of(
    st.just(""),
    with_bad_char(),  # one bad character anywhere, length within the limit
    st.builds(lambda key, char: key[:63] + char, valid_keys, st.sampled_from(["\n", " ", "\x00"])),  # trailing junk
    st.builds(lambda key: key.upper(), valid_keys).filter(lambda key: key != key.lower()),  # uppercase
)
invalid_keys = st.one_of(
    too_long_keys,
    separated_keys,
    badly_spelled_keys,
    st.text(max_size=80).filter(lambda key: VALID_KEY.fullmatch(key) is None),  # anything else
)


def attempt(session: Session, action: str, key: str, requirement_id: str, value: str = "x") -> Checked:
    """Call read, write or delete where a refusal is expected; a broken call is charged to `requirement_id`."""
    request = {"action": action, "key": key} | ({"value": value} if action == "write" else {})
    return session.tool(request, serves=requirement_id)


def refused_and_not_stored(session: Session, key: str, requirement_id: RequirementId, *codes: str) -> None:
    """A write of `key` is refused (with one of `codes` when given) and leaves the store as it was."""
    before = session.state(requirement_id)
    attempt(session, "write", key, requirement_id, "must not be stored").refused(requirement_id, *codes)
    unchanged(requirement_id, session, before, {"action": "write", "key": key})


# --- valid keys ---------------------------------------------------------------------------------


@requirement(R.S4_3_KEY_PATTERN, R.S2_3_VALUE_IS_TEXT)
@given(key=valid_keys, value=st.text(max_size=50))
def test_every_valid_key_is_accepted_and_round_trips(implementation: Implementation, key: str, value: str) -> None:
    """Any key of 1 to 64 characters from [a-z0-9_] is written, listed, read back and deleted under exactly that name."""
    served = R.S4_3_KEY_PATTERN
    with fresh_session(implementation) as session:
        # Refused as an invalid key: the key rules' failure (its length at 64 characters); refused otherwise (for
        # its value, say): the write's own.
        outcome = session.write(key, value, serves=served)
        written = stored(outcome, key, value, served, otherwise=R.S3_3_CREATES_OR_OVERWRITES)["key"]
        listed = session.keys(served)
        read = session.read(key, serves=served).expect(served)["value"]
        deleted = session.remove(key).get("deleted")
        check_equal(served, [written, listed, deleted], [key, [key], key], "written, listed, deleted")
        # The key found its entry; that the value came back exactly is value-is-text's.
        check_equal(R.S2_3_VALUE_IS_TEXT, read, value, "the value read back", sent=value)


@requirement(R.S4_3_KEY_MAX_LENGTH)
@pytest.mark.parametrize("char", ["a", "z", "0", "9", "_"])
def test_64_characters_are_accepted_and_65_refused(session: Session, char: str) -> None:
    """A key of exactly 64 characters is accepted; one of 65 is refused and not stored."""
    served = R.S4_3_KEY_MAX_LENGTH
    check_equal(served, session.write(char * 64, "at the limit", serves=served).expect(served)["key"], char * 64, "key")
    refused_and_not_stored(session, char * 65, served)


@requirement(R.S5_INVALID_KEY_ON_WRITE)
@pytest.mark.parametrize("char", ["a", "z", "0", "9", "_"])
def test_a_65_character_key_is_invalid_key_on_write(session: Session, char: str) -> None:
    """A write of a 65-character key gets INVALID_KEY and is not stored."""
    refused_and_not_stored(session, char * 65, R.S5_INVALID_KEY_ON_WRITE, "INVALID_KEY")


@requirement(R.S5_INVALID_KEY_ON_READ_DELETE)
def test_a_65_character_key_cannot_be_read_or_deleted(session: Session) -> None:
    """A 65-character key is never found by read or delete, and its 64-character prefix is untouched."""
    served = R.S5_INVALID_KEY_ON_READ_DELETE
    session.seed({"k" * 64: "prefix"})
    before = session.state(served)
    attempt(session, "read", "k" * 65, served).refused(served, *READ_DELETE_CODES)
    attempt(session, "delete", "k" * 65, served).refused(served, *READ_DELETE_CODES)
    unchanged(served, session, before, {"action": "delete", "key": "k" * 65})


# --- invalid keys -------------------------------------------------------------------------------


@requirement(R.S4_3_KEY_MAX_LENGTH)
@given(key=too_long_keys)
def test_every_too_long_key_is_refused_on_write_and_never_stored(implementation: Implementation, key: str) -> None:
    """A write whose key has more than 64 characters is refused and leaves the store unchanged."""
    with fresh_session(implementation, SEED) as session:
        refused_and_not_stored(session, key, R.S4_3_KEY_MAX_LENGTH)


@requirement(R.S4_3_NO_SEPARATORS)
@given(key=separated_keys)
def test_every_hierarchical_key_is_refused_on_write_and_never_stored(implementation: Implementation, key: str) -> None:
    """A write whose key holds a dot, slash, colon or backslash is refused and leaves the store unchanged."""
    with fresh_session(implementation, SEED) as session:
        refused_and_not_stored(session, key, R.S4_3_NO_SEPARATORS)


@requirement(R.S4_3_KEY_PATTERN)
@given(key=badly_spelled_keys)
def test_every_key_outside_the_pattern_is_refused_on_write_and_never_stored(implementation: Implementation, key: str) -> None:
    """A write whose key is empty or holds any character outside [a-z0-9_] is refused and leaves the store unchanged."""
    with fresh_session(implementation, SEED) as session:
        refused_and_not_stored(session, key, R.S4_3_KEY_PATTERN)


@requirement(R.S5_INVALID_KEY_ON_WRITE)
@given(key=invalid_keys)
def test_every_invalid_key_is_invalid_key_on_write(implementation: Implementation, key: str) -> None:
    """A write whose key breaks [a-z0-9_]{1,64} in any way gets INVALID_KEY and leaves the store unchanged."""
    with fresh_session(implementation, SEED) as session:
        refused_and_not_stored(session, key, R.S5_INVALID_KEY_ON_WRITE, "INVALID_KEY")


@requirement(R.S5_INVALID_KEY_ON_READ_DELETE)
@given(key=invalid_keys)
def test_every_invalid_key_is_refused_on_read_and_delete(implementation: Implementation, key: str) -> None:
    """Read and delete of an invalid key get INVALID_KEY or KEY_NOT_FOUND, and delete removes nothing."""
    served = R.S5_INVALID_KEY_ON_READ_DELETE
    with fresh_session(implementation, SEED) as session:
        before = session.state(served)
        attempt(session, "read", key, served).refused(served, *READ_DELETE_CODES)
        attempt(session, "delete", key, served).refused(served, *READ_DELETE_CODES)
        unchanged(served, session, before, {"action": "delete", "key": key})


NAMESPACED = ["inv:findings_summary", "rev:review_result", "inv.findings", "inv/findings", "inv\\findings", "a::b", "/", ".", ":"]


@requirement(R.S4_3_NO_SEPARATORS)
@pytest.mark.parametrize("key", [*NAMESPACED, "inv-findings"])
def test_keys_with_separators_are_refused(session: Session, key: str) -> None:
    """Dots, slashes, colons and other hierarchical separators, also the prefixes of 7.1, are refused."""
    refused_and_not_stored(session, key, R.S4_3_NO_SEPARATORS)


@requirement(R.S5_INVALID_KEY_ON_WRITE)
@pytest.mark.parametrize("key", NAMESPACED)
def test_keys_with_separators_are_invalid_key(session: Session, key: str) -> None:
    """A write of a key with a hierarchical separator gets INVALID_KEY."""
    refused_and_not_stored(session, key, R.S5_INVALID_KEY_ON_WRITE, "INVALID_KEY")


@requirement(R.S4_3_KEY_PATTERN)
@pytest.mark.parametrize("char", BAD_CHARS, ids=[f"U+{ord(c):04X}" for c in BAD_CHARS])
def test_each_notable_bad_character_is_refused(session: Session, char: str) -> None:
    """Uppercase, lookalike letters and digits of other scripts, punctuation, whitespace and controls are refused."""
    refused_and_not_stored(session, f"problem{char}summary", R.S4_3_KEY_PATTERN)
    refused_and_not_stored(session, char, R.S4_3_KEY_PATTERN)


@requirement(R.S5_INVALID_KEY_ON_WRITE)
@pytest.mark.parametrize("char", LOOKALIKES[:4] + WHITESPACE_AND_CONTROLS[:3], ids=lambda c: f"U+{ord(c):04X}")
def test_bad_characters_are_invalid_key(session: Session, char: str) -> None:
    """A write of a key with a character outside [a-z0-9_] gets INVALID_KEY."""
    refused_and_not_stored(session, f"problem{char}summary", R.S5_INVALID_KEY_ON_WRITE, "INVALID_KEY")


NEAR_MISSES = ["", " ", "problem_summary\n", " problem_summary", "problem_summary ", "Problem_Summary", "PROBLEM_SUMMARY"]


@requirement(R.S4_3_KEY_PATTERN)
@pytest.mark.parametrize("key", NEAR_MISSES)
def test_near_miss_keys_do_not_reach_the_real_key_on_write(session: Session, key: str) -> None:
    """Writes of keys that trimming or case folding would turn into an existing key are refused and leave it alone."""
    session.seed({"problem_summary": "original"})
    refused_and_not_stored(session, key, R.S4_3_KEY_PATTERN)


@requirement(R.S5_INVALID_KEY_ON_READ_DELETE)
@pytest.mark.parametrize("key", NEAR_MISSES)
def test_near_miss_keys_do_not_reach_the_real_key_on_read_or_delete(session: Session, key: str) -> None:
    """Read and delete of such keys get INVALID_KEY or KEY_NOT_FOUND and leave the real key alone."""
    served = R.S5_INVALID_KEY_ON_READ_DELETE
    session.seed({"problem_summary": "original"})
    before = session.state(served)
    attempt(session, "read", key, served).refused(served, *READ_DELETE_CODES)
    attempt(session, "delete", key, served).refused(served, *READ_DELETE_CODES)
    unchanged(served, session, before, {"action": "delete", "key": key})
