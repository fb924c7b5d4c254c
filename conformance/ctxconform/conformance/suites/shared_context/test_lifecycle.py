"""Sessions (sections 2.1, 4.5, 8.1 and 8.4): creation, isolation, archival, deletion and durability across restarts."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance.suites.shared_context.client import Session, fresh_session, new_session_id

requirement = pytest.mark.requirement

FULL_VALUE = "a" * 4000  # 1000 tokens under every reading


@pytest.fixture
def other(implementation: Implementation) -> Iterator[Session]:
    """A second new session, besides `session`, deleted afterwards."""
    with fresh_session(implementation) as created:
        yield created


def keys_of(session: Session) -> list[str]:
    """The keys list_keys names, sorted."""
    return sorted(item["key"] for item in session.list_keys().result["keys"])


def populate(session: Session) -> dict[str, tuple[str, int, str]]:
    """Write entries by three participants, with overwrites; return what values() should give."""
    session.write("problem_summary", "Throughput dropped 30%.").expect("shared-context/3.3/creates-or-overwrites")
    session.write("problem_summary", "Throughput dropped 30% after the Feb 18 change.").expect(
        "shared-context/3.3/creates-or-overwrites"
    )
    session.as_participant("subagent:analysis").write("findings_summary", "Pool size 200 -> 20.\nThread starvation.").expect(
        "shared-context/3.3/creates-or-overwrites"
    )
    for n in range(3):
        session.as_participant("subagent:remediation:7").write("phase_status", f"step {n}").expect(
            "shared-context/3.3/creates-or-overwrites"
        )
    return {
        "problem_summary": ("Throughput dropped 30% after the Feb 18 change.", 2, "orchestrator"),
        "findings_summary": ("Pool size 200 -> 20.\nThread starvation.", 1, "subagent:analysis"),
        "phase_status": ("step 2", 3, "subagent:remediation:7"),
    }


def assert_gone(session: Session, requirement_id: str) -> None:
    """Every tool operation on the session gets SESSION_NOT_FOUND."""
    session.list_keys().refused(requirement_id, "SESSION_NOT_FOUND")
    session.read("problem_summary").refused(requirement_id, "SESSION_NOT_FOUND")
    session.write("problem_summary", "resurrected?").refused(requirement_id, "SESSION_NOT_FOUND")
    session.delete("problem_summary").refused(requirement_id, "SESSION_NOT_FOUND")
    session.list_keys().refused(requirement_id, "SESSION_NOT_FOUND")


def metadata(session: Session) -> dict[str, tuple[str, datetime, int, int]]:
    """list_keys as {key: (written_by, written_at as an instant, version, value_size_tokens)}."""
    return {
        item["key"]: (item["written_by"], datetime.fromisoformat(item["written_at"]), item["version"], item["value_size_tokens"])
        for item in session.list_keys().result["keys"]
    }


def restart(implementation: Implementation, session: Session, requirement_id: str) -> None:
    """Restart the implementation against the same state; the session must still be there, or `requirement_id` fails."""
    implementation.restart()
    session.list_keys().expect(requirement_id)


def assert_archived_entries(session: Session, expected: dict[str, tuple[str, int, str]]) -> None:
    """list_keys and read of an archived session give the unchanged entries, or SESSION_ARCHIVED (4.5's two readings)."""
    listing = session.list_keys()
    if listing.ok:
        assert sorted(item["key"] for item in listing.result["keys"]) == sorted(expected)
    else:
        listing.refused("shared-context/4.5/not-survive-archival", "SESSION_ARCHIVED")
    for key, (value, version, written_by) in expected.items():
        outcome = session.read(key)
        if outcome.ok:
            assert (outcome.result["value"], outcome.result["version"], outcome.result["written_by"]) == (
                value,
                version,
                written_by,
            )
        else:
            outcome.refused("shared-context/4.5/not-survive-archival", "SESSION_ARCHIVED")


# --- creation -----------------------------------------------------------------------------------


@requirement("shared-context/8.4/create-empty-store")
def test_a_new_session_is_an_empty_store(implementation: Implementation) -> None:
    """create_session answers for the id and gives a store with no keys, ready for writes."""
    created = Session(implementation, new_session_id())
    result = created.lifecycle("create_session").expect("shared-context/8.4/create-empty-store")
    try:
        assert result["session_id"] == created.session_id
        listing = created.list_keys().expect("shared-context/8.4/create-empty-store")
        assert listing["keys"] == []
        created.read("problem_summary").refused("shared-context/8.4/create-empty-store", "KEY_NOT_FOUND")
        assert created.write("problem_summary", "first").expect("shared-context/8.4/create-empty-store")["version"] == 1
    finally:
        if implementation.broken is None:
            created.lifecycle("delete_session")


@requirement("shared-context/2.1/session-id-unique")
def test_create_on_an_existing_id_never_wipes_it(session: Session) -> None:
    """create_session with an id in use is refused or a no-op; the session's entries are unchanged either way."""
    expected = populate(session)
    session.lifecycle("create_session")  # refused with an error, or a no-op: the two readings
    session.list_keys().expect("shared-context/2.1/session-id-unique")
    assert session.values() == expected
    assert session.write("problem_summary", "still the same store").result["version"] == 3


@requirement("shared-context/5/session-not-found")
def test_an_unknown_session_id_is_session_not_found(implementation: Implementation) -> None:
    """Every operation on a session id that was never created gets SESSION_NOT_FOUND, and a write does not create it."""
    assert_gone(Session(implementation, new_session_id()), "shared-context/5/session-not-found")


# --- isolation ----------------------------------------------------------------------------------


@requirement("shared-context/2.1/one-store-per-session", "shared-context/8.1/per-session-isolation")
def test_the_same_key_in_two_sessions_is_two_entries(session: Session, other: Session) -> None:
    """A key written in two sessions holds each session's own value, version and writer."""
    session.write("problem_summary", "session one").expect("shared-context/3.3/creates-or-overwrites")
    session.write("problem_summary", "session one, again").expect("shared-context/3.3/creates-or-overwrites")
    other.as_participant("subagent:analysis").write("problem_summary", "session two").expect(
        "shared-context/3.3/creates-or-overwrites"
    )
    session.write("only_here", "one").expect("shared-context/3.3/creates-or-overwrites")
    assert session.values() == {
        "problem_summary": ("session one, again", 2, "orchestrator"),
        "only_here": ("one", 1, "orchestrator"),
    }
    assert other.values() == {"problem_summary": ("session two", 1, "subagent:analysis")}
    other.read("only_here").refused("shared-context/8.1/per-session-isolation", "KEY_NOT_FOUND")


@requirement("shared-context/8.1/per-session-isolation")
def test_delete_in_one_session_leaves_the_other(session: Session, other: Session) -> None:
    """Deleting a key, or a whole session, does not touch the same key in another session."""
    session.write("open_questions", "one").expect("shared-context/3.3/creates-or-overwrites")
    other.write("open_questions", "two").expect("shared-context/3.3/creates-or-overwrites")
    session.delete("open_questions").expect("shared-context/3.4/removes-key")
    assert other.read("open_questions").expect("shared-context/8.1/per-session-isolation")["value"] == "two"
    session.write("open_questions", "one again").expect("shared-context/3.3/creates-or-overwrites")
    other.lifecycle("delete_session").expect("shared-context/8.4/delete-session-gone")
    assert session.values() == {"open_questions": ("one again", 1, "orchestrator")}


@requirement("shared-context/2.1/one-store-per-session", "shared-context/8.1/per-session-isolation")
def test_each_session_has_its_own_size_limit(session: Session, other: Session) -> None:
    """A full store in one session does not count against another: each session is one store of 10,000 tokens."""
    for n in range(10):
        session.write(f"slot_{n}", FULL_VALUE).expect("shared-context/4.2/store-size-limit")
    session.write("slot_10", "abcd").refused("shared-context/4.2/store-size-limit", "STORE_FULL")
    for n in range(10):
        other.write(f"slot_{n}", FULL_VALUE).expect("shared-context/2.1/one-store-per-session")
    assert len(keys_of(session)) == len(keys_of(other)) == 10


@requirement("shared-context/8.1/per-session-isolation")
def test_archiving_one_session_leaves_the_other_writable(session: Session, other: Session) -> None:
    """Archiving a session makes only that session read-only."""
    session.write("current_phase", "closing").expect("shared-context/3.3/creates-or-overwrites")
    other.write("current_phase", "analysis").expect("shared-context/3.3/creates-or-overwrites")
    session.lifecycle("archive_session").expect("shared-context/8.4/archive-read-only")
    assert other.write("current_phase", "review").expect("shared-context/8.1/per-session-isolation")["version"] == 2
    assert other.delete("current_phase").expect("shared-context/8.1/per-session-isolation")["previous_version"] == 2


# --- archival -----------------------------------------------------------------------------------


@requirement("shared-context/8.4/archive-read-only", "shared-context/5/session-archived")
def test_an_archived_session_refuses_writes_and_deletes(session: Session) -> None:
    """After archive_session, writes (new or existing keys) and deletes get SESSION_ARCHIVED and change nothing."""
    expected = populate(session)
    session.lifecycle("archive_session").expect("shared-context/8.4/archive-read-only")
    subagent = session.as_participant("subagent:analysis")
    for caller in (session, subagent):
        for outcome in (
            caller.write("problem_summary", "changed"),
            caller.write("brand_new", "new"),
            caller.delete("findings_summary"),
        ):
            outcome.refused("shared-context/8.4/archive-read-only")  # accepted: the session is not read-only
            outcome.refused("shared-context/5/session-archived", "SESSION_ARCHIVED")  # refused, with another code
    assert_archived_entries(session, expected)


@requirement("shared-context/4.5/not-survive-archival", "shared-context/8.4/archive-read-only")
def test_reads_of_an_archived_session_give_the_entries_or_session_archived(session: Session) -> None:
    """After archival, read and list_keys return the unchanged entries, or are refused with SESSION_ARCHIVED."""
    expected = populate(session)
    session.lifecycle("archive_session").expect("shared-context/8.4/archive-read-only")
    assert_archived_entries(session, expected)
    session.read("never_written").refused("shared-context/4.5/not-survive-archival", "KEY_NOT_FOUND", "SESSION_ARCHIVED")


@requirement("shared-context/8.4/delete-session-gone", "shared-context/4.5/not-survive-deletion")
def test_an_archived_session_can_be_deleted(session: Session) -> None:
    """delete_session of an archived session removes it: every call then gets SESSION_NOT_FOUND."""
    populate(session)
    session.lifecycle("archive_session").expect("shared-context/8.4/archive-read-only")
    session.lifecycle("delete_session").expect("shared-context/8.4/delete-session-gone")
    assert_gone(session, "shared-context/8.4/delete-session-gone")


# --- deletion -----------------------------------------------------------------------------------


@requirement(
    "shared-context/8.4/delete-session-gone", "shared-context/4.5/not-survive-deletion", "shared-context/5/session-not-found"
)
def test_a_deleted_session_is_gone(session: Session) -> None:
    """After delete_session every call gets SESSION_NOT_FOUND; a write does not bring the session back."""
    populate(session)
    session.lifecycle("delete_session").expect("shared-context/8.4/delete-session-gone")
    assert_gone(session, "shared-context/8.4/delete-session-gone")


@requirement("shared-context/4.5/not-survive-deletion", "shared-context/8.4/create-empty-store")
def test_a_session_created_again_after_deletion_starts_empty(session: Session) -> None:
    """A session created with the id of a deleted one has none of its entries (or its creation is refused and it stays gone)."""
    populate(session)
    session.lifecycle("delete_session").expect("shared-context/8.4/delete-session-gone")
    again = session.lifecycle("create_session")
    if again.ok:
        assert session.list_keys().result["keys"] == []
        assert session.write("problem_summary", "new life").result["version"] == 1
    else:
        assert_gone(session, "shared-context/4.5/not-survive-deletion")


@requirement("shared-context/4.5/not-survive-deletion", "shared-context/8.1/durable-across-restarts")
def test_a_deleted_session_stays_gone_after_a_restart(session: Session, implementation: Implementation) -> None:
    """Deletion is durable too: after a restart the deleted session is still SESSION_NOT_FOUND."""
    populate(session)
    session.lifecycle("delete_session").expect("shared-context/8.4/delete-session-gone")
    implementation.restart()
    assert_gone(session, "shared-context/4.5/not-survive-deletion")


# --- lifecycle operations are not tool actions --------------------------------------------------


@requirement("shared-context/8.4/lifecycle-not-agent-facing")
@pytest.mark.parametrize("action", ["create_session", "archive_session", "delete_session"])
def test_lifecycle_operations_are_not_tool_actions(session: Session, action: str) -> None:
    """The shared_context tool refuses create, archive and delete of sessions, and the session stays as it was."""
    expected = populate(session)
    target = new_session_id() if action == "create_session" else session.session_id
    session.tool({"action": action, "session_id": target}).refused("shared-context/8.4/lifecycle-not-agent-facing")
    session.tool({"action": action}).refused("shared-context/8.4/lifecycle-not-agent-facing")
    session.list_keys().expect("shared-context/8.4/lifecycle-not-agent-facing")
    assert session.values() == expected
    assert session.write("current_phase", "still active").expect("shared-context/8.4/lifecycle-not-agent-facing")["version"] == 1
    if action == "create_session":
        Session(session.implementation, target).list_keys().refused(
            "shared-context/8.4/lifecycle-not-agent-facing", "SESSION_NOT_FOUND"
        )


# --- durability ---------------------------------------------------------------------------------


@requirement(
    "shared-context/4.5/durable-storage",
    "shared-context/8.1/durable-across-restarts",
    "shared-context/4.5/survives-orchestrator-restart",
)
def test_entries_survive_a_restart(session: Session, implementation: Implementation) -> None:
    """After a restart every entry is back with its value, version, written_by and written_at, and list_keys agrees."""
    expected = populate(session)
    listing = metadata(session)
    restart(implementation, session, "shared-context/4.5/durable-storage")
    assert session.values() == expected
    assert metadata(session) == listing


@requirement(
    "shared-context/4.5/persists-session-lifetime",
    "shared-context/8.1/durable-across-restarts",
    "shared-context/4.5/survives-orchestrator-restart",
)
def test_versions_continue_after_a_restart(session: Session, implementation: Implementation) -> None:
    """After a restart the orchestrator overwrites, deletes and rewrites keys with versions that continue from before."""
    populate(session)
    restart(implementation, session, "shared-context/8.1/durable-across-restarts")
    assert session.write("problem_summary", "after restart").result["version"] == 3
    assert session.delete("phase_status").result["previous_version"] == 3
    restart(implementation, session, "shared-context/8.1/durable-across-restarts")
    entry = session.read("problem_summary").result
    assert (entry["value"], entry["version"], entry["written_by"]) == ("after restart", 3, "orchestrator")
    session.read("phase_status").refused("shared-context/4.5/persists-session-lifetime", "KEY_NOT_FOUND")
    assert session.write("phase_status", "rewritten").result["version"] == 1


@requirement("shared-context/4.5/survives-subagent-completion", "shared-context/4.5/persists-session-lifetime")
def test_entries_outlive_the_subagent_that_wrote_them(session: Session) -> None:
    """What finished subagents wrote stays readable to the orchestrator, and to later subagents after it worked on."""
    for n in range(1, 4):
        session.as_participant(f"subagent:investigation:{n}").write(f"finding_{n}", f"finding from run {n}").expect(
            "shared-context/3.3/creates-or-overwrites"
        )
    # The subagents have completed; the orchestrator takes over, then launches another subagent.
    assert keys_of(session) == ["finding_1", "finding_2", "finding_3"]
    session.write("decisions_made", "Investigate finding 2 further.").expect("shared-context/3.3/creates-or-overwrites")
    session.delete("decisions_made").expect("shared-context/3.4/removes-key")
    later = session.as_participant("subagent:review")
    for n in range(1, 4):
        entry = later.read(f"finding_{n}").expect("shared-context/4.5/survives-subagent-completion")
        assert (entry["value"], entry["written_by"]) == (f"finding from run {n}", f"subagent:investigation:{n}")
    assert keys_of(later) == ["finding_1", "finding_2", "finding_3"]


@requirement("shared-context/4.5/persists-session-lifetime")
def test_entries_persist_however_many_keys_follow(session: Session) -> None:
    """Every key stays, with its value and version, however many other keys are written after it."""
    expected = {f"note_{n:03}": f"n{n}" for n in range(100)}
    for key, value in expected.items():
        session.write(key, value).expect("shared-context/3.3/creates-or-overwrites")
    for _ in range(3):
        session.write("note_099", "rewritten").expect("shared-context/3.3/creates-or-overwrites")
    expected["note_099"] = "rewritten"
    assert keys_of(session) == sorted(expected)
    for key, value in expected.items():
        entry = session.read(key).expect("shared-context/4.5/persists-session-lifetime")
        assert (entry["value"], entry["version"]) == (value, 4 if key == "note_099" else 1)


@requirement(
    "shared-context/4.5/survives-conversation-boundaries",
    "shared-context/4.5/survives-subagent-completion",
    "shared-context/4.5/durable-storage",
)
def test_entries_survive_a_conversation_boundary(session: Session, implementation: Implementation) -> None:
    """Day one's entries are there on day two (after a restart) for a new participant, who continues the work."""
    expected = populate(session)
    restart(implementation, session, "shared-context/4.5/survives-conversation-boundaries")  # the user returns tomorrow
    tomorrow = session.as_participant("subagent:effectiveness_review")
    assert tomorrow.values() == expected
    written = tomorrow.write("findings_summary", "Revert confirmed effective.")
    assert written.expect("shared-context/4.5/survives-conversation-boundaries")["version"] == 2
    restart(implementation, session, "shared-context/4.5/survives-conversation-boundaries")  # and the day after
    entry = session.read("findings_summary").result
    assert (entry["value"], entry["version"], entry["written_by"]) == (
        "Revert confirmed effective.",
        2,
        "subagent:effectiveness_review",
    )


@requirement("shared-context/8.4/archive-read-only", "shared-context/8.1/durable-across-restarts")
def test_an_archived_session_stays_read_only_after_a_restart(session: Session, implementation: Implementation) -> None:
    """Archival is durable: after a restart writes and deletes still get SESSION_ARCHIVED."""
    populate(session)
    session.lifecycle("archive_session").expect("shared-context/8.4/archive-read-only")
    implementation.restart()
    session.write("problem_summary", "changed").refused("shared-context/8.1/durable-across-restarts", "SESSION_ARCHIVED")
    session.delete("problem_summary").refused("shared-context/8.1/durable-across-restarts", "SESSION_ARCHIVED")
