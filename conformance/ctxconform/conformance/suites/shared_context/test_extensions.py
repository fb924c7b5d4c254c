"""The optional extensions of section 7 an implementation may declare: read_batch, read_history and snapshot.

Versions and values are compared with what the implementation answered to the writes, so an extension test fails
only its extension's requirement, not one about versions an earlier write already got wrong.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance.suites.shared_context import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.shared_context.client import Entries, Session, fresh_session
from ctxconform.conformance.testing import Checked, Implementation, check, check_equal, check_in, requirement

CREATES = R.S3_3_CREATES_OR_OVERWRITES
History = dict[int, tuple[str, str]]  # version -> (value, written_by), as the writes answered


def populate(session: Session) -> Entries:
    """Write three keys by two participants, one of them twice; return them as the implementation then reads them."""
    session.put("problem_summary", "Throughput dropped.")
    session.put("current_phase", "analysis")
    session.put("current_phase", "remediation")
    session.as_participant("subagent:analysis").put("findings_summary", "Pool size 200 -> 20.")
    return session.values()


def by_key(entries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Entries indexed by key."""
    return {entry["key"]: entry for entry in entries}


def entry_fields(entry: dict[str, Any]) -> dict[str, Any]:
    """The fields of an entry the document defines (2.3): an answer may carry more, which are not compared."""
    return {name: entry.get(name) for name in ("key", "value", "written_by", "written_at", "version")}


def write_versions(session: Session, key: str, count: int) -> History:
    """Write `count` versions of a key, alternating participants; return each version's value and writer."""
    history = {}
    for n in range(1, count + 1):
        caller = session if n % 2 else session.as_participant("subagent:investigation")
        value = f"{key} draft {n}"
        result = caller.put(key, value)
        history[result["version"]] = (value, result["written_by"])
    return history


def read_batch(session: Session, keys: list[str], served: str = R.S7_4_READ_BATCH) -> Checked:
    """A read_batch call."""
    return session.extension({"action": "read_batch", "keys": keys}, serves=served)


def read_history(
    session: Session, key: str, versions: list[int] | None = None, served: str = R.S7_3_READ_HISTORY_ACTION
) -> Checked:
    """A read_history call, of some versions when `versions` is given."""
    request = {"action": "read_history", "key": key} | ({"versions": versions} if versions is not None else {})
    return session.extension(request, serves=served)


def snapshot(session: Session, label: str, served: str = R.S7_6_SNAPSHOT) -> Checked:
    """A snapshot call."""
    return session.extension({"action": "snapshot", "label": label}, serves=served)


# --- 7.4 read_batch -----------------------------------------------------------------------------


@requirement(R.S7_4_READ_BATCH)
def test_read_batch_returns_what_read_returns_for_each_key(session: Session) -> None:
    """read_batch of existing keys returns, for each, the same value and metadata as read, and no key missing."""
    served = R.S7_4_READ_BATCH
    populate(session)
    wanted = ["problem_summary", "current_phase", "findings_summary"]
    result = read_batch(session, wanted).expect(served)
    # An implementation that fails a batch with a missing key (7.4's first reading) need not answer a missing list.
    check_in(served, result.get("missing"), [None, []], "the keys reported missing")
    check_equal(served, len(result["entries"]), len(wanted), "the number of entries")
    reads = {key: entry_fields(session.read(key).expect(R.S3_2_REQUEST_AND_RESPONSE_SHAPE)) for key in wanted}
    batch = {key: entry_fields(entry) for key, entry in by_key(result["entries"]).items()}
    check_equal(served, batch, reads, "the entries, against read's answers")


@requirement(R.S7_4_READ_BATCH)
def test_read_batch_of_a_subset_returns_only_those_keys(session: Session) -> None:
    """read_batch of some keys returns exactly those keys, with their own values."""
    served = R.S7_4_READ_BATCH
    expected = populate(session)
    result = read_batch(session.as_participant("subagent:remediation"), ["findings_summary"]).expect(served)
    found = {e["key"]: (e["value"], e["version"], e["written_by"]) for e in result["entries"]}
    check_equal(served, found, {"findings_summary": expected["findings_summary"]}, "the entries returned")


@requirement(R.S7_4_READ_BATCH_MISSING_KEY)
def test_read_batch_with_a_missing_key_follows_a_reading(session: Session) -> None:
    """A missing key fails the whole batch with KEY_NOT_FOUND, or is omitted or reported missing while the others are returned."""
    served = R.S7_4_READ_BATCH_MISSING_KEY
    expected = populate(session)
    outcome = read_batch(session, ["problem_summary", "risk_current", "current_phase"], served)
    if not outcome.ok:
        outcome.refused(served, "KEY_NOT_FOUND")
        return
    result = outcome.expect(served)
    found = {e["key"]: (e["value"], e["version"], e["written_by"]) for e in result["entries"]}
    # Without a missing list the key is reported by its absence from the entries ("omitted", the second reading).
    missing = result.get("missing")
    received = {"missing": missing, "entries": found}
    kept = {key: expected[key] for key in ("current_phase", "problem_summary")}
    check_equal(served, received, {"missing": None if missing is None else ["risk_current"], "entries": kept}, "the batch")


@requirement(R.S7_4_READ_BATCH_MISSING_KEY)
def test_read_batch_of_only_missing_keys_follows_a_reading(session: Session) -> None:
    """When no listed key exists the batch fails with KEY_NOT_FOUND, or returns no entries (and every key missing, if listed)."""
    served = R.S7_4_READ_BATCH_MISSING_KEY
    populate(session)
    outcome = read_batch(session, ["risk_current", "scope"], served)
    if not outcome.ok:
        outcome.refused(served, "KEY_NOT_FOUND")
        return
    result = outcome.expect(served)
    missing = result.get("missing")
    received = {"entries": result["entries"], "missing": None if missing is None else sorted(missing)}
    wanted = {"entries": [], "missing": None if missing is None else ["risk_current", "scope"]}
    check_equal(served, received, wanted, "the batch of missing keys")


@requirement(R.S7_4_READ_BATCH)
def test_read_batch_changes_nothing(session: Session) -> None:
    """read_batch is a read: versions, values and writers stay as they were."""
    expected = populate(session)
    read_batch(session, sorted(expected)).expect(R.S7_4_READ_BATCH)
    check_equal(R.S7_4_READ_BATCH, session.values(R.S7_4_READ_BATCH), expected, "the entries after read_batch")


# --- 7.3 read_history ---------------------------------------------------------------------------


@requirement(R.S7_3_READ_HISTORY_ACTION)
def test_read_history_is_accepted_for_a_key(session: Session) -> None:
    """read_history of an existing key answers the key and a list of its versions (in any order), the current one included."""
    served = R.S7_3_READ_HISTORY_ACTION
    write_versions(session, "root_cause_draft", 3)
    # The current version as read answers it: whether that is what was written is returns-value's.
    current = session.read("root_cause_draft", serves=served).expect(served)
    result = read_history(session, "root_cause_draft").expect(served)
    check_equal(served, result.get("key"), "root_cause_draft", "the key answered")
    newest: dict[str, Any] = max(result["versions"], key=lambda entry: entry.get("version") or 0, default={})
    received = (newest.get("version"), newest.get("value"), newest.get("written_by"))
    check_equal(served, received, (current["version"], current["value"], current["written_by"]), "the newest version listed")


def versions_match(served: str, versions: list[dict[str, Any]], history: History, key: str) -> None:
    """Each version returned carries the key, and the value and writer its write answered."""
    found = {entry["version"]: (entry.get("key"), entry.get("value"), entry.get("written_by")) for entry in versions}
    wanted = {v: (key, *history[v]) if v in history else "no such version was written" for v in found}
    check_equal(served, found, wanted, "the versions returned")


def version_numbers(versions: list[dict[str, Any]]) -> list[Any]:
    """The version numbers read_history returned, in order: the document gives the history no order."""
    return sorted(entry["version"] for entry in versions)


@requirement(R.S7_3_READ_HISTORY_RETURNS_HISTORY)
@pytest.mark.parametrize("asked", [[1, 2, 3], None], ids=["versions-1-2-3", "no-versions"])
def test_read_history_returns_the_value_of_each_version(session: Session, asked: list[int] | None) -> None:
    """read_history returns the values of all versions, or of the last N retained, newest included, in any order."""
    served = R.S7_3_READ_HISTORY_RETURNS_HISTORY
    history = write_versions(session, "root_cause_draft", 3)
    numbers_written = sorted(history)
    versions = read_history(session, "root_cause_draft", asked, served).expect(served)["versions"]
    numbers = version_numbers(versions)
    run = bool(numbers) and numbers[0] in numbers_written
    check(
        served,
        run and numbers == numbers_written[numbers_written.index(numbers[0]) :],
        "not a run of retained versions ending at the newest",
        received=numbers,
        expected=numbers_written,
    )
    versions_match(served, versions, history, "root_cause_draft")


@requirement(R.S7_3_READ_HISTORY_RETURNS_HISTORY)
def test_read_history_is_restricted_to_the_versions_asked_for(session: Session) -> None:
    """With a versions list, read_history returns only those versions (those still retained), each with its own value."""
    served = R.S7_3_READ_HISTORY_RETURNS_HISTORY
    history = write_versions(session, "root_cause_draft", 4)
    if len(history) < 4:
        pytest.skip("four writes did not give four versions: that is version-increments' to judge, not read_history's")
    asked = [v for v in sorted(history) if v != sorted(history)[1]]  # all but the second
    versions = read_history(session, "root_cause_draft", asked, served).expect(served)["versions"]
    numbers = version_numbers(versions)
    check_in(served, numbers, [asked[i:] for i in range(len(asked))], f"the versions returned for {asked}")
    versions_match(served, versions, history, "root_cause_draft")


@requirement(R.S7_3_READ_HISTORY_RETURNS_HISTORY)
@given(count=st.integers(1, 15), data=st.data())
def test_read_history_of_any_subset_gives_the_values_written(
    implementation: Implementation, count: int, data: st.DataObject
) -> None:
    """For any number of writes and any versions asked for, each version returned carries the value written at it."""
    served = R.S7_3_READ_HISTORY_RETURNS_HISTORY
    with fresh_session(implementation) as session:
        history = write_versions(session, "decisions_made", count)
        asked = data.draw(st.lists(st.sampled_from(sorted(history)), min_size=1, unique=True), label="versions")
        versions = read_history(session, "decisions_made", asked, served).expect(served)["versions"]
        numbers = version_numbers(versions)
        newest = max(history)
        # All asked-for versions, or those of them still retained: the ones from some version on; the newest always.
        retained = numbers == sorted(v for v in asked if numbers and v >= numbers[0]) and (newest in numbers) == (newest in asked)
        check(served, retained, "not the retained versions asked for", sent=sorted(asked), received=numbers)
        versions_match(served, versions, history, "decisions_made")


@requirement(R.S7_3_READ_HISTORY_ACTION)
def test_read_history_changes_nothing(session: Session) -> None:
    """read_history is a read: the live entry keeps its value and version."""
    expected = populate(session)
    read_history(session, "current_phase").expect(R.S7_3_READ_HISTORY_ACTION)
    check_equal(
        R.S7_3_READ_HISTORY_ACTION, session.values(R.S7_3_READ_HISTORY_ACTION), expected, "the entries after read_history"
    )


def in_utc(stamp: object) -> bool:
    """Whether `stamp` is an ISO 8601 timestamp in UTC."""
    try:
        return datetime.fromisoformat(str(stamp).replace("z", "Z")).utcoffset() == timedelta(0)
    except ValueError:
        return False


# --- 7.6 snapshot -------------------------------------------------------------------------------


@requirement(R.S7_6_SNAPSHOT)
def test_snapshot_is_accepted_with_a_label(session: Session) -> None:
    """Snapshot with a label answers that label, a UTC taken_at and the number of keys frozen."""
    served = R.S7_6_SNAPSHOT
    expected = populate(session)
    result = snapshot(session, "pre_approval_phase_3").expect(served)
    check_equal(served, (result["label"], result["key_count"]), ("pre_approval_phase_3", len(expected)), "label, key_count")
    check(served, in_utc(result["taken_at"]), "taken_at is not a UTC timestamp", received=result["taken_at"])


@requirement(R.S7_6_SNAPSHOT)
def test_snapshot_of_an_empty_store_counts_no_keys(session: Session) -> None:
    """A snapshot of an empty store freezes zero keys."""
    result = snapshot(session, "empty_start").expect(R.S7_6_SNAPSHOT)
    check_equal(R.S7_6_SNAPSHOT, result["key_count"], 0, "key_count of an empty store")


@requirement(R.S7_6_SNAPSHOT_KEEPS_LIVE_STORE)
def test_snapshot_leaves_the_live_store_unchanged_and_writable(session: Session) -> None:
    """After a snapshot every entry is unchanged, and writes and deletes go on."""
    served = R.S7_6_SNAPSHOT_KEEPS_LIVE_STORE
    populate(session)
    before = session.state(served)
    snapshot(session, "pre_approval_phase_3", served).expect(served)
    after = session.state(served)
    check(served, after == before, "the snapshot changed the live store", received=after, expected=before)
    session.write("current_phase", "approval", serves=served).expect(served)
    session.remove("problem_summary")
    session.write("decisions_made", "Approved.", serves=served).expect(served)
