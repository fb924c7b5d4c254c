"""The document's own examples: the request and response shapes of section 3 and the cycle of section 10."""

from __future__ import annotations

from ctxconform.conformance.suites.shared_context import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.shared_context.client import Session, accepted
from ctxconform.conformance.testing import check, check_equal, requirement

CREATES = R.S3_3_CREATES_OR_OVERWRITES


@requirement(R.S3_3_REQUEST_AND_RESPONSE_SHAPE, R.S3_3_CREATE_VERSION_ONE)
def test_write_example_returns_key_version_and_metadata(session: Session) -> None:
    """The write example of 3.3 answers with the key, its version, written_by and written_at."""
    result = session.write("problem_summary", "Updated summary after investigation...").expect(R.S3_3_REQUEST_AND_RESPONSE_SHAPE)
    check_equal(R.S3_3_REQUEST_AND_RESPONSE_SHAPE, result["key"], "problem_summary", "the key answered")
    check_equal(R.S3_3_CREATE_VERSION_ONE, result["version"], 1, "the version of the first write")


@requirement(R.S3_3_REQUEST_AND_RESPONSE_SHAPE, R.S3_3_VERSION_INCREMENTS, R.S3_3_WRITTEN_BY_SYSTEM_SET)
def test_write_example_third_version_by_investigation_subagent(session: Session) -> None:
    """The 3.3 example: the third write of problem_summary, by subagent:investigation, answers version 3 and that writer."""
    session.put("problem_summary", "First draft.")
    session.put("problem_summary", "Second draft.")
    request = {"action": "write", "key": "problem_summary", "value": "Updated summary after investigation..."}
    result = session.as_participant("subagent:investigation").tool(request).expect(R.S3_3_REQUEST_AND_RESPONSE_SHAPE)
    fields = sorted({"key", "version", "written_by", "written_at"} - set(result))
    check(R.S3_3_REQUEST_AND_RESPONSE_SHAPE, not fields, "the write answer lacks fields", received=result, expected=fields)
    check_equal(R.S3_3_REQUEST_AND_RESPONSE_SHAPE, result["key"], "problem_summary", "the key answered", sent=request)
    check_equal(R.S3_3_VERSION_INCREMENTS, result["version"], 3, "the version of the third write", sent=request)
    check_equal(R.S3_3_WRITTEN_BY_SYSTEM_SET, result["written_by"], "subagent:investigation", "written_by", sent=request)


@requirement(R.S3_1_REQUEST_AND_RESPONSE_SHAPE, R.S3_1_RETURNS_ALL_KEYS)
def test_list_keys_example_lists_problem_summary_with_metadata(session: Session) -> None:
    """The 3.1 example: after two writes list_keys lists problem_summary with the metadata of the last write."""
    session.put("problem_summary", "Draft.")
    last = session.put("problem_summary", "Customer reported intermittent alarm...")
    result = session.tool({"action": "list_keys"}).expect(R.S3_1_REQUEST_AND_RESPONSE_SHAPE)
    check_equal(R.S3_1_RETURNS_ALL_KEYS, [item["key"] for item in result["keys"]], ["problem_summary"], "the keys listed")
    item = result["keys"][0]
    received = (item["written_by"], item["version"], item["written_at"])
    check_equal(R.S3_1_RETURNS_ALL_KEYS, received, (last["written_by"], last["version"], last["written_at"]), "metadata")


@requirement(R.S3_2_REQUEST_AND_RESPONSE_SHAPE, R.S3_2_RETURNS_VALUE)
def test_read_example_returns_value_written_by_initiation_subagent(session: Session) -> None:
    """The 3.2 example: read returns the value, written_by subagent:initiation, and the written_at and version of that write."""
    session.put("problem_summary", "Draft.")
    last = session.as_participant("subagent:initiation").put("problem_summary", "Customer reported intermittent alarm...")
    result = session.tool({"action": "read", "key": "problem_summary"}).expect(R.S3_2_REQUEST_AND_RESPONSE_SHAPE)
    check_equal(R.S3_2_REQUEST_AND_RESPONSE_SHAPE, result["key"], "problem_summary", "the key answered")
    received = {k: result[k] for k in ("value", "written_by", "written_at", "version")}
    expected = {"value": "Customer reported intermittent alarm...", "written_by": last["written_by"]}
    expected |= {"written_at": last["written_at"], "version": last["version"]}
    check_equal(R.S3_2_RETURNS_VALUE, received, expected, "the entry read")


@requirement(R.S3_4_REQUEST_AND_RESPONSE_SHAPE, R.S3_4_PREVIOUS_VERSION)
def test_delete_example_reports_previous_version_five(session: Session) -> None:
    """The 3.4 example: deleting open_questions after five writes answers deleted and the version of the last write."""
    for n in range(1, 6):
        last = session.put("open_questions", f"Question list, revision {n}.")
    result = session.tool({"action": "delete", "key": "open_questions"}).expect(R.S3_4_REQUEST_AND_RESPONSE_SHAPE)
    check_equal(R.S3_4_REQUEST_AND_RESPONSE_SHAPE, result["deleted"], "open_questions", "the deleted field")
    check_equal(R.S3_4_PREVIOUS_VERSION, result["previous_version"], last["version"], "previous_version")


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
    R.S3_1_RETURNS_ALL_KEYS,
    R.S3_2_RETURNS_VALUE,
    R.S3_3_WRITTEN_BY_SYSTEM_SET,
    R.S3_4_REMOVES_KEY,
    R.S3_2_KEY_NOT_FOUND,
    R.S2_2_EQUAL_ACCESS,
    R.S4_5_SURVIVES_SUBAGENT_COMPLETION,
    R.S8_3_IDENTITY_FORMAT,
)
def test_section_10_interaction_cycle(session: Session) -> None:
    """The whole cycle of section 10: orchestrator, subagent:analysis and subagent:remediation share state through the store."""
    orchestrator = session
    written = {key: orchestrator.put(key, value) for key, value in BRIEF.items()}
    writers = {key: answer["written_by"] for key, answer in written.items()}
    check_equal(R.S3_3_WRITTEN_BY_SYSTEM_SET, writers, dict.fromkeys(BRIEF, "orchestrator"), "written_by of the brief")

    analysis = session.as_participant("subagent:analysis")
    listing = analysis.listing(R.S3_1_RETURNS_ALL_KEYS)
    check_equal(
        R.S3_1_RETURNS_ALL_KEYS,
        {key: (item["written_by"], item["version"]) for key, item in listing.items()},
        {key: (answer["written_by"], answer["version"]) for key, answer in written.items()},
        "what subagent:analysis lists",
    )
    reads = {key: analysis.read(key, serves=R.S3_2_RETURNS_VALUE).expect(R.S3_2_RETURNS_VALUE)["value"] for key in BRIEF}
    check_equal(R.S3_2_RETURNS_VALUE, reads, BRIEF, "what subagent:analysis reads")
    finding = accepted(analysis.write("findings_summary", FINDINGS, serves=R.S2_2_EQUAL_ACCESS), R.S2_2_EQUAL_ACCESS)
    check_equal(R.S8_3_IDENTITY_FORMAT, finding["written_by"], "subagent:analysis", "written_by of the subagent's write")
    accepted(analysis.write("open_questions", QUESTION, serves=R.S2_2_EQUAL_ACCESS), R.S2_2_EQUAL_ACCESS)
    # subagent:analysis completes and makes no further calls.

    served = R.S4_5_SURVIVES_SUBAGENT_COMPLETION
    question = orchestrator.read("open_questions", serves=served).expect(served)
    check_equal(served, (question["value"], question["written_by"]), (QUESTION, "subagent:analysis"), "the question read")
    listing = orchestrator.listing(R.S3_1_RETURNS_ALL_KEYS)
    check_equal(
        R.S3_1_RETURNS_ALL_KEYS, sorted(listing), sorted([*BRIEF, "findings_summary", "open_questions"]), "the keys listed"
    )

    decision = orchestrator.put("decisions_made", DECISION)
    check_equal(R.S3_3_WRITTEN_BY_SYSTEM_SET, decision["written_by"], "orchestrator", "written_by of the decision")
    deleted = orchestrator.delete("open_questions", serves=R.S3_4_REMOVES_KEY)
    # The question is gone only if it did not outlive subagent:analysis; any other refusal is the delete's own.
    gone = deleted.code == "KEY_NOT_FOUND"
    check(served, not gone, "the subagent's question is gone once it completed", received=deleted.error)
    accepted(deleted, R.S3_4_REMOVES_KEY)

    remediation = session.as_participant("subagent:remediation")
    findings = remediation.read("findings_summary", serves=served).expect(served)
    check_equal(served, (findings["value"], findings["written_by"]), (FINDINGS, "subagent:analysis"), "the findings read")
    decided = remediation.read("decisions_made", serves=R.S3_2_RETURNS_VALUE).expect(R.S3_2_RETURNS_VALUE)
    check_equal(R.S3_2_RETURNS_VALUE, (decided["value"], decided["written_by"]), (DECISION, "orchestrator"), "the decision")
    remediation.read("open_questions", serves=R.S3_2_KEY_NOT_FOUND).refused(R.S3_2_KEY_NOT_FOUND)
    listing = remediation.listing(R.S3_1_RETURNS_ALL_KEYS)
    check(R.S3_4_REMOVES_KEY, "open_questions" not in listing, "the deleted key is still listed", received=sorted(listing))
    check_equal(
        R.S3_1_RETURNS_ALL_KEYS, sorted(listing), sorted([*BRIEF, "findings_summary", "decisions_made"]), "the keys listed"
    )
