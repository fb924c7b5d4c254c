"""The optional extensions of section 7 an implementation may declare: read_batch, read_history and snapshot."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance.suites.shared_context.client import Session, new_session_id

requirement = pytest.mark.requirement

Entries = dict[str, tuple[str, int, str]]


def populate(session: Session) -> Entries:
    """Write three keys by two participants, one of them twice; return what values() should give."""
    session.write("problem_summary", "Throughput dropped.").expect("shared-context/3.3/creates-or-overwrites")
    session.write("current_phase", "analysis").expect("shared-context/3.3/creates-or-overwrites")
    session.write("current_phase", "remediation").expect("shared-context/3.3/creates-or-overwrites")
    session.as_participant("subagent:analysis").write("findings_summary", "Pool size 200 -> 20.").expect(
        "shared-context/3.3/creates-or-overwrites"
    )
    return {
        "problem_summary": ("Throughput dropped.", 1, "orchestrator"),
        "current_phase": ("remediation", 2, "orchestrator"),
        "findings_summary": ("Pool size 200 -> 20.", 1, "subagent:analysis"),
    }


def by_key(entries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Entries indexed by key."""
    return {entry["key"]: entry for entry in entries}


def write_versions(session: Session, key: str, count: int) -> list[str]:
    """Write `count` versions of a key, alternating participants; return the values by version (index 0 is version 1)."""
    values = []
    for n in range(1, count + 1):
        caller = session if n % 2 else session.as_participant("subagent:investigation")
        value = f"{key} draft {n}"
        assert caller.write(key, value).result["version"] == n
        values.append(value)
    return values


def writer_of(version: int) -> str:
    """Who write_versions made write a version."""
    return "orchestrator" if version % 2 else "subagent:investigation"


# --- 7.4 read_batch -----------------------------------------------------------------------------


@requirement("shared-context/7.4/read-batch")
def test_read_batch_returns_what_read_returns_for_each_key(session: Session) -> None:
    """read_batch of existing keys returns, for each, the same value and metadata as read, and no key missing."""
    populate(session)
    wanted = ["problem_summary", "current_phase", "findings_summary"]
    result = session.tool({"action": "read_batch", "keys": wanted}).result
    assert result["missing"] == []
    found = by_key(result["entries"])
    assert sorted(found) == sorted(wanted)
    assert len(result["entries"]) == len(wanted)
    for key in wanted:
        assert found[key] == session.read(key).result


@requirement("shared-context/7.4/read-batch")
def test_read_batch_of_a_subset_returns_only_those_keys(session: Session) -> None:
    """read_batch of some keys returns exactly those keys, with their own values."""
    expected = populate(session)
    result = session.as_participant("subagent:remediation").tool({"action": "read_batch", "keys": ["findings_summary"]}).result
    assert [entry["key"] for entry in result["entries"]] == ["findings_summary"]
    entry = result["entries"][0]
    assert (entry["value"], entry["version"], entry["written_by"]) == expected["findings_summary"]


@requirement("shared-context/7.4/read-batch-missing-key")
def test_read_batch_with_a_missing_key_follows_a_reading(session: Session) -> None:
    """A missing key fails the whole batch with KEY_NOT_FOUND, or is reported missing while the others are returned."""
    expected = populate(session)
    outcome = session.tool({"action": "read_batch", "keys": ["problem_summary", "risk_current", "current_phase"]})
    if not outcome.ok:
        outcome.refused("shared-context/7.4/read-batch-missing-key", "KEY_NOT_FOUND")
        return
    result = outcome.result
    assert result["missing"] == ["risk_current"]
    found = by_key(result["entries"])
    assert sorted(found) == ["current_phase", "problem_summary"]
    for key, entry in found.items():
        assert (entry["value"], entry["version"], entry["written_by"]) == expected[key]


@requirement("shared-context/7.4/read-batch-missing-key")
def test_read_batch_of_only_missing_keys_follows_a_reading(session: Session) -> None:
    """When no listed key exists the batch fails with KEY_NOT_FOUND, or returns no entries and every key missing."""
    populate(session)
    outcome = session.tool({"action": "read_batch", "keys": ["risk_current", "scope"]})
    if not outcome.ok:
        outcome.refused("shared-context/7.4/read-batch-missing-key", "KEY_NOT_FOUND")
        return
    assert outcome.result["entries"] == []
    assert sorted(outcome.result["missing"]) == ["risk_current", "scope"]


@requirement("shared-context/7.4/read-batch")
def test_read_batch_changes_nothing(session: Session) -> None:
    """read_batch is a read: versions, values and writers stay as they were."""
    expected = populate(session)
    session.tool({"action": "read_batch", "keys": sorted(expected)}).expect("shared-context/7.4/read-batch")
    assert session.values() == expected


# --- 7.3 read_history ---------------------------------------------------------------------------


@requirement("shared-context/7.3/read-history-action")
def test_read_history_is_accepted_for_a_key(session: Session) -> None:
    """read_history of an existing key answers the key and a list of its versions, the current one included."""
    values = write_versions(session, "root_cause_draft", 3)
    result = session.tool({"action": "read_history", "key": "root_cause_draft"}).result
    assert result["key"] == "root_cause_draft"
    newest = result["versions"][-1]
    assert (newest["version"], newest["value"], newest["written_by"]) == (3, values[2], writer_of(3))


@requirement("shared-context/7.3/read-history-returns-history")
@pytest.mark.parametrize("asked", [[1, 2, 3], None], ids=["versions-1-2-3", "no-versions"])
def test_read_history_returns_each_version_value_oldest_first(session: Session, asked: list[int] | None) -> None:
    """read_history returns the values of all versions, or of the last N retained, oldest first and newest included."""
    values = write_versions(session, "root_cause_draft", 3)
    request = {"action": "read_history", "key": "root_cause_draft"} | ({"versions": asked} if asked else {})
    versions = session.tool(request).result["versions"]
    numbers = [entry["version"] for entry in versions]
    assert numbers, "no version returned"
    assert numbers == list(range(numbers[0], 4)), f"not a run of retained versions ending at 3: {numbers}"
    for entry in versions:
        assert entry["key"] == "root_cause_draft"
        assert (entry["value"], entry["written_by"]) == (values[entry["version"] - 1], writer_of(entry["version"]))


@requirement("shared-context/7.3/read-history-returns-history")
def test_read_history_is_restricted_to_the_versions_asked_for(session: Session) -> None:
    """With a versions list, read_history returns only those versions (those still retained), each with its own value."""
    values = write_versions(session, "root_cause_draft", 4)
    versions = session.tool({"action": "read_history", "key": "root_cause_draft", "versions": [1, 3, 4]}).result["versions"]
    numbers = [entry["version"] for entry in versions]
    assert numbers in ([1, 3, 4], [3, 4], [4]), f"versions {numbers} for [1, 3, 4] of 4"
    for entry in versions:
        assert entry["value"] == values[entry["version"] - 1]


@requirement("shared-context/7.3/read-history-returns-history")
@given(count=st.integers(1, 15), data=st.data())
def test_read_history_of_any_subset_gives_the_values_written(
    implementation: Implementation, count: int, data: st.DataObject
) -> None:
    """For any number of writes and any versions asked for, each version returned carries the value written at it."""
    session = Session(implementation, new_session_id())
    session.lifecycle("create_session").expect("shared-context/8.4/create-empty-store")
    try:
        values = write_versions(session, "decisions_made", count)
        asked = data.draw(st.lists(st.integers(1, count), min_size=1, unique=True), label="versions")
        versions = session.tool({"action": "read_history", "key": "decisions_made", "versions": asked}).result["versions"]
        numbers = [entry["version"] for entry in versions]
        # All asked-for versions, or those of them still retained: the ones from some version on.
        assert numbers == sorted(v for v in asked if numbers and v >= numbers[0]), f"versions {numbers} for {sorted(asked)}"
        assert (count in numbers) == (count in asked), f"the newest version {count} is always retained: {numbers}"
        for entry in versions:
            assert entry["value"] == values[entry["version"] - 1]
    finally:
        if implementation.broken is None:
            session.lifecycle("delete_session")


@requirement("shared-context/7.3/read-history-action")
def test_read_history_changes_nothing(session: Session) -> None:
    """read_history is a read: the live entry keeps its value and version."""
    expected = populate(session)
    session.tool({"action": "read_history", "key": "current_phase"}).expect("shared-context/7.3/read-history-action")
    assert session.values() == expected


# --- 7.6 snapshot -------------------------------------------------------------------------------


@requirement("shared-context/7.6/snapshot")
def test_snapshot_is_accepted_with_a_label(session: Session) -> None:
    """Snapshot with a label answers that label, a UTC taken_at and the number of keys frozen."""
    expected = populate(session)
    result = session.tool({"action": "snapshot", "label": "pre_approval_phase_3"}).result
    assert result["label"] == "pre_approval_phase_3"
    assert result["key_count"] == len(expected)
    assert datetime.fromisoformat(result["taken_at"].replace("z", "Z")).utcoffset() == timedelta(0)


@requirement("shared-context/7.6/snapshot")
def test_snapshot_of_an_empty_store_counts_no_keys(session: Session) -> None:
    """A snapshot of an empty store freezes zero keys."""
    assert session.tool({"action": "snapshot", "label": "empty_start"}).result["key_count"] == 0


@requirement("shared-context/7.6/snapshot-keeps-live-store")
def test_snapshot_leaves_the_live_store_unchanged_and_writable(session: Session) -> None:
    """After a snapshot every entry is unchanged, and writes and deletes go on with continuing versions."""
    expected = populate(session)
    listing = session.list_keys().result
    session.tool({"action": "snapshot", "label": "pre_approval_phase_3"}).expect("shared-context/7.6/snapshot")
    assert session.values() == expected
    assert session.list_keys().result == listing
    assert session.write("current_phase", "approval").expect("shared-context/7.6/snapshot-keeps-live-store")["version"] == 3
    assert session.delete("problem_summary").expect("shared-context/7.6/snapshot-keeps-live-store")["previous_version"] == 1
    assert session.write("decisions_made", "Approved.").expect("shared-context/7.6/snapshot-keeps-live-store")["version"] == 1
