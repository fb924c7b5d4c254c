"""The four operations of section 3: list_keys, read, write and delete, and the entry metadata of section 2.3."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance.suites.shared_context import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.shared_context.client import (
    REWRITE_READINGS,
    Session,
    accepted,
    fresh_session,
    new_session,
    new_session_id,
    rewrite_reading,
    rewrite_versions,
    stored,
    token_readings,
)
from ctxconform.conformance.testing import Implementation, check, check_equal, check_in, requirement

# Values well inside the 1000-token limit under every reading: at most 1000 code points.
texts = st.text(max_size=1000)
ascii_texts = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=4000)
# Participant identities in the formats 8.3 recommends.
task_types = st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", min_size=1, max_size=24)
identities = st.one_of(
    st.just("orchestrator"),
    task_types.map(lambda task: f"subagent:{task}"),
    st.builds(lambda task, n: f"subagent:{task}:{n}", task_types, st.integers(0, 10**6)),
)
# Clocks of the harness and the implementation may differ a little, never by a time zone.
CLOCK_SKEW = timedelta(minutes=30)
CREATES = R.S3_3_CREATES_OR_OVERWRITES


def parse_utc(stamp: object) -> datetime | None:
    """The instant of an ISO 8601 UTC timestamp, or None for anything else."""
    try:
        parsed = datetime.fromisoformat(str(stamp).replace("z", "Z"))
    except ValueError:
        return None
    return parsed if isinstance(stamp, str) and parsed.utcoffset() == timedelta(0) else None


def items_of(listing: object) -> list[dict[str, Any]]:
    """The items of a list_keys answer not yet checked against its schema (none when it has no such list)."""
    items = listing.get("keys") if isinstance(listing, dict) else None
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def field_of(answer: object, name: str) -> Any:
    """One field of an answer not yet checked against its schema, or None."""
    return answer.get(name) if isinstance(answer, dict) else None


def meta(entry: dict[str, Any]) -> tuple[Any, Any, Any]:
    """(written_by, written_at, version) of an answer."""
    return entry.get("written_by"), entry.get("written_at"), entry.get("version")


# --- the interface ------------------------------------------------------------------------------


@requirement(R.S3_FOUR_OPERATIONS)
def test_the_four_operations_exist(session: Session) -> None:
    """list_keys, read, write and delete are all actions of the tool."""
    for outcome in (
        session.write("current_phase", "analysis"),
        session.read("current_phase"),
        session.list_keys(),
        session.delete("current_phase"),
    ):
        check(R.S3_FOUR_OPERATIONS, outcome.ok, f"{outcome.op} is refused", sent=outcome.sent, received=outcome.error)


@requirement(R.S5_ERROR_CODE_AND_MESSAGE)
@pytest.mark.parametrize(
    "request_",
    [
        {"action": "read", "key": "missing_key"},
        {"action": "delete", "key": "missing_key"},
        {"action": "write", "key": "Bad.Key", "value": "x"},
        {"action": "write", "key": "too_large", "value": "x" * 8000},
        {"action": "no_such_action"},
        {"key": "no_action"},
    ],
    ids=["key-not-found-read", "key-not-found-delete", "invalid-key", "value-too-large", "unknown-action", "no-action"],
)
def test_errors_carry_a_code_and_a_human_readable_message(session: Session, request_: dict[str, object]) -> None:
    """Every refused call answers an error with a defined code and a non-empty message that is more than the code."""
    outcome = session.tool(request_, serves=R.S5_ERROR_CODE_AND_MESSAGE)
    if outcome.ok:
        return  # that these calls are refused at all is the requirements of their conditions' to check
    outcome.refused(R.S5_ERROR_CODE_AND_MESSAGE)
    message = str((outcome.error or {}).get("message", "")).strip()
    check(
        R.S5_ERROR_CODE_AND_MESSAGE,
        bool(message) and message != outcome.code,
        "the error message only repeats the code",
        sent=request_,
        received=outcome.error,
    )


@requirement(R.S5_ERROR_CODE_AND_MESSAGE)
def test_error_on_unknown_session_carries_a_code_and_a_message(implementation: Implementation) -> None:
    """An error about the session itself also carries a code and a non-empty message."""
    outcome = Session(implementation, new_session_id()).read("problem_summary", serves=R.S5_ERROR_CODE_AND_MESSAGE)
    outcome.refused(R.S5_ERROR_CODE_AND_MESSAGE)
    message = str((outcome.error or {}).get("message", "")).strip()
    check(R.S5_ERROR_CODE_AND_MESSAGE, bool(message), "the error has no message", received=outcome.error)


# --- list_keys ----------------------------------------------------------------------------------


@requirement(R.S3_1_RETURNS_ALL_KEYS)
def test_list_keys_returns_every_key_with_its_current_metadata(session: Session) -> None:
    """list_keys has one item per key, with the written_by, written_at and version of its last write."""
    written = {
        "problem_summary": session.put("problem_summary", "Throughput dropped."),
        "scope": session.as_participant("subagent:analysis").put("scope", "Config only."),
        "x": session.put("x", "ad hoc"),
    }
    written["scope"] = session.put("scope", "Config and pools.")
    items = session.list_keys(serves=R.S3_1_RETURNS_ALL_KEYS).expect(R.S3_1_RETURNS_ALL_KEYS)["keys"]
    check_equal(R.S3_1_RETURNS_ALL_KEYS, sorted(item["key"] for item in items), sorted(written), "the keys listed")
    found = {item["key"]: meta(item) for item in items}
    check_equal(R.S3_1_RETURNS_ALL_KEYS, found, {k: meta(v) for k, v in written.items()}, "the metadata listed")


@requirement(R.S8_4_CREATE_EMPTY_STORE)
def test_list_keys_of_a_new_session_is_empty(implementation: Implementation) -> None:
    """A new session's store lists no keys."""
    created = new_session(implementation)
    try:
        check_equal(R.S8_4_CREATE_EMPTY_STORE, created.keys(R.S8_4_CREATE_EMPTY_STORE), [], "the keys of a new session")
    finally:
        if implementation.broken is None:
            created.lifecycle("delete_session")


@requirement(R.S3_1_NO_VALUES)
def test_list_keys_never_returns_values(session: Session) -> None:
    """No item of list_keys carries the value, under any field name."""
    secrets = {"findings_summary": "MARKER-7f3a findings text", "decisions_made": "MARKER-91bc decision text"}
    session.seed(secrets)
    outcome = session.list_keys(serves=R.S3_1_NO_VALUES)
    if not outcome.ok:
        outcome.expect(R.S3_1_NO_VALUES)
    # Looked at before the schema, which also forbids a value field: the specific requirement is charged first.
    dumped = json.dumps(outcome.raw, ensure_ascii=False)
    leaked = [marker for marker in ("MARKER-7f3a", "MARKER-91bc", '"value"') if marker in dumped]
    check(R.S3_1_NO_VALUES, not leaked, f"list_keys carries values ({', '.join(leaked)})", received=outcome.raw)


@requirement(R.S3_1_VALUE_SIZE_TOKENS_FIELD)
def test_value_size_tokens_grows_with_the_value(session: Session) -> None:
    """Every item carries a non-negative integer value_size_tokens, larger for a much larger value."""
    session.seed({"small": "tiny", "large": "word " * 700})
    outcome = session.list_keys(serves=R.S3_1_VALUE_SIZE_TOKENS_FIELD)
    if not outcome.ok:
        outcome.expect(R.S3_1_VALUE_SIZE_TOKENS_FIELD)
    # Looked at before the schema, which also types the field: the specific requirement is charged first.
    sizes = {item.get("key"): item.get("value_size_tokens") for item in items_of(outcome.raw)}
    integral = all(isinstance(size, int) and not isinstance(size, bool) and size >= 0 for size in sizes.values())
    check(R.S3_1_VALUE_SIZE_TOKENS_FIELD, integral and len(sizes) == 2, "value_size_tokens is not a count", received=sizes)
    check(
        R.S3_1_VALUE_SIZE_TOKENS_FIELD,
        int(sizes.get("large") or 0) > int(sizes.get("small") or 0),
        "the larger value has no larger value_size_tokens",
        received=sizes,
    )


@requirement(R.S8_2_APPROXIMATE_TOKEN_COUNT)
@pytest.mark.parametrize("length", [4, 40, 400, 1000, 3200, 4000])
def test_value_size_tokens_is_a_quarter_of_the_length(session: Session, length: int) -> None:
    """For a value whose length is a multiple of 4, value_size_tokens is exactly length / 4."""
    session.seed({"sized": "abcd" * (length // 4)})
    size = session.listing(R.S8_2_APPROXIMATE_TOKEN_COUNT)["sized"]["value_size_tokens"]
    check_equal(R.S8_2_APPROXIMATE_TOKEN_COUNT, size, length // 4, f"value_size_tokens of {length} characters")


@requirement(R.S8_2_APPROXIMATE_TOKEN_COUNT)
@given(value=ascii_texts)
def test_value_size_tokens_follows_a_len_over_4_reading(implementation: Implementation, value: str) -> None:
    """For any value, value_size_tokens is len/4 rounded down, up or to nearest (or at least 1)."""
    with fresh_session(implementation, {"sized": value}) as session:
        size = session.listing(R.S8_2_APPROXIMATE_TOKEN_COUNT)["sized"]["value_size_tokens"]
        check_in(R.S8_2_APPROXIMATE_TOKEN_COUNT, size, token_readings(len(value)), f"value_size_tokens of {len(value)} chars")


@requirement(R.S4_2_TOTAL_SIZE_IN_LIST_KEYS)
def test_list_keys_reports_the_total_size(session: Session) -> None:
    """list_keys carries total_size_tokens, 0 for an empty store and the sum of the items' value_size_tokens after writes."""
    empty = session.list_keys(serves=R.S4_2_TOTAL_SIZE_IN_LIST_KEYS).expect(R.S4_2_TOTAL_SIZE_IN_LIST_KEYS)
    check_equal(R.S4_2_TOTAL_SIZE_IN_LIST_KEYS, empty.get("total_size_tokens"), 0, "total_size_tokens of an empty store")
    session.seed({"a": "z" * 400, "b": "z" * 1200, "c": "z" * 4})
    result = session.list_keys(serves=R.S4_2_TOTAL_SIZE_IN_LIST_KEYS).expect(R.S4_2_TOTAL_SIZE_IN_LIST_KEYS)
    total = sum(item["value_size_tokens"] for item in result["keys"])
    check_equal(R.S4_2_TOTAL_SIZE_IN_LIST_KEYS, result.get("total_size_tokens"), total, "total_size_tokens")


# --- read ---------------------------------------------------------------------------------------


@requirement(R.S3_2_RETURNS_VALUE)
def test_read_returns_the_value_and_metadata_of_the_last_write(session: Session) -> None:
    """Read returns the exact value last written with the written_by, written_at and version of that write."""
    session.put("phase_status", "drafting")
    first = session.read("phase_status", serves=R.S3_2_RETURNS_VALUE).expect(R.S3_2_RETURNS_VALUE)
    check_equal(R.S3_2_RETURNS_VALUE, first["value"], "drafting", "the value read")
    written = session.as_participant("subagent:review").put("phase_status", "review done; approval pending")
    result = session.read("phase_status", serves=R.S3_2_RETURNS_VALUE).expect(R.S3_2_RETURNS_VALUE)
    expected = {"key": "phase_status", "value": "review done; approval pending", "metadata": meta(written)}
    received = {"key": result["key"], "value": result["value"], "metadata": meta(result)}
    check_equal(R.S3_2_RETURNS_VALUE, received, expected, "the entry read after an overwrite")


@requirement(R.S3_2_KEY_NOT_FOUND)
def test_read_of_a_missing_key_is_refused(session: Session) -> None:
    """Read of a key never written, or deleted, gets an error."""
    session.seed({"scope": "something", "open_questions": "Intentional?"})
    session.read("risk_current", serves=R.S3_2_KEY_NOT_FOUND).refused(R.S3_2_KEY_NOT_FOUND)
    session.remove("open_questions")
    session.read("open_questions", serves=R.S3_2_KEY_NOT_FOUND).refused(R.S3_2_KEY_NOT_FOUND)


@requirement(R.S5_KEY_NOT_FOUND)
def test_read_of_a_missing_key_is_key_not_found(session: Session) -> None:
    """Read of a key never written gets KEY_NOT_FOUND."""
    session.put("scope", "something")
    session.read("risk_current", serves=R.S5_KEY_NOT_FOUND).refused(R.S5_KEY_NOT_FOUND, "KEY_NOT_FOUND")


# --- write --------------------------------------------------------------------------------------


@requirement(R.S3_3_CREATE_VERSION_ONE)
def test_write_of_a_new_key_creates_it_at_version_one(session: Session) -> None:
    """The first write of a key creates it with version 1."""
    result = session.write("current_phase", "analysis", serves=R.S3_3_CREATE_VERSION_ONE).expect(R.S3_3_CREATE_VERSION_ONE)
    check_equal(R.S3_3_CREATE_VERSION_ONE, (result["key"], result["version"]), ("current_phase", 1), "key and version")


@requirement(CREATES)
def test_write_of_a_new_key_stores_the_value(session: Session) -> None:
    """After the first write of a key, read returns the written value."""
    session.put("current_phase", "analysis")
    check_equal(CREATES, session.read("current_phase", serves=CREATES).expect(CREATES)["value"], "analysis", "the value read")


@requirement(R.S3_3_CREATE_VERSION_ONE)
def test_every_new_key_starts_at_version_one(session: Session) -> None:
    """A key's first write gives version 1, however many writes of other keys the session has seen."""
    for n in range(3):
        session.put("phase_status", f"step {n}")
    firsts = {}
    for key in ("problem_summary", "scope", "decisions_made"):
        firsts[key] = session.write(key, "first", serves=R.S3_3_CREATE_VERSION_ONE).expect(R.S3_3_CREATE_VERSION_ONE)["version"]
        session.put("phase_status", f"after {key}")
    subagent = session.as_participant("subagent:analysis")
    firsts["findings_summary"] = subagent.write("findings_summary", "new").expect(R.S3_3_CREATE_VERSION_ONE)["version"]
    check_equal(R.S3_3_CREATE_VERSION_ONE, firsts, dict.fromkeys(firsts, 1), "the versions of first writes")
    listed = session.listing(R.S3_3_CREATE_VERSION_ONE)
    check_equal(R.S3_3_CREATE_VERSION_ONE, {k: listed[k]["version"] for k in firsts}, firsts, "the versions listed")


@requirement(CREATES, R.S3_2_RETURNS_VALUE)
def test_overwrite_replaces_the_value(session: Session) -> None:
    """Each overwrite replaces the value, also with an unchanged or empty one: list_keys sizes it, read returns it."""
    for value in ["a" * 8, "b" * 800, "b" * 800, "c" * 80, ""]:
        session.write("findings_summary", value, serves=CREATES).expect(CREATES)
        # The size comes first: it shows the stored value without relying on read, which has its own requirement.
        size = session.listing(CREATES)["findings_summary"]["value_size_tokens"]
        check_in(CREATES, size, token_readings(len(value)), f"value_size_tokens after writing {len(value)} characters")
        read = session.read("findings_summary", serves=R.S3_2_RETURNS_VALUE).expect(R.S3_2_RETURNS_VALUE)["value"]
        check_equal(R.S3_2_RETURNS_VALUE, read, value, "the value read after an overwrite")


@requirement(R.S3_3_VERSION_INCREMENTS)
def test_overwrite_adds_exactly_one_to_the_version(session: Session) -> None:
    """Each overwrite answers a version exactly one above the one before, also for an unchanged value."""
    served = R.S3_3_VERSION_INCREMENTS
    # A refused write is the write's own failure (creates-or-overwrites): the versions are what this test judges.
    versions = [session.put("findings_summary", value)["version"] for value in ["one", "two", "two", "three", ""]]
    check_equal(served, versions, list(range(1, 6)), "the versions of five writes of a key")


@requirement(R.S2_3_VERSION_MONOTONIC)
def test_version_grows_on_every_write_even_of_the_same_value(session: Session) -> None:
    """The version grows on every write of a key while it exists, also when the value is unchanged."""
    # A refused write is the write's own failure (creates-or-overwrites): the versions are what this test judges.
    versions = [session.put("findings_summary", value)["version"] for value in ["one", "one", "two", "two", "two"]]
    grows = all(later > earlier for earlier, later in pairwise(versions))
    check(R.S2_3_VERSION_MONOTONIC, grows, "the version does not grow on every write", received=versions)


@requirement(R.S3_3_VERSION_INCREMENTS)
@given(values=st.lists(st.text(max_size=20), min_size=1, max_size=12))
def test_versions_count_the_writes_of_a_key(implementation: Implementation, values: list[str]) -> None:
    """The n-th write of a key answers version n."""
    with fresh_session(implementation) as session:
        served = R.S3_3_VERSION_INCREMENTS
        # A refused write (of an empty value, say) is the write's own failure, not one of the version.
        versions = [session.put("counted", value)["version"] for value in values]
        check_equal(served, versions, list(range(1, len(values) + 1)), "the versions of each write")


@requirement(R.S2_3_VERSION_MONOTONIC)
@given(values=st.lists(st.sampled_from(["a", "b", ""]), min_size=2, max_size=12))
def test_version_never_decreases_across_writes(implementation: Implementation, values: list[str]) -> None:
    """Across any writes of a key, equal values included, every version is greater than the one before."""
    with fresh_session(implementation) as session:
        served = R.S2_3_VERSION_MONOTONIC
        # A refused write (of an empty value, say) is the write's own failure, not one of the version.
        versions = [session.put("tracked", value)["version"] for value in values]
        grows = all(later > earlier for earlier, later in pairwise(versions))
        check(served, grows, "a write did not raise the version", sent=values, received=versions)


@requirement(R.S3_3_REWRITE_AFTER_DELETE_VERSION_ONE)
@given(steps=st.lists(st.sampled_from(["write", "delete"]), min_size=1, max_size=15))
def test_every_rewrite_after_a_delete_follows_one_reading(implementation: Implementation, steps: list[str]) -> None:
    """Across writes and deletes, every first write after a delete starts at 1, or every one continues the deleted count."""
    with fresh_session(implementation) as session:
        served = R.S3_3_REWRITE_AFTER_DELETE_VERSION_ONE
        exists, deleted_at, last, readings = False, None, 0, []
        for step in ["write", *steps, "delete", "write"]:
            if step == "write":
                version = session.write("tracked", "v", serves=served).expect(served)["version"]
                if deleted_at is not None:
                    readings.append(rewrite_reading(version, deleted_at))
                exists, deleted_at, last = True, None, version
            elif exists:
                session.remove("tracked")
                exists, deleted_at = False, last
        check_in(served, readings, [[name] * len(readings) for name in REWRITE_READINGS], "the reading of each rewrite")


@requirement(R.S2_3_VALUE_IS_TEXT)
@pytest.mark.parametrize(
    "value",
    [
        "",
        " ",
        "line one\nline two\r\nline three\n",
        "\ttabbed\tvalue\t",
        "Zürich, Łódź, İstanbul, 東京, Αθήνα",
        "emoji 🎉🧪 and astral 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
        "right-to-left \u200f\u05e9\u05dc\u05d5\u05dd\u200e mark",
        "combining e\u0301 and nul \x00 and bell \x07",
        '{"findings": [1, 2.5, null], "ok": true}',
        "   leading and trailing spaces   ",
        "\\backslash\\ \"quotes\" 'single'",
    ],
    ids=["empty", "space", "newlines", "tabs", "accents", "emoji", "rtl", "controls", "json", "spaces", "escapes"],
)
def test_value_round_trips_exactly(session: Session, value: str) -> None:
    """A value is read back as exactly the string written: no trimming, normalisation or parsing."""
    session.write("exact", value, serves=R.S2_3_VALUE_IS_TEXT).expect(R.S2_3_VALUE_IS_TEXT)
    read = session.read("exact", serves=R.S2_3_VALUE_IS_TEXT).expect(R.S2_3_VALUE_IS_TEXT)["value"]
    check_equal(R.S2_3_VALUE_IS_TEXT, read, value, "the value read back", sent=value)


@requirement(R.S2_3_VALUE_IS_TEXT)
@given(value=texts)
def test_any_text_value_round_trips(implementation: Implementation, value: str) -> None:
    """Any Unicode text within the size limit is stored and read back unchanged."""
    with fresh_session(implementation) as session:
        session.write("exact", value, serves=R.S2_3_VALUE_IS_TEXT).expect(R.S2_3_VALUE_IS_TEXT)
        read = session.read("exact", serves=R.S2_3_VALUE_IS_TEXT).expect(R.S2_3_VALUE_IS_TEXT)["value"]
        check_equal(R.S2_3_VALUE_IS_TEXT, read, value, "the value read back", sent=value)


@requirement(R.S2_4_AD_HOC_KEYS_PERMITTED)
@pytest.mark.parametrize("key", ["x", "0", "_", "___", "zz_custom_scratch_42", "tmp_2026_02_20", "9lives", "a" * 64])
def test_keys_outside_any_namespace_are_accepted(session: Session, key: str) -> None:
    """Ad-hoc keys that no namespace convention lists are written, listed and read like conventioned ones."""
    served = R.S2_4_AD_HOC_KEYS_PERMITTED
    session.write(key, "ad hoc", serves=served).expect(served)
    check_equal(served, session.keys(served), [key], "the keys listed")
    check_equal(served, session.read(key, serves=served).expect(served)["value"], "ad hoc", "the value read")


# --- delete -------------------------------------------------------------------------------------


@requirement(R.S3_4_PREVIOUS_VERSION)
def test_delete_reports_the_version_the_key_had(session: Session) -> None:
    """Delete answers the version the key had just before, as its last write and list_keys gave it."""
    for _ in range(3):
        last = session.put("open_questions", "Which pool size?")
    had = {"open_questions": last["version"], "scope": session.put("scope", "pools")["version"]}
    deleted = {key: session.delete(key, serves=R.S3_4_PREVIOUS_VERSION).expect(R.S3_4_PREVIOUS_VERSION) for key in had}
    previous = {key: answer.get("previous_version") for key, answer in deleted.items()}
    check_equal(R.S3_4_PREVIOUS_VERSION, previous, had, "previous_version of each deleted key")


@requirement(R.S3_4_REQUEST_AND_RESPONSE_SHAPE)
def test_delete_answers_the_deleted_key(session: Session) -> None:
    """Delete answers {deleted: key, previous_version}."""
    session.put("open_questions", "Which pool size?")
    result = session.delete("open_questions").expect(R.S3_4_REQUEST_AND_RESPONSE_SHAPE)
    check_equal(R.S3_4_REQUEST_AND_RESPONSE_SHAPE, result.get("deleted"), "open_questions", "the deleted field")


@requirement(R.S3_4_REMOVES_KEY)
def test_delete_removes_the_key_entirely(session: Session) -> None:
    """After delete, list_keys no longer lists the key; other keys stay."""
    session.seed({"open_questions": "Intentional?", "decisions_made": "Revert."})
    accepted(session.delete("open_questions", serves=R.S3_4_REMOVES_KEY), R.S3_4_REMOVES_KEY)
    check_equal(R.S3_4_REMOVES_KEY, session.keys(R.S3_4_REMOVES_KEY), ["decisions_made"], "the keys listed after delete")


@requirement(R.S3_4_KEY_NOT_FOUND)
def test_delete_of_a_missing_key_is_refused(session: Session) -> None:
    """Delete of a key never written, or already deleted, gets an error."""
    session.delete("never_written", serves=R.S3_4_KEY_NOT_FOUND).refused(R.S3_4_KEY_NOT_FOUND)
    session.put("once", "here")
    session.remove("once")
    session.delete("once", serves=R.S3_4_KEY_NOT_FOUND).refused(R.S3_4_KEY_NOT_FOUND)


@requirement(R.S5_KEY_NOT_FOUND)
def test_delete_of_a_missing_key_is_key_not_found(session: Session) -> None:
    """Delete of a key never written, or already deleted, gets KEY_NOT_FOUND."""
    session.delete("never_written", serves=R.S5_KEY_NOT_FOUND).refused(R.S5_KEY_NOT_FOUND, "KEY_NOT_FOUND")
    session.put("once", "here")
    session.remove("once")
    session.delete("once", serves=R.S5_KEY_NOT_FOUND).refused(R.S5_KEY_NOT_FOUND, "KEY_NOT_FOUND")


@requirement(R.S3_3_REWRITE_AFTER_DELETE_VERSION_ONE)
def test_rewrite_after_delete_starts_at_one_or_continues(session: Session) -> None:
    """A key written again after its delete gets version 1, or the deleted version + 1, in the answer, list_keys and read."""
    served = R.S3_3_REWRITE_AFTER_DELETE_VERSION_ONE
    for _ in range(4):
        last = session.put("blocking_issues", "waiting on user")["version"]
    session.remove("blocking_issues")
    versions = [
        session.write("blocking_issues", "new blocker", serves=served).expect(served)["version"],
        session.listing(served)["blocking_issues"]["version"],
        session.read("blocking_issues", serves=served).expect(served)["version"],
    ]
    allowed = [[version] * 3 for version in rewrite_versions(last).values()]
    check_in(served, versions, allowed, "the version after the rewrite (write, list_keys, read)")


# --- participants -------------------------------------------------------------------------------


def written_by_everywhere(session: Session, caller: Session, requirement_id: str) -> list[Any]:
    """written_by of one write by `caller`, as the write, read and list_keys answer it."""
    written = caller.write("scope", "pools", serves=requirement_id).expect(requirement_id)
    read = session.read("scope", serves=requirement_id).expect(requirement_id)
    return [written["written_by"], read["written_by"], session.listing(requirement_id)["scope"]["written_by"]]


@requirement(R.S3_3_WRITTEN_BY_SYSTEM_SET)
@pytest.mark.parametrize(
    "participant", ["orchestrator", "subagent:analysis", "subagent:investigation:3", "subagent:remediation:12"]
)
def test_written_by_is_the_calling_participant(session: Session, participant: str) -> None:
    """written_by is the caller's identity verbatim, in the write response, in read and in list_keys."""
    found = written_by_everywhere(session, session.as_participant(participant), R.S3_3_WRITTEN_BY_SYSTEM_SET)
    check_equal(R.S3_3_WRITTEN_BY_SYSTEM_SET, found, [participant] * 3, "written_by (write, read, list_keys)")


@requirement(R.S8_3_WRITTEN_BY_SYSTEM_SET)
def test_written_by_is_set_by_the_system(session: Session) -> None:
    """written_by of a subagent's write is the identity the system gave the caller, with nothing in the request."""
    found = written_by_everywhere(session, session.as_participant("subagent:analysis"), R.S8_3_WRITTEN_BY_SYSTEM_SET)
    check_equal(R.S8_3_WRITTEN_BY_SYSTEM_SET, found, ["subagent:analysis"] * 3, "written_by (write, read, list_keys)")


@requirement(R.S8_3_IDENTITY_FORMAT)
@given(participant=identities)
def test_written_by_is_any_recommended_identity_verbatim(implementation: Implementation, participant: str) -> None:
    """Any identity in a recommended format that the system gives the caller is recorded as written_by unchanged."""
    with fresh_session(implementation) as session:
        found = written_by_everywhere(session, session.as_participant(participant), R.S8_3_IDENTITY_FORMAT)
        check_equal(R.S8_3_IDENTITY_FORMAT, found, [participant] * 3, "written_by (write, read, list_keys)")


@requirement(R.S3_3_WRITTEN_BY_SYSTEM_SET, R.S3_SYNCHRONOUS)
def test_overwrite_by_another_participant_changes_written_by(session: Session) -> None:
    """Each write records its own caller: an overwrite by another participant replaces the writer before."""
    served = R.S3_3_WRITTEN_BY_SYSTEM_SET
    session.put("current_phase", "analysis")
    writers = []
    for participant, value in (("subagent:analysis", "remediation"), ("subagent:review", "closing")):
        version = session.as_participant(participant).put("current_phase", value)["version"]
        entry = session.read("current_phase", serves=served).expect(served)
        # A read that does not see the write just answered is synchronous' failure, not the writer's.
        check_equal(R.S3_SYNCHRONOUS, entry["version"], version, "the version read right after an overwrite")
        writers.append(entry["written_by"])
    check_equal(served, writers, ["subagent:analysis", "subagent:review"], "written_by after each overwrite")


@requirement(R.S3_3_WRITTEN_BY_NOT_SPOOFABLE)
@pytest.mark.parametrize(
    "extra",
    [{"written_by": "mallory"}, {"written_by": "orchestrator"}, {"version": 99}, {"written_at": "1999-01-01T00:00:00Z"}],
    ids=["written_by-mallory", "written_by-orchestrator", "version", "written_at"],
)
def test_request_body_cannot_set_metadata(session: Session, extra: dict[str, object]) -> None:
    """Metadata fields in a write body are refused or ignored: written_by stays the caller, version counts writes."""
    served = R.S3_3_WRITTEN_BY_NOT_SPOOFABLE
    subagent = session.as_participant("subagent:analysis")
    first = subagent.put("findings_summary", "first")
    request = {"action": "write", "key": "findings_summary", "value": "second", **extra}
    outcome = subagent.tool(request, serves=served)
    entry = session.read("findings_summary", serves=served).expect(served)
    received = {"value": entry["value"], "written_by": entry["written_by"], "stamp": entry["written_at"]}
    if outcome.ok:
        expected = {"value": "second", "written_by": "subagent:analysis", "stamp": entry["written_at"]}
        check(served, not str(entry["written_at"]).startswith("1999"), "the body set written_at", sent=request, received=entry)
        check_equal(served, entry["version"], field_of(outcome.raw, "version"), "the version stored", sent=request)
    else:
        expected = {"value": "first", "written_by": "subagent:analysis", "stamp": first["written_at"]}
    check_equal(served, received, expected, "the entry after a write with metadata in its body", sent=request)


@requirement(R.S3_3_WRITTEN_BY_NOT_SPOOFABLE)
def test_spoofed_written_by_on_a_new_key_is_not_recorded(session: Session) -> None:
    """A write that claims another author either is refused and creates nothing, or records the real caller."""
    served = R.S3_3_WRITTEN_BY_NOT_SPOOFABLE
    request = {"action": "write", "key": "decisions_made", "value": "Approved by user.", "written_by": "orchestrator"}
    outcome = session.as_participant("subagent:analysis").tool(request, serves=served)
    if outcome.ok:
        found = [field_of(outcome.raw, "written_by"), session.read("decisions_made", serves=served).expect(served)["written_by"]]
        check_equal(served, found, ["subagent:analysis"] * 2, "written_by (write, read)", sent=request)
    else:
        check_equal(served, session.keys(served), [], "the keys after the refused write", sent=request)


@requirement(R.S2_2_EQUAL_ACCESS)
def test_every_participant_can_read_overwrite_and_delete_any_key(session: Session) -> None:
    """Subagents read, overwrite and delete the orchestrator's keys, and the orchestrator theirs."""
    served = R.S2_2_EQUAL_ACCESS
    session.put("scratch", "deleted by its writer first, so a delete that works for nobody fails removes-key")
    session.remove("scratch")
    analysis = session.as_participant("subagent:analysis")
    remediation = session.as_participant("subagent:remediation:2")
    accepted(session.write("problem_summary", "from orchestrator", serves=served), served)
    accepted(analysis.write("findings_summary", "from analysis", serves=served), served)
    reads = [
        accepted(remediation.read("problem_summary", serves=served), served)["value"],
        accepted(session.read("findings_summary", serves=served), served)["value"],
    ]
    check_equal(served, reads, ["from orchestrator", "from analysis"], "what the other participants read")
    accepted(remediation.write("problem_summary", "from remediation", serves=served), served)
    accepted(analysis.delete("problem_summary", serves=served), served)
    accepted(session.delete("findings_summary", serves=served), served)


@requirement(R.S4_4_LAST_WRITE_WINS)
def test_the_later_of_two_writes_wins(session: Session) -> None:
    """Of two participants writing one key, read returns the later write, without any lock or expected version."""
    served = R.S4_4_LAST_WRITE_WINS
    first = session.as_participant("subagent:investigation:1")
    second = session.as_participant("subagent:investigation:2")
    first.write("root_cause_draft", "pool size", serves=served).expect(served)
    second.write("root_cause_draft", "thread starvation", serves=served).expect(served)
    # The first writer has not seen the second write; its write is not refused as stale.
    first.write("root_cause_draft", "pool size, confirmed", serves=served).expect(served)
    entry = session.read("root_cause_draft", serves=served).expect(served)
    received = (entry["value"], entry["written_by"])
    check_equal(served, received, ("pool size, confirmed", "subagent:investigation:1"), "the entry read")


@requirement(R.S4_4_LAST_WRITE_WINS)
@given(
    writes=st.lists(
        st.tuples(st.sampled_from(["orchestrator", "subagent:a", "subagent:b:1"]), st.text(max_size=30)), min_size=1, max_size=10
    )
)
def test_read_returns_the_last_of_any_sequence_of_writes(implementation: Implementation, writes: list[tuple[str, str]]) -> None:
    """After any sequence of writes by any participants, the key holds the last value and the metadata of its write."""
    served = R.S4_4_LAST_WRITE_WINS
    with fresh_session(implementation) as session:
        last: dict[str, Any] = {}
        previous = None  # the participant of the write before
        for participant, value in writes:
            outcome = session.as_participant(participant).write("contested", value, serves=served)
            # Refused after another participant's write: the lock or expected version 4.4 rules out; refused
            # otherwise (a first write, or one after the caller's own): the write's own failure.
            refusal = served if previous not in (None, participant) else CREATES
            last = stored(outcome, "contested", value, served, otherwise=refusal)
            previous = participant
        entry = session.read("contested", serves=served).expect(served)
        check_equal(served, (entry["value"], meta(entry)), (writes[-1][1], meta(last)), "the entry read")


@requirement(R.S3_SYNCHRONOUS)
def test_each_operation_is_visible_to_the_very_next_call(session: Session) -> None:
    """A write, overwrite or delete is observed by the next call of any participant, with no wait in between."""
    served = R.S3_SYNCHRONOUS
    other = session.as_participant("subagent:analysis")
    for n in range(1, 6):
        written = session.put("current_phase", f"phase {n}")
        entry = other.read("current_phase", serves=served).expect(served)
        seen = {"read": (entry["value"], entry["version"]), "listed": other.listing(served)}
        wanted = {"read": (f"phase {n}", written["version"]), "listed": session.listing(served)}
        check_equal(served, seen, wanted, "what another participant sees right after a write (the writer's own view)")
    session.remove("current_phase")
    check_equal(served, other.listing(served), session.listing(served), "what the other sees right after a delete")


# --- metadata -----------------------------------------------------------------------------------


@requirement(R.S2_3_WRITTEN_AT_UTC)
def test_written_at_is_a_utc_timestamp_of_the_write(session: Session) -> None:
    """written_at is an ISO 8601 UTC timestamp close to the time of the write, in every response that carries it."""
    served = R.S2_3_WRITTEN_AT_UTC
    before = datetime.now(UTC)
    written = session.write("current_phase", "analysis", serves=served)
    after = datetime.now(UTC)
    read, listed = session.read("current_phase", serves=served), session.list_keys(serves=served)
    # The raw answers are looked at before their schemas check them, so a stamp that is not UTC fails this requirement;
    # a stamp that is missing is the response shape's to report.
    items = items_of(listed.raw) or [{}]
    found = [(written, field_of(written.raw, "written_at")), (read, field_of(read.raw, "written_at"))]
    found.append((listed, items[0].get("written_at")))
    for outcome, stamp in found:
        if not outcome.ok or stamp is None:
            outcome.expect(served)
    stamps = [stamp for _, stamp in found]
    instants = [parse_utc(stamp) for stamp in stamps]
    near = all(i is not None and before - CLOCK_SKEW <= i <= after + CLOCK_SKEW for i in instants)
    check(served, near, "written_at is not a UTC timestamp of the write", received=stamps, expected=before.isoformat())
