"""The document's own examples: the request and response shapes of section 3 and the cycle of section 10."""

from __future__ import annotations

from typing import Any

import pytest

from ctxconform.conformance.suites.shared_context.client import Session

requirement = pytest.mark.requirement


def keys_of(session: Session) -> dict[str, dict[str, Any]]:
    """Return list_keys as {key: metadata}."""
    return {item["key"]: item for item in session.list_keys().result["keys"]}


@requirement("shared-context/3.3/request-and-response-shape", "shared-context/3.3/create-version-one")
def test_write_example_returns_key_version_and_metadata(session: Session) -> None:
    """The write example of 3.3 answers with the key, its version, written_by and written_at."""
    result = session.write("problem_summary", "Updated summary after investigation...").result
    assert result["key"] == "problem_summary"
    assert result["version"] == 1
    assert result["written_by"] == "orchestrator"


@requirement(
    "shared-context/3.3/request-and-response-shape",
    "shared-context/3.3/version-increments",
    "shared-context/3.3/written-by-system-set",
)
def test_write_example_third_version_by_investigation_subagent(session: Session) -> None:
    """The 3.3 example: the third write of problem_summary, by subagent:investigation, answers version 3 and that writer."""
    session.write("problem_summary", "First draft.").expect("shared-context/3.3/creates-or-overwrites")
    session.write("problem_summary", "Second draft.").expect("shared-context/3.3/creates-or-overwrites")
    investigation = session.as_participant("subagent:investigation")
    result = investigation.tool(
        {"action": "write", "key": "problem_summary", "value": "Updated summary after investigation..."}
    ).result
    assert set(result) >= {"key", "version", "written_by", "written_at"}
    assert (result["key"], result["version"], result["written_by"]) == ("problem_summary", 3, "subagent:investigation")


@requirement("shared-context/3.1/request-and-response-shape", "shared-context/3.1/returns-all-keys")
def test_list_keys_example_lists_problem_summary_with_metadata(session: Session) -> None:
    """The 3.1 example: after two writes list_keys lists problem_summary at version 2 with its size and no value."""
    session.write("problem_summary", "Draft.").expect("shared-context/3.3/creates-or-overwrites")
    session.write("problem_summary", "Customer reported intermittent alarm...").expect("shared-context/3.3/creates-or-overwrites")
    result = session.tool({"action": "list_keys"}).result
    assert [item["key"] for item in result["keys"]] == ["problem_summary"]
    item = result["keys"][0]
    assert (item["written_by"], item["version"]) == ("orchestrator", 2)
    assert isinstance(item["value_size_tokens"], int)
    assert item["value_size_tokens"] >= 0
    assert "value" not in item


@requirement("shared-context/3.2/request-and-response-shape", "shared-context/3.2/returns-value")
def test_read_example_returns_value_written_by_initiation_subagent(session: Session) -> None:
    """The 3.2 example: read returns the value, written_by subagent:initiation, written_at and version 2."""
    session.write("problem_summary", "Draft.").expect("shared-context/3.3/creates-or-overwrites")
    initiation = session.as_participant("subagent:initiation")
    written = initiation.write("problem_summary", "Customer reported intermittent alarm...").result
    result = session.tool({"action": "read", "key": "problem_summary"}).result
    assert result == {
        **result,
        "key": "problem_summary",
        "value": "Customer reported intermittent alarm...",
        "written_by": "subagent:initiation",
        "version": 2,
    }
    assert result["written_at"] == written["written_at"]


@requirement("shared-context/3.4/request-and-response-shape", "shared-context/3.4/previous-version")
def test_delete_example_reports_previous_version_five(session: Session) -> None:
    """The 3.4 example: deleting open_questions after five writes answers deleted and previous_version 5."""
    for n in range(1, 6):
        assert session.write("open_questions", f"Question list, revision {n}.").result["version"] == n
    result = session.tool({"action": "delete", "key": "open_questions"}).result
    assert result["deleted"] == "open_questions"
    assert result["previous_version"] == 5


FINDINGS = (
    "Connection pool size reduced from 200 to 20 in Feb 18 config change.\n"
    "Thread starvation under load. Staging test confirmed:\n"
    "restoring to 200 resolves throughput."
)
QUESTION = "Was the pool size change intentional? Need user confirmation before recommending revert."
DECISION = "Config change was accidental. User approves revert recommendation."
BRIEF = {
    "current_phase": "analysis",
    "problem_summary": "Throughput dropped 30% after config change on Feb 18.",
    "scope": "Identify which config parameter caused degradation. Do not modify production.",
    "constraints": "Read-only access to prod. Staging available for experiments.",
}


@requirement(
    "shared-context/3.1/returns-all-keys",
    "shared-context/3.2/returns-value",
    "shared-context/3.3/written-by-system-set",
    "shared-context/3.4/removes-key",
    "shared-context/2.2/equal-access",
    "shared-context/4.5/survives-subagent-completion",
    "shared-context/8.3/identity-format",
)
def test_section_10_interaction_cycle(session: Session) -> None:
    """The whole cycle of section 10: orchestrator, subagent:analysis and subagent:remediation share state through the store."""
    orchestrator = session
    for key, value in BRIEF.items():
        written = orchestrator.write(key, value).result
        assert (written["key"], written["version"], written["written_by"]) == (key, 1, "orchestrator")

    analysis = session.as_participant("subagent:analysis")
    listing = keys_of(analysis)
    assert set(listing) == set(BRIEF)
    assert all(item["written_by"] == "orchestrator" and item["version"] == 1 for item in listing.values())
    for key in ("problem_summary", "scope", "constraints"):
        assert analysis.read(key).result["value"] == BRIEF[key]
    assert analysis.write("findings_summary", FINDINGS).result["written_by"] == "subagent:analysis"
    assert analysis.write("open_questions", QUESTION).result["version"] == 1
    # subagent:analysis completes and makes no further calls.

    listing = keys_of(orchestrator)
    assert set(listing) == set(BRIEF) | {"findings_summary", "open_questions"}
    assert listing["findings_summary"]["written_by"] == listing["open_questions"]["written_by"] == "subagent:analysis"
    question = orchestrator.read("open_questions").result
    assert (question["value"], question["written_by"], question["version"]) == (QUESTION, "subagent:analysis", 1)

    decision = orchestrator.write("decisions_made", DECISION).result
    assert (decision["version"], decision["written_by"]) == (1, "orchestrator")
    deleted = orchestrator.delete("open_questions").result
    assert deleted == {**deleted, "deleted": "open_questions", "previous_version": 1}

    remediation = session.as_participant("subagent:remediation")
    listing = keys_of(remediation)
    assert set(listing) == set(BRIEF) | {"findings_summary", "decisions_made"}
    findings = remediation.read("findings_summary").result
    assert (findings["value"], findings["written_by"], findings["version"]) == (FINDINGS, "subagent:analysis", 1)
    decided = remediation.read("decisions_made").result
    assert (decided["value"], decided["written_by"], decided["version"]) == (DECISION, "orchestrator", 1)
    assert remediation.read("open_questions").refused("shared-context/3.4/removes-key", "KEY_NOT_FOUND")
