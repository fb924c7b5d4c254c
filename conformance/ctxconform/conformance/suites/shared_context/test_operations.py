"""The four operations of section 3: list_keys, read, write and delete, and the entry metadata of section 2.3."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance.suites.shared_context.client import Outcome, Session, fresh_session, new_session_id, token_readings

requirement = pytest.mark.requirement

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


@pytest.fixture(scope="module")
def scratch(implementation: Implementation) -> Iterator[Session]:
    """One session for properties whose examples only overwrite a key of their own."""
    with fresh_session(implementation) as session:
        yield session


def listing(session: Session) -> dict[str, dict[str, Any]]:
    """Return list_keys as {key: metadata}."""
    return {item["key"]: item for item in session.list_keys().result["keys"]}


def parse_utc(stamp: str) -> datetime:
    """Parse an ISO 8601 timestamp and check it is in UTC."""
    try:
        parsed = datetime.fromisoformat(stamp.replace("z", "Z"))
    except (TypeError, ValueError):
        raise AssertionError(f"{stamp!r} is not an ISO 8601 timestamp") from None
    assert parsed.utcoffset() == timedelta(0), f"{stamp!r} is not a UTC timestamp"
    return parsed


def unchecked(outcome: Outcome, requirement_id: str) -> dict[str, Any]:
    """The result of a call that must succeed, not yet checked against its schema."""
    if not outcome.ok:
        outcome.expect(requirement_id)
    result: dict[str, Any] = outcome.reply.result
    return result


# --- the interface ------------------------------------------------------------------------------


@requirement("shared-context/3/four-operations")
def test_the_four_operations_exist(session: Session) -> None:
    """list_keys, read, write and delete are all actions of the tool."""
    assert session.write("current_phase", "analysis").expect("shared-context/3/four-operations")["version"] == 1
    assert session.read("current_phase").expect("shared-context/3/four-operations")["value"] == "analysis"
    assert [k["key"] for k in session.list_keys().expect("shared-context/3/four-operations")["keys"]] == ["current_phase"]
    assert session.delete("current_phase").expect("shared-context/3/four-operations")["deleted"] == "current_phase"


@requirement("shared-context/5/error-code-and-message")
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
    """Every refused call answers an error with a defined code and a non-empty message."""
    outcome = session.tool(request_)
    outcome.refused("shared-context/5/error-code-and-message")
    error = outcome.reply.error
    assert error is not None
    assert isinstance(error["code"], str)
    assert error["code"]
    assert isinstance(error["message"], str)
    assert error["message"].strip()
    assert error["message"].strip() != error["code"], "the message only repeats the code"


@requirement("shared-context/5/error-code-and-message")
def test_error_on_unknown_session_carries_a_code_and_a_message(implementation: Implementation) -> None:
    """An error about the session itself also carries a code and a non-empty message."""
    outcome = Session(implementation, new_session_id()).read("problem_summary")
    outcome.refused("shared-context/5/error-code-and-message", "SESSION_NOT_FOUND")
    assert outcome.reply.error is not None
    assert outcome.reply.error["message"].strip()


# --- list_keys ----------------------------------------------------------------------------------


@requirement("shared-context/3.1/returns-all-keys")
def test_list_keys_returns_every_key_with_its_current_metadata(session: Session) -> None:
    """list_keys has one item per key, with the written_by, written_at and version of its last write."""
    written = {
        "problem_summary": session.write("problem_summary", "Throughput dropped.").result,
        "scope": session.as_participant("subagent:analysis").write("scope", "Config only.").result,
        "x": session.write("x", "ad hoc").result,
    }
    written["scope"] = session.write("scope", "Config and pools.").result
    found = listing(session)
    assert set(found) == set(written)
    for key, result in written.items():
        assert (found[key]["written_by"], found[key]["written_at"], found[key]["version"]) == (
            result["written_by"],
            result["written_at"],
            result["version"],
        )
    assert len(session.list_keys().result["keys"]) == 3


@requirement("shared-context/3.1/returns-all-keys", "shared-context/8.4/create-empty-store")
def test_list_keys_of_an_empty_store_is_empty(session: Session) -> None:
    """A store without entries lists no keys, also after its only key was deleted."""
    assert session.list_keys().result["keys"] == []
    session.write("blocking_issues", "none").expect("shared-context/3.3/creates-or-overwrites")
    session.delete("blocking_issues").expect("shared-context/3.4/removes-key")
    assert session.list_keys().result["keys"] == []


@requirement("shared-context/3.1/no-values")
def test_list_keys_never_returns_values(session: Session) -> None:
    """No item of list_keys carries the value, under any field name."""
    secrets = {"findings_summary": "MARKER-7f3a findings text", "decisions_made": "MARKER-91bc decision text"}
    for key, value in secrets.items():
        session.write(key, value).expect("shared-context/3.3/creates-or-overwrites")
    result = session.list_keys().result
    assert all("value" not in item for item in result["keys"])
    dumped = json.dumps(result, ensure_ascii=False)
    assert "MARKER-7f3a" not in dumped
    assert "MARKER-91bc" not in dumped


@requirement("shared-context/3.1/value-size-tokens-field")
def test_value_size_tokens_grows_with_the_value(session: Session) -> None:
    """Every item carries a non-negative integer value_size_tokens, larger for a much larger value."""
    session.write("small", "tiny").expect("shared-context/3.3/creates-or-overwrites")
    session.write("large", "word " * 700).expect("shared-context/3.3/creates-or-overwrites")
    found = listing(session)
    for item in found.values():
        assert isinstance(item["value_size_tokens"], int)
        assert not isinstance(item["value_size_tokens"], bool)
        assert item["value_size_tokens"] >= 0
    assert found["large"]["value_size_tokens"] > found["small"]["value_size_tokens"]


@requirement("shared-context/8.2/approximate-token-count")
@pytest.mark.parametrize("length", [4, 40, 400, 1000, 3200, 4000])
def test_value_size_tokens_is_a_quarter_of_the_length(session: Session, length: int) -> None:
    """For a value whose length is a multiple of 4, value_size_tokens is exactly length / 4."""
    session.write("sized", "abcd" * (length // 4)).expect("shared-context/3.3/creates-or-overwrites")
    assert listing(session)["sized"]["value_size_tokens"] == length // 4


@requirement("shared-context/8.2/approximate-token-count")
@given(value=ascii_texts)
def test_value_size_tokens_follows_a_len_over_4_reading(scratch: Session, value: str) -> None:
    """For any value, value_size_tokens is len/4 rounded down, up or to nearest (or at least 1)."""
    scratch.write("sized", value).expect("shared-context/3.3/creates-or-overwrites")
    assert listing(scratch)["sized"]["value_size_tokens"] in token_readings(len(value))


@requirement("shared-context/4.2/total-size-in-list-keys")
def test_list_keys_reports_the_total_size(session: Session) -> None:
    """list_keys carries total_size_tokens, the sum of the items' value_size_tokens."""
    empty = session.list_keys().result
    assert "total_size_tokens" in empty, "list_keys does not report total_size_tokens"
    assert empty["total_size_tokens"] == 0
    for key, length in (("a", 400), ("b", 1200), ("c", 4)):
        session.write(key, "z" * length).expect("shared-context/3.3/creates-or-overwrites")
    result = session.list_keys().result
    assert result["total_size_tokens"] == sum(item["value_size_tokens"] for item in result["keys"]) == 401


# --- read ---------------------------------------------------------------------------------------


@requirement("shared-context/3.2/returns-value")
def test_read_returns_the_value_and_metadata_of_the_last_write(session: Session) -> None:
    """Read returns the exact value last written with the written_by, written_at and version of that write."""
    session.write("phase_status", "drafting").expect("shared-context/3.3/creates-or-overwrites")
    assert session.read("phase_status").expect("shared-context/3.2/returns-value")["value"] == "drafting"
    written = session.as_participant("subagent:review").write("phase_status", "review done; approval pending").result
    result = session.read("phase_status").result
    assert result["key"] == "phase_status"
    assert result["value"] == "review done; approval pending"
    assert (result["written_by"], result["written_at"], result["version"]) == (
        written["written_by"],
        written["written_at"],
        written["version"],
    )


@requirement("shared-context/3.2/key-not-found", "shared-context/5/key-not-found")
def test_read_of_a_missing_key_is_key_not_found(session: Session) -> None:
    """Read of a key never written gets KEY_NOT_FOUND."""
    session.write("scope", "something").expect("shared-context/3.3/creates-or-overwrites")
    outcome = session.read("risk_current")
    outcome.refused("shared-context/3.2/key-not-found")
    outcome.refused("shared-context/5/key-not-found", "KEY_NOT_FOUND")


# --- write --------------------------------------------------------------------------------------


@requirement("shared-context/3.3/create-version-one", "shared-context/3.3/creates-or-overwrites")
def test_write_of_a_new_key_creates_it_at_version_one(session: Session) -> None:
    """The first write of a key creates it with version 1 and the written value."""
    result = session.write("current_phase", "analysis").result
    assert (result["key"], result["version"]) == ("current_phase", 1)
    assert session.read("current_phase").result["value"] == "analysis"


@requirement("shared-context/3.3/create-version-one")
def test_every_new_key_starts_at_version_one(session: Session) -> None:
    """A key's first write gives version 1, however many writes of other keys the session has seen."""
    for n in range(3):
        session.write("phase_status", f"step {n}").expect("shared-context/3.3/creates-or-overwrites")
    for key in ("problem_summary", "scope", "decisions_made"):
        assert session.write(key, "first").expect("shared-context/3.3/create-version-one")["version"] == 1
        session.write("phase_status", f"after {key}").expect("shared-context/3.3/creates-or-overwrites")
    found = listing(session)
    assert {key: found[key]["version"] for key in ("problem_summary", "scope", "decisions_made")} == dict.fromkeys(
        ("problem_summary", "scope", "decisions_made"), 1
    )
    assert session.as_participant("subagent:analysis").write("findings_summary", "new").result["version"] == 1


@requirement(
    "shared-context/3.3/version-increments", "shared-context/3.3/creates-or-overwrites", "shared-context/2.3/version-monotonic"
)
def test_overwrite_replaces_the_value_and_adds_exactly_one_to_the_version(session: Session) -> None:
    """Each overwrite replaces the value and raises the version by exactly one, also for an unchanged value."""
    for n, value in enumerate(["one", "two", "two", "three", ""], start=1):
        assert session.write("findings_summary", value).result["version"] == n
        read = session.read("findings_summary").result
        assert (read["value"], read["version"]) == (value, n)


@requirement("shared-context/3.3/version-increments", "shared-context/2.3/version-monotonic")
@given(values=st.lists(st.text(max_size=20), min_size=1, max_size=12))
def test_versions_count_the_writes_of_a_key(implementation: Implementation, values: list[str]) -> None:
    """After n writes of a key its version is n, in every response and in list_keys."""
    with fresh_session(implementation) as session:
        versions = [session.write("counted", value).result["version"] for value in values]
        assert versions == list(range(1, len(values) + 1))
        assert listing(session)["counted"]["version"] == len(values)
        assert session.read("counted").result["value"] == values[-1]


@requirement("shared-context/2.3/version-monotonic", "shared-context/3.3/rewrite-after-delete-version-one")
@given(steps=st.lists(st.sampled_from(["write", "delete"]), min_size=1, max_size=15))
def test_version_never_decreases_while_the_key_exists(implementation: Implementation, steps: list[str]) -> None:
    """Across writes and deletes, a key's version grows by one per write and restarts at 1 after a delete."""
    with fresh_session(implementation) as session:
        expected = 0
        for step in steps:
            if step == "write":
                expected += 1
                assert session.write("tracked", f"v{expected}").result["version"] == expected
            elif expected:
                assert session.delete("tracked").result["previous_version"] == expected
                expected = 0
            else:
                session.delete("tracked").refused("shared-context/3.4/key-not-found", "KEY_NOT_FOUND")


@requirement("shared-context/2.3/value-is-text", "shared-context/3.2/returns-value")
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
    session.write("exact", value).expect("shared-context/2.3/value-is-text")
    read = session.read("exact").result["value"]
    assert isinstance(read, str)
    assert read == value


@requirement("shared-context/2.3/value-is-text", "shared-context/3.2/returns-value")
@given(value=texts)
def test_any_text_value_round_trips(scratch: Session, value: str) -> None:
    """Any Unicode text within the size limit is stored and read back unchanged."""
    scratch.write("exact", value).expect("shared-context/2.3/value-is-text")
    assert scratch.read("exact").result["value"] == value


@requirement("shared-context/2.4/ad-hoc-keys-permitted")
@pytest.mark.parametrize("key", ["x", "0", "_", "___", "zz_custom_scratch_42", "tmp_2026_02_20", "9lives", "a" * 64])
def test_keys_outside_any_namespace_are_accepted(session: Session, key: str) -> None:
    """Ad-hoc keys that no namespace convention lists are written, listed and read like conventioned ones."""
    assert session.write(key, "ad hoc").expect("shared-context/2.4/ad-hoc-keys-permitted")["version"] == 1
    assert set(listing(session)) == {key}
    assert session.read(key).expect("shared-context/2.4/ad-hoc-keys-permitted")["value"] == "ad hoc"


# --- delete -------------------------------------------------------------------------------------


@requirement("shared-context/3.4/previous-version", "shared-context/3.4/request-and-response-shape")
def test_delete_reports_the_version_the_key_had(session: Session) -> None:
    """Delete answers the deleted key and the version it had just before."""
    for _ in range(3):
        session.write("open_questions", "Which pool size?").expect("shared-context/3.3/creates-or-overwrites")
    session.write("scope", "pools").expect("shared-context/3.3/creates-or-overwrites")
    result = session.delete("open_questions").result
    assert (result["deleted"], result["previous_version"]) == ("open_questions", 3)
    assert session.delete("scope").result["previous_version"] == 1


@requirement("shared-context/3.4/removes-key")
def test_delete_removes_the_key_entirely(session: Session) -> None:
    """After delete, read gets KEY_NOT_FOUND and list_keys no longer lists the key; other keys stay."""
    session.write("open_questions", "Intentional?").expect("shared-context/3.3/creates-or-overwrites")
    session.write("decisions_made", "Revert.").expect("shared-context/3.3/creates-or-overwrites")
    session.delete("open_questions").expect("shared-context/3.4/removes-key")
    session.read("open_questions").refused("shared-context/3.4/removes-key", "KEY_NOT_FOUND")
    assert set(listing(session)) == {"decisions_made"}
    assert session.read("decisions_made").result["value"] == "Revert."


@requirement("shared-context/3.4/key-not-found", "shared-context/5/key-not-found")
def test_delete_of_a_missing_key_is_key_not_found(session: Session) -> None:
    """Delete of a key never written, or already deleted, gets KEY_NOT_FOUND."""
    never_written = session.delete("never_written")
    session.write("once", "here").expect("shared-context/3.3/creates-or-overwrites")
    session.delete("once").expect("shared-context/3.4/removes-key")
    for outcome in (never_written, session.delete("once")):
        outcome.refused("shared-context/3.4/key-not-found")
        outcome.refused("shared-context/5/key-not-found", "KEY_NOT_FOUND")


@requirement("shared-context/3.3/rewrite-after-delete-version-one")
def test_rewrite_after_delete_starts_again_at_version_one(session: Session) -> None:
    """A key written again after its delete is created anew with version 1."""
    for _ in range(4):
        session.write("blocking_issues", "waiting on user").expect("shared-context/3.3/creates-or-overwrites")
    session.delete("blocking_issues").expect("shared-context/3.4/removes-key")
    assert session.write("blocking_issues", "new blocker").result["version"] == 1
    assert listing(session)["blocking_issues"]["version"] == 1
    assert session.read("blocking_issues").result["version"] == 1


# --- participants -------------------------------------------------------------------------------


@requirement(
    "shared-context/3.3/written-by-system-set", "shared-context/8.3/written-by-system-set", "shared-context/8.3/identity-format"
)
@pytest.mark.parametrize(
    "participant", ["orchestrator", "subagent:analysis", "subagent:investigation:3", "subagent:remediation:12"]
)
def test_written_by_is_the_calling_participant(session: Session, participant: str) -> None:
    """written_by is the caller's identity verbatim, in the write response, in read and in list_keys."""
    caller = session.as_participant(participant)
    assert caller.write("scope", "pools").result["written_by"] == participant
    assert session.read("scope").result["written_by"] == participant
    assert listing(session)["scope"]["written_by"] == participant


@requirement(
    "shared-context/3.3/written-by-system-set", "shared-context/8.3/written-by-system-set", "shared-context/8.3/identity-format"
)
@given(participant=identities)
def test_written_by_is_any_recommended_identity_verbatim(scratch: Session, participant: str) -> None:
    """Any identity in a recommended format that the system gives the caller is recorded as written_by unchanged."""
    assert scratch.as_participant(participant).write("scope", "pools").result["written_by"] == participant
    assert scratch.read("scope").result["written_by"] == participant
    assert listing(scratch)["scope"]["written_by"] == participant


@requirement("shared-context/3.3/written-by-system-set")
def test_overwrite_by_another_participant_changes_written_by(session: Session) -> None:
    """Each write records its own caller: an overwrite by a subagent replaces the orchestrator as written_by."""
    session.write("current_phase", "analysis").expect("shared-context/3.3/creates-or-overwrites")
    session.as_participant("subagent:analysis").write("current_phase", "remediation").expect(
        "shared-context/3.3/creates-or-overwrites"
    )
    assert session.read("current_phase").result["written_by"] == "subagent:analysis"
    session.write("current_phase", "closing").expect("shared-context/3.3/creates-or-overwrites")
    assert listing(session)["current_phase"]["written_by"] == "orchestrator"


@requirement("shared-context/3.3/written-by-not-spoofable", "shared-context/3.3/extra-request-fields")
@pytest.mark.parametrize(
    "extra",
    [{"written_by": "mallory"}, {"written_by": "orchestrator"}, {"version": 99}, {"written_at": "1999-01-01T00:00:00Z"}],
    ids=["written_by-mallory", "written_by-orchestrator", "version", "written_at"],
)
def test_request_body_cannot_set_metadata(session: Session, extra: dict[str, object]) -> None:
    """Metadata fields in a write body are refused or ignored: written_by stays the caller, version counts writes."""
    subagent = session.as_participant("subagent:analysis")
    subagent.write("findings_summary", "first").expect("shared-context/3.3/creates-or-overwrites")
    outcome = subagent.tool({"action": "write", "key": "findings_summary", "value": "second", **extra})
    entry = session.read("findings_summary").result
    if outcome.ok:
        assert (outcome.result["written_by"], outcome.result["version"]) == ("subagent:analysis", 2)
        assert (entry["value"], entry["written_by"], entry["version"]) == ("second", "subagent:analysis", 2)
        assert not entry["written_at"].startswith("1999")
    else:
        assert (entry["value"], entry["written_by"], entry["version"]) == ("first", "subagent:analysis", 1)


@requirement("shared-context/3.3/written-by-not-spoofable")
def test_spoofed_written_by_on_a_new_key_is_not_recorded(session: Session) -> None:
    """A write that claims another author either is refused and creates nothing, or records the real caller."""
    outcome = session.as_participant("subagent:analysis").tool(
        {"action": "write", "key": "decisions_made", "value": "Approved by user.", "written_by": "orchestrator"}
    )
    if outcome.ok:
        assert outcome.result["written_by"] == "subagent:analysis"
        assert session.read("decisions_made").result["written_by"] == "subagent:analysis"
    else:
        assert listing(session) == {}


@requirement("shared-context/2.2/equal-access")
def test_every_participant_can_read_overwrite_and_delete_any_key(session: Session) -> None:
    """Subagents read, overwrite and delete the orchestrator's keys, and the orchestrator theirs."""
    analysis = session.as_participant("subagent:analysis")
    remediation = session.as_participant("subagent:remediation:2")
    session.write("problem_summary", "from orchestrator").expect("shared-context/2.2/equal-access")
    analysis.write("findings_summary", "from analysis").expect("shared-context/2.2/equal-access")
    assert remediation.read("problem_summary").expect("shared-context/2.2/equal-access")["value"] == "from orchestrator"
    assert session.read("findings_summary").expect("shared-context/2.2/equal-access")["value"] == "from analysis"
    assert remediation.write("problem_summary", "from remediation").expect("shared-context/2.2/equal-access")["version"] == 2
    assert analysis.delete("problem_summary").expect("shared-context/2.2/equal-access")["previous_version"] == 2
    assert session.delete("findings_summary").expect("shared-context/2.2/equal-access")["previous_version"] == 1
    assert remediation.list_keys().expect("shared-context/2.2/equal-access")["keys"] == []


@requirement("shared-context/4.4/last-write-wins")
def test_the_later_of_two_writes_wins(session: Session) -> None:
    """Of two participants writing one key, read returns the later write, without any lock or expected version."""
    first = session.as_participant("subagent:investigation:1")
    second = session.as_participant("subagent:investigation:2")
    seen = first.write("root_cause_draft", "pool size").result["version"]
    second.write("root_cause_draft", "thread starvation").expect("shared-context/4.4/last-write-wins")
    # The first writer still believes version `seen`; its write is not refused as stale.
    result = first.write("root_cause_draft", "pool size, confirmed").expect("shared-context/4.4/last-write-wins")
    assert result["version"] == seen + 2
    entry = session.read("root_cause_draft").result
    assert (entry["value"], entry["written_by"], entry["version"]) == ("pool size, confirmed", "subagent:investigation:1", 3)


@requirement("shared-context/4.4/last-write-wins")
@given(
    writes=st.lists(
        st.tuples(st.sampled_from(["orchestrator", "subagent:a", "subagent:b:1"]), st.text(max_size=30)), min_size=1, max_size=10
    )
)
def test_read_returns_the_last_of_any_sequence_of_writes(implementation: Implementation, writes: list[tuple[str, str]]) -> None:
    """After any sequence of writes by any participants, the key holds the last value and its writer."""
    with fresh_session(implementation) as session:
        for participant, value in writes:
            session.as_participant(participant).write("contested", value).expect("shared-context/4.4/last-write-wins")
        entry = session.read("contested").result
        assert (entry["value"], entry["written_by"], entry["version"]) == (writes[-1][1], writes[-1][0], len(writes))


@requirement("shared-context/3/synchronous")
def test_each_operation_is_visible_to_the_very_next_call(session: Session) -> None:
    """A write, overwrite or delete is observed by the next call of any participant, with no wait in between."""
    other = session.as_participant("subagent:analysis")
    for n in range(1, 6):
        session.write("current_phase", f"phase {n}").expect("shared-context/3.3/creates-or-overwrites")
        entry = other.read("current_phase").result
        assert (entry["value"], entry["version"]) == (f"phase {n}", n)
        assert listing(other)["current_phase"]["version"] == n
    other.delete("current_phase").expect("shared-context/3.4/removes-key")
    session.read("current_phase").refused("shared-context/3/synchronous", "KEY_NOT_FOUND")
    assert session.list_keys().result["keys"] == []


# --- metadata -----------------------------------------------------------------------------------


@requirement("shared-context/2.3/written-at-utc")
def test_written_at_is_a_utc_timestamp_of_the_write(session: Session) -> None:
    """written_at is an ISO 8601 UTC timestamp close to the time of the write, the same in every response."""
    before = datetime.now(UTC)
    written = unchecked(session.write("current_phase", "analysis"), "shared-context/3.3/creates-or-overwrites")
    after = datetime.now(UTC)
    # The answers are looked at before their schemas check them, so a stamp that is not UTC fails this requirement.
    stamps = [
        written["written_at"],
        unchecked(session.read("current_phase"), "shared-context/3.2/returns-value")["written_at"],
        *(item["written_at"] for item in unchecked(session.list_keys(), "shared-context/3.1/returns-all-keys")["keys"]),
    ]
    for stamp in stamps:
        assert before - CLOCK_SKEW <= parse_utc(stamp) <= after + CLOCK_SKEW, (
            f"{stamp} is not the time of the write ({before.isoformat()})"
        )
    assert stamps == [written["written_at"]] * 3
