"""Size limits (sections 4.1, 4.2 and 8.2): the 1000-token value limit, the optional warning and the 10,000-token store."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance.exceptions import RequirementFailure
from ctxconform.conformance.suites.shared_context.client import Session, fresh_session, token_readings

requirement = pytest.mark.requirement

# Counting is len/4 (8.2); ASCII keeps "characters" unambiguous across languages.
ascii_chars = st.characters(min_codepoint=0x20, max_codepoint=0x7E)
FULL_VALUE = 4000  # characters: 1000 tokens under every reading
STORE_KEYS = [f"slot_{n}" for n in range(10)]  # 10 x 4000 characters = 10,000 tokens


@pytest.fixture(scope="module")
def small_store(implementation: Implementation) -> Iterator[Session]:
    """One session holding one small entry, shared by the examples of a refusal property (none may change it)."""
    with fresh_session(implementation) as session:
        session.write("kept", "small").expect("shared-context/3.3/creates-or-overwrites")
        yield session


@pytest.fixture(scope="module")
def scratch(implementation: Implementation) -> Iterator[Session]:
    """One session for properties whose examples only overwrite a key of their own."""
    with fresh_session(implementation) as session:
        yield session


def text_of(length: int, char: str = "a") -> str:
    """A value of exactly `length` characters."""
    return char * length


def state(session: Session) -> tuple[dict[str, tuple[str, int, str]], dict[str, object]]:
    """Everything observable about the store: every entry and the list_keys answer."""
    return session.values(), session.list_keys().result


def fill_store(session: Session) -> None:
    """Write 10 values of 4000 characters: exactly 10,000 tokens."""
    for key in STORE_KEYS:
        session.write(key, text_of(FULL_VALUE)).expect("shared-context/4.2/store-size-limit")


# --- the value limit ----------------------------------------------------------------------------


@requirement("shared-context/4.1/value-size-limit", "shared-context/4.1/value-limit-boundary")
def test_a_value_of_4000_characters_is_accepted(session: Session) -> None:
    """A value of 4000 characters (1000 tokens) is at the limit, accepted and stored whole."""
    value = "0123456789" * 400
    session.write("findings_summary", value).expect("shared-context/4.1/value-limit-boundary")
    assert session.read("findings_summary").result["value"] == value


@requirement("shared-context/4.1/value-size-limit", "shared-context/5/value-too-large")
def test_a_value_of_4004_characters_is_refused(session: Session) -> None:
    """A value of 4004 characters (1001 tokens) gets VALUE_TOO_LARGE and nothing is stored."""
    session.write("findings_summary", text_of(4004)).refused("shared-context/4.1/value-size-limit", "VALUE_TOO_LARGE")
    assert session.list_keys().result["keys"] == []
    session.read("findings_summary").refused("shared-context/5/value-too-large", "KEY_NOT_FOUND")


@requirement("shared-context/4.1/value-limit-boundary")
@pytest.mark.parametrize("length", [4001, 4002, 4003])
def test_values_between_4001_and_4003_characters_follow_one_reading(session: Session, length: int) -> None:
    """A value of 4001-4003 characters is either stored whole or refused with VALUE_TOO_LARGE and not stored."""
    value = text_of(length, "b")
    outcome = session.write("boundary", value)
    if outcome.ok:
        assert session.read("boundary").result["value"] == value
    else:
        outcome.refused("shared-context/4.1/value-limit-boundary", "VALUE_TOO_LARGE")
        assert session.list_keys().result["keys"] == []


@requirement("shared-context/4.1/value-limit-boundary", "shared-context/4.1/value-size-limit")
@given(value=st.text(ascii_chars, max_size=FULL_VALUE))
def test_every_value_up_to_4000_characters_is_accepted(scratch: Session, value: str) -> None:
    """Any value of at most 4000 characters is within the limit under every reading and is stored exactly."""
    scratch.write("within", value).expect("shared-context/4.1/value-limit-boundary")
    assert scratch.read("within").result["value"] == value


@requirement("shared-context/4.1/value-size-limit", "shared-context/5/value-too-large")
@given(length=st.integers(4004, 40_000), char=ascii_chars)
def test_every_value_from_4004_characters_is_refused(small_store: Session, length: int, char: str) -> None:
    """Any value of 4004 characters or more gets VALUE_TOO_LARGE and leaves the store as it was."""
    before = state(small_store)
    small_store.write("too_big", char * length).refused("shared-context/4.1/value-size-limit", "VALUE_TOO_LARGE")
    small_store.write("kept", char * length).refused("shared-context/4.1/value-size-limit", "VALUE_TOO_LARGE")
    assert state(small_store) == before


@requirement("shared-context/5/value-too-large", "shared-context/4.1/value-size-limit")
def test_a_too_large_overwrite_keeps_the_old_value(session: Session) -> None:
    """Overwriting a key with a value over the limit is refused; the old value and version stay."""
    session.write("findings_summary", "distilled").expect("shared-context/3.3/creates-or-overwrites")
    session.write("findings_summary", text_of(8000)).refused("shared-context/5/value-too-large", "VALUE_TOO_LARGE")
    entry = session.read("findings_summary").result
    assert (entry["value"], entry["version"]) == ("distilled", 1)


# --- the optional warning -----------------------------------------------------------------------


@requirement("shared-context/4.1/write-warning")
def test_a_value_at_the_limit_gets_a_warning(session: Session) -> None:
    """An implementation declaring write_warning warns on a 4000-character (1000-token) write, which still succeeds."""
    result = session.write("findings_summary", text_of(FULL_VALUE)).result
    assert "warning" in result, f"no warning in {sorted(result)}"
    assert result["warning"].strip()
    assert session.read("findings_summary").result["version"] == 1


@requirement("shared-context/4.1/write-warning")
@given(length=st.integers(0, FULL_VALUE))
def test_a_warning_only_from_800_tokens(scratch: Session, length: int) -> None:
    """A warning comes only with a value of 800 tokens or more under some reading: none up to 3196 characters."""
    result = scratch.write("summary", text_of(length)).result
    if "warning" in result:
        assert max(token_readings(length)) >= 800, f"warning for a value of {length} characters: {result['warning']!r}"
        assert isinstance(result["warning"], str)
        assert result["warning"].strip()


# --- the store limit ----------------------------------------------------------------------------


@requirement("shared-context/4.2/store-size-limit", "shared-context/5/store-full")
def test_a_store_of_exactly_10000_tokens_is_accepted_and_one_more_refused(session: Session) -> None:
    """10 values of 1000 tokens fill the store exactly; a further 1-token write gets STORE_FULL and changes nothing."""
    fill_store(session)
    before = state(session)
    session.write("one_more", "abcd").refused("shared-context/4.2/store-size-limit", "STORE_FULL")
    assert state(session) == before
    assert len(before[0]) == 10


@requirement("shared-context/4.2/store-size-limit", "shared-context/5/store-full")
def test_a_store_short_of_the_limit_refuses_a_write_that_would_pass_it(session: Session) -> None:
    """With 9,999 tokens stored, writes of 2 to 1000 tokens are refused and a write of 1 token fills the store exactly."""
    for key in STORE_KEYS[:9]:
        session.write(key, text_of(FULL_VALUE)).expect("shared-context/4.2/store-size-limit")
    session.write("last", text_of(FULL_VALUE - 4)).expect("shared-context/4.2/store-size-limit")
    before = state(session)
    for length in (8, 400, FULL_VALUE):
        outcome = session.write("overflow", text_of(length))
        outcome.refused("shared-context/4.2/store-size-limit")  # accepted: the store would pass 10,000 tokens
        outcome.refused("shared-context/5/store-full", "STORE_FULL")
    assert state(session) == before
    session.write("overflow", "abcd").expect("shared-context/4.2/store-size-limit")


@requirement("shared-context/5/store-full", "shared-context/4.2/store-size-limit")
def test_store_full_refuses_new_keys_of_any_size(session: Session) -> None:
    """In a full store writes of 1 to 1000 tokens are all refused with STORE_FULL and nothing is stored."""
    fill_store(session)
    before = state(session)
    for length in (4, 400, 4000):
        session.write("overflow", text_of(length)).refused("shared-context/5/store-full", "STORE_FULL")
    assert state(session) == before


@requirement("shared-context/4.2/store-size-limit", "shared-context/8.2/limits-approximate-counting")
def test_overwrite_frees_the_old_value_tokens(session: Session) -> None:
    """In a full store a key may be overwritten by a value of equal size, and a smaller one makes room for another key."""
    fill_store(session)
    assert session.write("slot_0", text_of(FULL_VALUE, "c")).expect("shared-context/4.2/store-size-limit")["version"] == 2
    session.write("slot_1", text_of(FULL_VALUE - 4)).expect("shared-context/4.2/store-size-limit")
    session.write("extra", "abcd").expect("shared-context/4.2/store-size-limit")
    session.write("extra_2", "abcd").refused("shared-context/4.2/store-size-limit", "STORE_FULL")
    assert session.read("slot_0").result["value"] == text_of(FULL_VALUE, "c")


@requirement("shared-context/5/store-full", "shared-context/8.2/limits-approximate-counting")
def test_an_overwrite_that_grows_past_the_limit_keeps_the_old_value(session: Session) -> None:
    """With the store full, growing a key by one token gets STORE_FULL and the key keeps its value and version."""
    for key in STORE_KEYS[:9]:
        session.write(key, text_of(FULL_VALUE)).expect("shared-context/4.2/store-size-limit")
    session.write("last", text_of(FULL_VALUE - 4)).expect("shared-context/4.2/store-size-limit")
    session.write("tail", "abcd").expect("shared-context/4.2/store-size-limit")
    before = state(session)
    session.write("tail", "abcdefgh").refused("shared-context/5/store-full", "STORE_FULL")
    assert state(session) == before
    entry = session.read("tail").result
    assert (entry["value"], entry["version"]) == ("abcd", 1)


@requirement("shared-context/4.2/store-size-limit")
def test_delete_frees_room_in_a_full_store(session: Session) -> None:
    """After a key of a full store is deleted, a new value of the same size fits."""
    fill_store(session)
    session.write("replacement", text_of(FULL_VALUE)).refused("shared-context/4.2/store-size-limit", "STORE_FULL")
    session.delete("slot_9").expect("shared-context/3.4/removes-key")
    assert session.write("replacement", text_of(FULL_VALUE)).expect("shared-context/4.2/store-size-limit")["version"] == 1


@requirement("shared-context/4.2/total-size-in-list-keys", "shared-context/8.2/limits-approximate-counting")
@given(
    lengths=st.dictionaries(st.sampled_from(["a", "b", "c", "d", "e"]), st.integers(0, FULL_VALUE), min_size=1),
    overwrite=st.integers(0, FULL_VALUE),
)
def test_total_size_tokens_follows_a_reading(implementation: Implementation, lengths: dict[str, int], overwrite: int) -> None:
    """total_size_tokens is the sum of value_size_tokens, or a len/4 reading of all characters, after overwrite and delete."""
    with fresh_session(implementation) as session:
        for key, length in lengths.items():
            session.write(key, text_of(length)).expect("shared-context/3.3/creates-or-overwrites")
        first, *rest = sorted(lengths)
        lengths[first] = overwrite
        session.write(first, text_of(overwrite)).expect("shared-context/3.3/creates-or-overwrites")
        check_total(session, lengths)
        if rest:
            session.delete(rest[0]).expect("shared-context/3.4/removes-key")
            del lengths[rest[0]]
            check_total(session, lengths)


def check_total(session: Session, lengths: dict[str, int]) -> None:
    """Check list_keys' total against both readings of 8.2, given the current value lengths."""
    result = session.list_keys().result
    if "total_size_tokens" not in result:
        raise RequirementFailure("shared-context/4.2/total-size-in-list-keys", "list_keys does not report total_size_tokens")
    per_value = sum(item["value_size_tokens"] for item in result["keys"])
    total = result["total_size_tokens"]
    assert total == per_value or total in token_readings(sum(lengths.values())), (
        f"total {total}: neither the sum of value_size_tokens ({per_value}) nor a reading of {sum(lengths.values())} characters"
    )
