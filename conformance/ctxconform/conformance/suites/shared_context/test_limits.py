"""Size limits (sections 4.1, 4.2 and 8.2): the 1000-token value limit, the optional warning and the 10,000-token store."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance.suites.shared_context import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.shared_context.client import (
    TOKEN_READINGS,
    Entries,
    Session,
    accepted,
    fresh_session,
    stored,
    token_readings,
    unchanged,
)
from ctxconform.conformance.testing import Implementation, check, check_equal, check_in, requirement

# Counting is len/4 (8.2); ASCII keeps "characters" unambiguous across languages.
ascii_chars = st.characters(min_codepoint=0x20, max_codepoint=0x7E)
FULL_VALUE = 4000  # characters: 1000 tokens under every reading
STORE_KEYS = [f"slot_{n}" for n in range(10)]  # 10 x 4000 characters = 10,000 tokens
LIMIT = R.S4_1_VALUE_SIZE_LIMIT
CREATES = R.S3_3_CREATES_OR_OVERWRITES
BOUNDARY = R.S4_1_VALUE_LIMIT_BOUNDARY
STORE = R.S4_2_STORE_SIZE_LIMIT
MAX_STORE_TOKENS = 10_000
WARN_TOKENS = 800
Json = dict[str, Any]


def text_of(length: int, char: str = "a") -> str:
    """A value of exactly `length` characters."""
    return char * length


def fill_store(session: Session, requirement_id: str = STORE) -> None:
    """Write 10 values of 4000 characters: exactly 10,000 tokens."""
    session.seed({key: text_of(FULL_VALUE) for key in STORE_KEYS}, requirement_id)


def nearly_full(session: Session) -> None:
    """Write 9,999 tokens: nine values of 1000 tokens and one of 999."""
    session.seed({key: text_of(FULL_VALUE) for key in STORE_KEYS[:9]} | {"last": text_of(FULL_VALUE - 4)}, STORE)


def refused_and_not_stored(session: Session, key: str, value: str, requirement_id: str, *, coded: tuple[str, str]) -> None:
    """A write is refused (`requirement_id`), with the code of `coded` (its requirement), and leaves the store as it was.

    A value over 1000 tokens that would also take the store past 10,000 earns both codes, which section 5 does not
    rank: either is accepted then.
    """
    code_requirement, code = coded
    before = session.state(requirement_id)
    outcome = session.write(key, value, serves=requirement_id)
    outcome.refused(requirement_id)
    codes = {code}
    if code == "VALUE_TOO_LARGE" and overfills(before, key, value):
        codes.add("STORE_FULL")
    outcome.refused(code_requirement, *sorted(codes))
    unchanged(requirement_id, session, before, {"action": "write", "key": key, "value": f"<{len(value)} characters>"})


def overfills(state: tuple[Entries, Json], key: str, value: str) -> bool:
    """Whether writing `value` under `key` would take the store past 10,000 tokens under some reading of len/4."""
    lengths = {name: len(stored) for name, (stored, _, _) in state[0].items()} | {key: len(value)}
    return max(token_readings(sum(lengths.values()))) > MAX_STORE_TOKENS


# --- the value limit ----------------------------------------------------------------------------


@requirement(BOUNDARY)
def test_a_value_of_4000_characters_is_accepted(session: Session) -> None:
    """A value of 4000 characters (1000 tokens) is at the limit, accepted and stored whole."""
    value = "0123456789" * 400
    session.write("findings_summary", value, serves=BOUNDARY).expect(BOUNDARY)
    check_equal(BOUNDARY, session.read("findings_summary", serves=BOUNDARY).expect(BOUNDARY)["value"], value, "value read")


@requirement(LIMIT, R.S5_VALUE_TOO_LARGE)
def test_a_value_of_4004_characters_is_refused(session: Session) -> None:
    """A value of 4004 characters (1001 tokens) gets VALUE_TOO_LARGE and nothing is stored."""
    refused_and_not_stored(session, "findings_summary", text_of(4004), LIMIT, coded=(R.S5_VALUE_TOO_LARGE, "VALUE_TOO_LARGE"))


@requirement(BOUNDARY)
@pytest.mark.parametrize("length", [4001, 4002, 4003])
def test_values_between_4001_and_4003_characters_follow_one_reading(session: Session, length: int) -> None:
    """A value of 4001-4003 characters is either stored whole or refused with VALUE_TOO_LARGE and not stored."""
    value = text_of(length, "b")
    outcome = session.write("boundary", value, serves=BOUNDARY)
    if outcome.ok:
        check_equal(BOUNDARY, session.read("boundary", serves=BOUNDARY).expect(BOUNDARY)["value"], value, "the value read")
        return
    outcome.refused(BOUNDARY, "VALUE_TOO_LARGE")
    check_equal(BOUNDARY, session.keys(BOUNDARY), [], "the keys after the refused write")


@requirement(BOUNDARY, R.S2_3_VALUE_IS_TEXT)
@given(value=st.text(ascii_chars, max_size=FULL_VALUE))
def test_every_value_up_to_4000_characters_is_accepted(implementation: Implementation, value: str) -> None:
    """Any value of at most 4000 characters is within the limit under every reading and is stored exactly."""
    with fresh_session(implementation) as session:
        # Refused as too large: the limit is misplaced; refused otherwise: the write itself failed.
        stored(session.write("within", value, serves=BOUNDARY), "within", value, BOUNDARY, otherwise=CREATES)
        # That the value comes back exactly is value-is-text's: the limit only decides whether the write is taken.
        read = session.read("within", serves=R.S2_3_VALUE_IS_TEXT).expect(R.S2_3_VALUE_IS_TEXT)["value"]
        check_equal(R.S2_3_VALUE_IS_TEXT, read, value, "the value read")


@requirement(LIMIT, R.S5_VALUE_TOO_LARGE)
@given(length=st.integers(4004, 40_000), char=ascii_chars)
def test_every_value_from_4004_characters_is_refused(implementation: Implementation, length: int, char: str) -> None:
    """Any value of 4004 characters or more gets VALUE_TOO_LARGE and leaves the store as it was."""
    with fresh_session(implementation, {"kept": "small"}) as session:
        for key in ("too_big", "kept"):
            refused_and_not_stored(session, key, char * length, LIMIT, coded=(R.S5_VALUE_TOO_LARGE, "VALUE_TOO_LARGE"))


@requirement(LIMIT, R.S5_VALUE_TOO_LARGE)
def test_a_too_large_overwrite_keeps_the_old_value(session: Session) -> None:
    """Overwriting a key with a value over the limit is refused with VALUE_TOO_LARGE; the old value and version stay."""
    session.seed({"findings_summary": "distilled"})
    refused_and_not_stored(session, "findings_summary", text_of(8000), LIMIT, coded=(R.S5_VALUE_TOO_LARGE, "VALUE_TOO_LARGE"))


# --- the optional warning -----------------------------------------------------------------------


@requirement(R.S4_1_WRITE_WARNING)
def test_a_value_at_the_limit_gets_a_warning(session: Session) -> None:
    """An implementation declaring write_warning warns on a 4000-character (1000-token) write, which still succeeds."""
    served = R.S4_1_WRITE_WARNING
    value = text_of(FULL_VALUE)
    # A refusal is not about the warning: as too large it is the boundary's, otherwise the write's own.
    result = stored(session.write("findings_summary", value, serves=served), "findings_summary", value, served, otherwise=CREATES)
    warning = result.get("warning")
    check(served, isinstance(warning, str) and bool(warning.strip()), "no warning at 1000 tokens", received=result)


@requirement(R.S4_1_WRITE_WARNING)
@given(length=st.integers(0, FULL_VALUE))
def test_a_warning_from_800_tokens(implementation: Implementation, length: int) -> None:
    """A value of 800 tokens or more under every reading gets a warning; any warning is text, and the write succeeds.

    Below 800 tokens the document neither asks for a warning nor forbids one ("may return a warning at 800 tokens").
    """
    served = R.S4_1_WRITE_WARNING
    with fresh_session(implementation) as session:
        value = text_of(length)
        # A refusal is not about the warning: as too large it is the boundary's, otherwise the write's own.
        result = stored(session.write("summary", value, serves=served), "summary", value, served, otherwise=CREATES)
        warning = result.get("warning")
        text = isinstance(warning, str) and bool(warning.strip())
        due = min(token_readings(length)) >= WARN_TOKENS
        fitting = text if due else warning is None or text
        check(served, fitting, f"the warning for a value of {length} characters", received=result)


# --- the store limit ----------------------------------------------------------------------------


@requirement(STORE, R.S5_STORE_FULL)
def test_a_store_of_exactly_10000_tokens_is_accepted_and_one_more_refused(session: Session) -> None:
    """10 values of 1000 tokens fill the store exactly; a further 1-token write gets STORE_FULL and changes nothing."""
    fill_store(session)
    check_equal(STORE, len(session.keys(STORE)), 10, "the number of keys of a full store")
    refused_and_not_stored(session, "one_more", "abcd", STORE, coded=(R.S5_STORE_FULL, "STORE_FULL"))


@requirement(STORE, R.S5_STORE_FULL)
def test_a_store_short_of_the_limit_refuses_a_write_that_would_pass_it(session: Session) -> None:
    """With 9,999 tokens stored, writes of 2 to 1000 tokens are refused and a write of 1 token fills the store exactly."""
    nearly_full(session)
    for length in (8, 400, FULL_VALUE):
        refused_and_not_stored(session, "overflow", text_of(length), STORE, coded=(R.S5_STORE_FULL, "STORE_FULL"))
    session.write("overflow", "abcd", serves=STORE).expect(STORE)


@requirement(R.S5_STORE_FULL, STORE)
def test_store_full_refuses_new_keys_of_any_size(session: Session) -> None:
    """In a full store writes of 1 to 1000 tokens are all refused with STORE_FULL and nothing is stored."""
    fill_store(session)
    for length in (4, 400, 4000):
        refused_and_not_stored(session, "overflow", text_of(length), STORE, coded=(R.S5_STORE_FULL, "STORE_FULL"))


@requirement(R.S8_2_LIMITS_APPROXIMATE_COUNTING, STORE, CREATES)
def test_overwrite_frees_the_old_value_tokens(session: Session) -> None:
    """In a full store a key may be overwritten by a value of equal size, and a smaller one makes room for another key."""
    served = R.S8_2_LIMITS_APPROXIMATE_COUNTING
    fill_store(session)
    accepted(session.write("slot_0", text_of(FULL_VALUE, "c"), serves=served), served)
    smaller = text_of(FULL_VALUE - 4)
    accepted(session.write("slot_1", smaller, serves=served), served)
    # The room is made by the overwrite replacing the value: that it did is creates-or-overwrites', checked first.
    kept = session.read("slot_1", serves=CREATES).expect(CREATES)["value"]
    check(CREATES, kept == smaller, "the overwrite kept another value", received=f"<{len(kept)} characters>")
    accepted(session.write("extra", "abcd", serves=served), served)
    session.write("extra_2", "abcd", serves=STORE).refused(STORE)


@requirement(R.S5_STORE_FULL, STORE, CREATES)
def test_an_overwrite_that_grows_past_the_limit_keeps_the_old_value(session: Session) -> None:
    """With the store full, growing a key by one token gets STORE_FULL and the key keeps its value and version."""
    # The key is overwritten once while the store has room: an overwrite that replaces nothing is not the limit's.
    session.seed({"tail": "wxyz"})
    session.put("tail", "abcd")
    check_equal(CREATES, session.read("tail", serves=CREATES).expect(CREATES)["value"], "abcd", "the value overwritten")
    nearly_full(session)
    refused_and_not_stored(session, "tail", "abcdefgh", STORE, coded=(R.S5_STORE_FULL, "STORE_FULL"))


@requirement(STORE)
def test_delete_frees_room_in_a_full_store(session: Session) -> None:
    """After a key of a full store is deleted, a new value of the same size fits."""
    fill_store(session)
    session.write("replacement", text_of(FULL_VALUE), serves=STORE).refused(STORE)
    session.remove("slot_9")
    session.write("replacement", text_of(FULL_VALUE), serves=STORE).expect(STORE)


@requirement(R.S4_2_TOTAL_SIZE_IN_LIST_KEYS)
@given(
    lengths=st.dictionaries(st.sampled_from(["a", "b", "c", "d", "e"]), st.integers(0, FULL_VALUE), min_size=1),
    overwrite=st.integers(0, FULL_VALUE),
)
def test_total_size_tokens_follows_a_reading(implementation: Implementation, lengths: dict[str, int], overwrite: int) -> None:
    """total_size_tokens is the sum of value_size_tokens, or a len/4 reading of all characters, after overwrite and delete."""
    with fresh_session(implementation, {key: text_of(length) for key, length in lengths.items()}) as session:
        first, *rest = sorted(lengths)
        lengths[first] = overwrite
        session.seed({first: text_of(overwrite)})
        check_total(session, lengths)
        if rest:
            session.remove(rest[0])
            del lengths[rest[0]]
            check_total(session, lengths)


def check_total(session: Session, lengths: dict[str, int]) -> None:
    """Check list_keys' total against both readings of 8.2, given the current value lengths.

    The sum of the per-value counts is taken from the items of the keys that exist, as listed. Which keys list_keys
    lists (returns-all-keys) and whether each count is a whole number (value-size-tokens-field) are other requirements':
    when a key is missing or a count is no whole number, the total is judged against the sum the counts would give
    under each reading of len/4.
    """
    served = R.S4_2_TOTAL_SIZE_IN_LIST_KEYS
    result = session.list_keys(serves=served).expect(served)
    sizes = {item["key"]: item["value_size_tokens"] for item in result["keys"] if item["key"] in lengths}
    counted = sizes.keys() == lengths.keys() and all(
        isinstance(size, int) and not isinstance(size, bool) for size in sizes.values()
    )
    if counted:
        per_value = {sum(sizes.values())}
    else:
        per_value = {sum(reading(length) for length in lengths.values()) for reading in TOKEN_READINGS}
    allowed = per_value | token_readings(sum(lengths.values()))
    check_in(served, result.get("total_size_tokens"), allowed, f"total_size_tokens of {sum(lengths.values())} characters")
