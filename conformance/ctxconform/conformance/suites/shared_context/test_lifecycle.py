"""Sessions (sections 2.1, 4.5, 8.1 and 8.4): creation, isolation, archival, deletion and durability across restarts.

What a session held before an event is taken from the implementation's own answers, so a test of the event fails
only the requirement about the event, not one about versions or values an earlier call already got wrong.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from ctxconform.conformance.suites.shared_context import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.shared_context.client import (
    ARCHIVED_READ_CODES,
    REWRITE_READINGS,
    Entries,
    Session,
    accepted,
    fresh_session,
    new_session,
    new_session_id,
    rewrite_reading,
)
from ctxconform.conformance.testing import Implementation, RequirementId, check, check_equal, check_in, requirement

FULL_VALUE = "a" * 4000  # 1000 tokens under every reading
CREATES = R.S3_3_CREATES_OR_OVERWRITES


@pytest.fixture
def other(implementation: Implementation) -> Iterator[Session]:
    """A second new session, besides `session`, deleted afterwards."""
    with fresh_session(implementation) as created:
        yield created


def populate(session: Session) -> Entries:
    """Write entries by three participants, with overwrites; return them as the implementation then reads them."""
    session.put("problem_summary", "Throughput dropped 30%.")
    session.put("problem_summary", "Throughput dropped 30% after the Feb 18 change.")
    session.as_participant("subagent:analysis").put("findings_summary", "Pool size 200 -> 20.\nThread starvation.")
    for n in range(3):
        session.as_participant("subagent:remediation:7").put("phase_status", f"step {n}")
    return session.values()


def assert_gone(session: Session, requirement_id: RequirementId, *, writes: bool = True) -> None:
    """Every tool operation on the session gets SESSION_NOT_FOUND (reads only, unless `writes`)."""
    for outcome in (
        session.list_keys(serves=requirement_id),
        session.read("problem_summary", serves=requirement_id),
        *(
            (
                session.write("problem_summary", "resurrected?", serves=requirement_id),
                session.delete("problem_summary", serves=requirement_id),
                session.list_keys(serves=requirement_id),
            )
            if writes
            else ()
        ),
    ):
        outcome.refused(requirement_id, "SESSION_NOT_FOUND")


def as_read(session: Session, key: str, requirement_id: RequirementId) -> tuple[Any, Any]:
    """A key's (value, version) as the implementation reads it now."""
    entry = session.read(key, serves=requirement_id).expect(requirement_id)
    return entry["value"], entry["version"]


def metadata(session: Session, requirement_id: RequirementId) -> dict[str, tuple[Any, datetime, Any, Any]]:
    """list_keys as {key: (written_by, written_at as an instant, version, value_size_tokens)}."""
    return {
        key: (item["written_by"], datetime.fromisoformat(item["written_at"]), item["version"], item["value_size_tokens"])
        for key, item in session.listing(requirement_id).items()
    }


def restart(implementation: Implementation, session: Session, requirement_id: RequirementId) -> None:
    """Restart the implementation against the same state; the session must still be there, or `requirement_id` fails."""
    implementation.restart()
    session.list_keys(serves=requirement_id).expect(requirement_id)


def archived_entries(session: Session, requirement_id: RequirementId) -> Entries | None:
    """The entries of an archived session, or None when its reads are refused (4.5's second reading)."""
    listing = session.list_keys(serves=requirement_id)
    if not listing.ok:
        listing.refused(requirement_id, *ARCHIVED_READ_CODES)
        return None
    found = {}
    for item in listing.expect(requirement_id)["keys"]:
        outcome = session.read(item["key"], serves=requirement_id)
        if not outcome.ok:
            outcome.refused(requirement_id, *ARCHIVED_READ_CODES)
            return None
        entry = outcome.expect(requirement_id)
        found[entry["key"]] = (entry["value"], entry["version"], entry["written_by"])
    return found


# --- creation -----------------------------------------------------------------------------------


@requirement(R.S8_4_CREATE_EMPTY_STORE)
def test_a_new_session_is_an_empty_store(implementation: Implementation) -> None:
    """create_session answers for the id and gives a store with no keys, ready for writes."""
    served = R.S8_4_CREATE_EMPTY_STORE
    created = Session(implementation, new_session_id())
    result = created.lifecycle("create_session").expect(served)
    try:
        check_equal(served, result.get("session_id"), created.session_id, "the session_id create_session answers")
        check_equal(served, created.keys(served), [], "the keys of the new session")
        created.write("problem_summary", "first", serves=served).expect(served)
    finally:
        if implementation.broken is None:
            created.lifecycle("delete_session")


@requirement(R.S2_1_SESSION_ID_UNIQUE)
def test_create_on_an_existing_id_never_wipes_it(session: Session) -> None:
    """create_session with an id in use is refused or a no-op; the session's entries are unchanged either way."""
    served = R.S2_1_SESSION_ID_UNIQUE
    expected = populate(session)
    session.lifecycle("create_session", serves=served)  # refused with an error, or a no-op: the two readings
    check_equal(served, session.values(served), expected, "the entries after create_session of an existing id")


@requirement(R.S5_SESSION_NOT_FOUND)
def test_an_unknown_session_id_is_session_not_found(implementation: Implementation) -> None:
    """Every operation on a session id that was never created gets SESSION_NOT_FOUND, and a write does not create it."""
    assert_gone(Session(implementation, new_session_id()), R.S5_SESSION_NOT_FOUND)


# --- isolation ----------------------------------------------------------------------------------


def write_all(session: Session, writes: list[tuple[str, str, str]]) -> Entries:
    """Make (participant, key, value) writes; return {key: (value, version, written_by)} as each is read back then."""
    # Read back at once: that a read gives what was written is returns-value's; isolation is that nothing changes it.
    answered = {}
    for participant, key, value in writes:
        session.as_participant(participant).put(key, value)
        entry = session.read(key, serves=R.S2_1_ONE_STORE_PER_SESSION).expect(R.S2_1_ONE_STORE_PER_SESSION)
        answered[key] = (entry["value"], entry["version"], entry["written_by"])
    return answered


@requirement(R.S2_1_ONE_STORE_PER_SESSION)
def test_the_same_key_in_two_sessions_is_two_entries(session: Session, other: Session) -> None:
    """A key written in two sessions holds each session's own value, version and writer."""
    mine = write_all(
        session,
        [
            ("orchestrator", "problem_summary", "session one"),
            ("orchestrator", "problem_summary", "session one, again"),
            ("orchestrator", "only_here", "one"),
        ],
    )
    theirs = write_all(other, [("subagent:analysis", "problem_summary", "session two")])
    served = R.S2_1_ONE_STORE_PER_SESSION
    check_equal(served, session.values(served), mine, "the entries of the first session")
    check_equal(served, other.values(served), theirs, "the entries of the second session")


@requirement(R.S8_1_PER_SESSION_ISOLATION)
def test_a_key_of_one_session_is_not_found_in_another(session: Session, other: Session) -> None:
    """A key written only in one session is not in another, which lists only its own keys."""
    served = R.S8_1_PER_SESSION_ISOLATION
    session.seed({"only_here": "one", "problem_summary": "one"})
    other.seed({"problem_summary": "two"})
    check_equal(served, other.keys(served), ["problem_summary"], "the keys of the other session")


@requirement(R.S8_1_PER_SESSION_ISOLATION)
def test_delete_in_one_session_leaves_the_other(session: Session, other: Session) -> None:
    """Deleting a key, or a whole session, does not touch the same key in another session."""
    served = R.S8_1_PER_SESSION_ISOLATION
    session.seed({"open_questions": "one"})
    other.seed({"open_questions": "two"})
    session.remove("open_questions")
    check_equal(served, other.read("open_questions", serves=served).expect(served)["value"], "two", "the other's value")
    session.seed({"open_questions": "one again"})
    expected = session.values(served)
    other.lifecycle("delete_session").expect(R.S8_4_DELETE_SESSION_GONE)
    check_equal(served, session.values(served), expected, "the entries after the other session was deleted")


@requirement(R.S2_1_ONE_STORE_PER_SESSION)
def test_each_session_has_its_own_size_limit(session: Session, other: Session) -> None:
    """A full store in one session does not count against another: each session is one store of 10,000 tokens."""
    served = R.S2_1_ONE_STORE_PER_SESSION
    session.seed({f"slot_{n}": FULL_VALUE for n in range(10)}, R.S4_2_STORE_SIZE_LIMIT)
    for n in range(10):
        other.write(f"slot_{n}", FULL_VALUE, serves=served).expect(served)
    check_equal(served, len(other.keys(served)), 10, "the number of keys of the second session")


@requirement(R.S8_1_PER_SESSION_ISOLATION)
def test_archiving_one_session_leaves_the_other_writable(session: Session, other: Session) -> None:
    """Archiving a session makes only that session read-only."""
    served = R.S8_1_PER_SESSION_ISOLATION
    session.seed({"current_phase": "closing"})
    other.seed({"current_phase": "analysis"})
    session.lifecycle("archive_session").expect(R.S8_4_ARCHIVE_READ_ONLY)
    accepted(other.write("current_phase", "review", serves=served), served)
    other.remove("current_phase")


# --- archival -----------------------------------------------------------------------------------


def refused_writes_and_deletes(session: Session) -> Iterator[Any]:
    """Writes of an existing and a new key and a delete, by the orchestrator and a subagent, on an archived session."""
    for caller in (session, session.as_participant("subagent:analysis")):
        yield caller.write("problem_summary", "changed", serves=R.S8_4_ARCHIVE_READ_ONLY)
        yield caller.write("brand_new", "new", serves=R.S8_4_ARCHIVE_READ_ONLY)
        yield caller.delete("findings_summary", serves=R.S8_4_ARCHIVE_READ_ONLY)


@requirement(R.S8_4_ARCHIVE_READ_ONLY)
def test_an_archived_session_refuses_writes_and_deletes(session: Session) -> None:
    """After archive_session, writes (new or existing keys) and deletes are refused and change nothing."""
    served = R.S8_4_ARCHIVE_READ_ONLY
    expected = populate(session)
    session.lifecycle("archive_session").expect(served)
    for outcome in refused_writes_and_deletes(session):
        outcome.refused(served)
    entries = session_entries_if_readable(session)
    if entries is not None:
        check_equal(served, entries, expected, "the entries after refused writes and deletes")


def session_entries_if_readable(session: Session) -> Entries | None:
    """The entries of an archived session when its reads are answered, else None (reads are another requirement's)."""
    listing = session.list_keys(serves=R.S4_5_NOT_SURVIVE_ARCHIVAL)
    if not listing.ok:
        return None
    found: Entries = {}
    for item in listing.raw.get("keys", []) if isinstance(listing.raw, dict) else []:
        outcome = session.read(item.get("key"), serves=R.S4_5_NOT_SURVIVE_ARCHIVAL)
        entry = outcome.raw
        if not outcome.ok or not isinstance(entry, dict):
            return None
        found[str(entry.get("key"))] = (entry.get("value"), entry.get("version"), entry.get("written_by"))
    return found


@requirement(R.S5_SESSION_ARCHIVED)
def test_writes_and_deletes_of_an_archived_session_are_session_archived(session: Session) -> None:
    """After archive_session, writes and deletes get SESSION_ARCHIVED."""
    populate(session)
    session.lifecycle("archive_session").expect(R.S8_4_ARCHIVE_READ_ONLY)
    for outcome in refused_writes_and_deletes(session):
        if outcome.ok:
            continue  # accepted: the session is not read-only, which is archive-read-only's
        outcome.refused(R.S5_SESSION_ARCHIVED, "SESSION_ARCHIVED")


@requirement(R.S5_SESSION_ARCHIVED)
@pytest.mark.parametrize(
    ("key", "value", "other", "rule"),
    [
        pytest.param(
            "problem_summary", "x" * 4004, "VALUE_TOO_LARGE", R.S5_VALUE_TOO_LARGE, marks=requirement(R.S5_VALUE_TOO_LARGE)
        ),
        pytest.param(
            "problem.summary", "changed", "INVALID_KEY", R.S5_INVALID_KEY_ON_WRITE, marks=requirement(R.S5_INVALID_KEY_ON_WRITE)
        ),
    ],
    ids=["value-too-large", "invalid-key"],
)
def test_a_write_breaking_two_rules_on_an_archived_session_gets_either_code(
    session: Session, key: str, value: str, other: str, rule: RequirementId
) -> None:
    """A write to an archived session that also breaks a value or key rule gets SESSION_ARCHIVED or that rule's code."""
    populate(session)
    session.lifecycle("archive_session").expect(R.S8_4_ARCHIVE_READ_ONLY)
    # Section 5 lists the codes without ranking them: neither may be demanded over the other. A refusal with a code
    # of neither is charged to the rule whose code it stands for; an accepted write to the session's archive rule.
    answered = session.write(key, value, serves=R.S5_SESSION_ARCHIVED)
    judged = R.S5_SESSION_ARCHIVED if answered.ok or answered.code == "SESSION_ARCHIVED" else rule
    answered.refused(judged, "SESSION_ARCHIVED", other)
    # Either code honours both rules, so the refusal evidences both.
    for honoured in (R.S5_SESSION_ARCHIVED, rule):
        answered.refused(honoured, "SESSION_ARCHIVED", other)


@requirement(R.S4_5_NOT_SURVIVE_ARCHIVAL)
def test_reads_of_an_archived_session_give_the_entries_or_session_archived(session: Session) -> None:
    """After archival, read and list_keys return the unchanged entries, or are refused with SESSION_ARCHIVED (or NOT_FOUND)."""
    served = R.S4_5_NOT_SURVIVE_ARCHIVAL
    expected = populate(session)
    session.lifecycle("archive_session").expect(R.S8_4_ARCHIVE_READ_ONLY)
    found = archived_entries(session, served)
    if found is not None:
        check_equal(served, found, expected, "the entries of the archived session")


@requirement(R.S8_4_DELETE_SESSION_GONE)
def test_an_archived_session_can_be_deleted(session: Session) -> None:
    """delete_session of an archived session removes it: every call then gets SESSION_NOT_FOUND."""
    populate(session)
    session.lifecycle("archive_session").expect(R.S8_4_ARCHIVE_READ_ONLY)
    session.lifecycle("delete_session").expect(R.S8_4_DELETE_SESSION_GONE)
    assert_gone(session, R.S8_4_DELETE_SESSION_GONE)


# --- deletion -----------------------------------------------------------------------------------


@requirement(R.S8_4_DELETE_SESSION_GONE)
def test_a_deleted_session_is_gone(session: Session) -> None:
    """After delete_session every call gets SESSION_NOT_FOUND; a write does not bring the session back."""
    populate(session)
    session.lifecycle("delete_session").expect(R.S8_4_DELETE_SESSION_GONE)
    assert_gone(session, R.S8_4_DELETE_SESSION_GONE)


@requirement(R.S4_5_NOT_SURVIVE_DELETION)
def test_a_session_created_again_after_deletion_starts_empty(session: Session) -> None:
    """A session created with the id of a deleted one has none of its entries (or its creation is refused and it stays gone)."""
    served = R.S4_5_NOT_SURVIVE_DELETION
    populate(session)
    session.lifecycle("delete_session").expect(R.S8_4_DELETE_SESSION_GONE)
    again = session.lifecycle("create_session", serves=served)
    if not again.ok:
        assert_gone(session, served, writes=False)
        return
    # Against a brand-new session: what a new session holds is create-empty-store's to check.
    brand_new = new_session(session.implementation)
    try:
        check_equal(served, session.keys(served), brand_new.keys(served), "the keys of the session created again")
    finally:
        brand_new.lifecycle("delete_session")


@requirement(R.S4_5_NOT_SURVIVE_DELETION)
def test_a_deleted_session_stays_gone_after_a_restart(session: Session, implementation: Implementation) -> None:
    """Deletion is durable too: after a restart the deleted session is still SESSION_NOT_FOUND."""
    populate(session)
    session.lifecycle("delete_session").expect(R.S8_4_DELETE_SESSION_GONE)
    implementation.restart()
    assert_gone(session, R.S4_5_NOT_SURVIVE_DELETION, writes=False)


# --- lifecycle operations are not tool actions --------------------------------------------------


@requirement(R.S8_4_LIFECYCLE_NOT_AGENT_FACING)
@pytest.mark.parametrize("action", ["create_session", "archive_session", "delete_session"])
def test_lifecycle_operations_are_not_tool_actions(session: Session, action: str) -> None:
    """The shared_context tool refuses create, archive and delete of sessions, and the session stays as it was."""
    served = R.S8_4_LIFECYCLE_NOT_AGENT_FACING
    expected = populate(session)
    target = new_session_id() if action == "create_session" else session.session_id
    session.tool({"action": action, "session_id": target}, serves=served).refused(served)
    session.tool({"action": action}, serves=served).refused(served)
    check_equal(served, session.values(served), expected, "the entries after the refused lifecycle actions")
    session.write("current_phase", "still active", serves=served).expect(served)
    if action == "create_session":
        Session(session.implementation, target).list_keys(serves=served).refused(served, "SESSION_NOT_FOUND")


# --- durability ---------------------------------------------------------------------------------


@requirement(R.S4_5_DURABLE_STORAGE)
def test_entries_survive_a_restart(session: Session, implementation: Implementation) -> None:
    """After a restart every entry is back with its value, version and written_by."""
    served = R.S4_5_DURABLE_STORAGE
    expected = populate(session)
    restart(implementation, session, served)
    check_equal(served, session.values(served), expected, "the entries after a restart")


@requirement(R.S8_1_DURABLE_ACROSS_RESTARTS)
def test_metadata_survives_a_restart(session: Session, implementation: Implementation) -> None:
    """After a restart list_keys gives every key with the same written_by, written_at, version and size."""
    served = R.S8_1_DURABLE_ACROSS_RESTARTS
    populate(session)
    listing = metadata(session, served)
    restart(implementation, session, served)
    check_equal(served, metadata(session, served), listing, "list_keys after a restart")


@requirement(R.S8_1_DURABLE_ACROSS_RESTARTS)
def test_versions_continue_after_a_restart(session: Session, implementation: Implementation) -> None:
    """After a restart versions go on from where they were: an overwrite never goes back, a delete reports the last one."""
    served = R.S8_1_DURABLE_ACROSS_RESTARTS
    expected = populate(session)
    restart(implementation, session, served)
    # The delete goes first: a write by the orchestrator must not be what decides whether a subagent's key is there.
    # The key or its session not found as it was is what the restart lost; any other refusal is the delete's own.
    deleted = session.delete("phase_status", serves=R.S3_4_REMOVES_KEY)
    lost = deleted.code in ("KEY_NOT_FOUND", "SESSION_NOT_FOUND", "SESSION_ARCHIVED")
    check(served, not lost, "the key or its session is not as it was before the restart", received=deleted.error)
    deleted.expect(R.S3_4_REMOVES_KEY)
    written = session.write("problem_summary", "after restart", serves=served).expect(served)["version"]
    # What the implementation itself reads back before the restart is what must survive it (returns-value checks it).
    kept = session.read("problem_summary", serves=served).expect(served)
    restart(implementation, session, served)
    entry = session.read("problem_summary", serves=served).expect(served)
    before = expected["problem_summary"][1]
    # Exactly one more is version-increments' to check; a counter that did not survive the restart starts again below.
    check(served, written >= before, "the version went back after a restart", received=written, expected=f">= {before}")
    found = {"read": (entry["value"], entry["version"], entry["written_by"])}
    wanted = {"read": (kept["value"], kept["version"], kept["written_by"])}
    check_equal(served, found, wanted, "versions across restarts")
    check(served, "phase_status" not in session.keys(served), "a key deleted before a restart is back")


@requirement(R.S3_3_REWRITE_AFTER_DELETE_VERSION_ONE)
def test_a_rewrite_after_a_restart_follows_the_same_reading(session: Session, implementation: Implementation) -> None:
    """A key rewritten after its delete starts at 1 both before and after a restart, or continues its count both times."""
    served = R.S3_3_REWRITE_AFTER_DELETE_VERSION_ONE
    readings = []
    for restarted in (False, True):
        for _ in range(3):
            last = session.put("blocking_issues", "waiting on user")["version"]
        session.remove("blocking_issues")
        if restarted:
            implementation.restart()
        answered = session.write("blocking_issues", "new blocker", serves=served)
        if restarted and answered.code in ("SESSION_NOT_FOUND", "SESSION_ARCHIVED"):
            pytest.skip("the session did not come back from the restart: the durability tests judge that, not this reading")
        version = answered.expect(served)["version"]
        readings.append(rewrite_reading(version, last))
    check_in(served, readings, [[name, name] for name in REWRITE_READINGS], "the reading of the rewrites around a restart")


@requirement(R.S4_5_SURVIVES_ORCHESTRATOR_RESTART)
def test_the_orchestrator_finds_its_session_after_a_restart(session: Session, implementation: Implementation) -> None:
    """After a restart the orchestrator lists and reads every entry of its session, unchanged."""
    served = R.S4_5_SURVIVES_ORCHESTRATOR_RESTART
    expected = populate(session)
    restart(implementation, session, served)
    check_equal(served, session.values(served), expected, "the entries after an orchestrator restart")


@requirement(R.S4_5_SURVIVES_SUBAGENT_COMPLETION)
def test_entries_outlive_the_subagent_that_wrote_them(session: Session) -> None:
    """What finished subagents wrote stays readable to the orchestrator, and to later subagents after it worked on."""
    served = R.S4_5_SURVIVES_SUBAGENT_COMPLETION
    expected = {f"finding_{n}": (f"finding from run {n}", f"subagent:investigation:{n}") for n in range(1, 4)}
    for key, (value, writer) in expected.items():
        session.as_participant(writer).put(key, value)
    # The subagents have completed; the orchestrator takes over, then launches another subagent.
    check_equal(served, session.keys(served), sorted(expected), "the keys the orchestrator lists")
    session.put("decisions_made", "Investigate finding 2 further.")
    session.remove("decisions_made")
    later = session.as_participant("subagent:review")
    found = {}
    for key in expected:
        entry = later.read(key, serves=served).expect(served)
        found[key] = (entry["value"], entry["written_by"])
    check_equal(served, found, expected, "what a later subagent reads")


@requirement(R.S4_5_PERSISTS_SESSION_LIFETIME)
def test_entries_persist_however_many_keys_follow(session: Session) -> None:
    """Every key stays, with its value and version, however many other keys are written after it."""
    served = R.S4_5_PERSISTS_SESSION_LIFETIME
    expected = {}
    # Each key as the implementation reads it right after its write: whether that is what was written is returns-value's.
    for n in range(100):
        session.put(f"note_{n:03}", f"n{n}")
        expected[f"note_{n:03}"] = as_read(session, f"note_{n:03}", served)
    for _ in range(3):
        session.put("note_099", "rewritten")
        expected["note_099"] = as_read(session, "note_099", served)
    check_equal(served, session.keys(served), sorted(expected), "the keys listed")
    found = {}
    for key in expected:
        entry = session.read(key, serves=served).expect(served)
        found[key] = (entry["value"], entry["version"])
    check_equal(served, found, expected, "the entries read")


@requirement(R.S4_5_PERSISTS_SESSION_LIFETIME)
def test_a_deleted_key_stays_deleted_across_a_restart(session: Session, implementation: Implementation) -> None:
    """A key deleted during the session stays deleted, also after a restart, while the others persist."""
    served = R.S4_5_PERSISTS_SESSION_LIFETIME
    populate(session)
    session.remove("phase_status")
    kept = ("findings_summary", "problem_summary")
    expected = {key: session.read(key, serves=served).expect(served) for key in kept}
    implementation.restart()
    check_equal(served, session.keys(served), list(kept), "the keys after a restart")
    found = {key: session.read(key, serves=served).expect(served) for key in kept}
    check_equal(served, found, expected, "the entries after a restart")


@requirement(R.S4_5_SURVIVES_CONVERSATION_BOUNDARIES, R.S3_SYNCHRONOUS)
def test_entries_survive_a_conversation_boundary(session: Session, implementation: Implementation) -> None:
    """Day one's entries are there on day two (after a restart) for a new participant, who continues the work."""
    served = R.S4_5_SURVIVES_CONVERSATION_BOUNDARIES
    expected = populate(session)
    restart(implementation, session, served)  # the user returns tomorrow
    tomorrow = session.as_participant("subagent:effectiveness_review")
    check_equal(served, tomorrow.values(served), expected, "the entries the next day")
    answer = tomorrow.write("findings_summary", "Revert confirmed effective.", serves=served).expect(served)
    written = session.read("findings_summary", serves=served).expect(served)  # as the implementation holds it
    # The read right after the write must see it (synchronous) before what it gives can stand for the write.
    check_equal(
        R.S3_SYNCHRONOUS,
        (written["version"], written["written_by"]),
        (answer["version"], answer["written_by"]),
        "the version and writer read right after the write",
    )
    restart(implementation, session, served)  # and the day after
    entry = session.read("findings_summary", serves=served).expect(served)
    check_equal(
        served,
        (entry["value"], entry["version"], entry["written_by"]),
        (written["value"], written["version"], written["written_by"]),
        "the entry the day after",
    )


@requirement(R.S8_1_DURABLE_ACROSS_RESTARTS)
def test_an_archived_session_stays_read_only_after_a_restart(session: Session, implementation: Implementation) -> None:
    """Archival is durable: after a restart writes are still refused (with which code is session-archived's)."""
    served = R.S8_1_DURABLE_ACROSS_RESTARTS
    populate(session)
    session.lifecycle("archive_session").expect(R.S8_4_ARCHIVE_READ_ONLY)
    implementation.restart()
    session.write("problem_summary", "changed", serves=served).refused(served)
