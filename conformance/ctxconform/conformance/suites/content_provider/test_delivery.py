"""Delivery (sections 3, 4.3 and 4.4): a successful delivery clears what it carried, a failed one clears nothing."""

from __future__ import annotations

import pytest

from ctxconform.conformance.suites.content_provider import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.content_provider.client import (
    MANIFEST,
    SESSION_ITEMS,
    Execution,
    Lanes,
    expect_request,
    held,
    key,
    populate,
    tool_call,
)
from ctxconform.conformance.testing import check, check_equal, requirement


def session_unchanged(execution: Execution, what: str) -> None:
    """Check session-not-cleared: every Session register still holds its SESSION_ITEMS (in whatever order it keeps)."""
    found = execution.registers()
    for name, texts in SESSION_ITEMS.items():
        items = sorted(found[key(name)]["items"])
        check_equal(R.S4_3_SESSION_NOT_CLEARED, items, sorted(texts), f"the items of {name} after {what}")


@requirement(R.S4_3_CONSUMABLE_CLEARED_AFTER_DELIVERY, R.S4_3_CONSUMABLE_KEPT_UNTIL_DELIVERED, R.S4_4_MANIFEST_REQUIRED)
def test_a_delivery_clears_the_consumables_it_carried(execution: Execution) -> None:
    """After mark_delivered the Consumable registers (manifest too) are empty but still there; the next request has no input."""
    cleared = R.S4_3_CONSUMABLE_CLEARED_AFTER_DELIVERY
    lanes = populate(execution)
    execution.compose()
    counts = {name: len(register["items"]) for name, register in execution.registers().items() if name in lanes}
    wanted = {name: len(items) for name, items in lanes.items()}
    check_equal(R.S4_3_CONSUMABLE_KEPT_UNTIL_DELIVERED, counts, wanted, "the Consumable items once the request is composed")
    answer = execution.delivered()
    carried = sum(len(items) for items in lanes.values())
    check_equal(cleared, answer["cleared"], carried, "the count mark_delivered cleared")
    found = execution.registers()
    check(
        R.S4_4_MANIFEST_REQUIRED, key(MANIFEST) in found, "the ToolCallManifest is gone after a delivery", received=sorted(found)
    )
    for name in lanes:
        items = found[name]["items"] if name in found else None
        check_equal(cleared, items, [], f"the items of {name} after a delivery")
    again = [item["text"] if item["type"] == "text" else item["record"] for item in execution.compose(cleared)["input"]]
    left = [item for items in lanes.values() for item in items if item in again]
    check(cleared, not left, "the next request carries items the delivered one carried", received=left, expected=[])


@requirement(R.S4_3_CONSUMABLE_CLEARED_AFTER_DELIVERY, R.S4_3_CONSUMABLE_KEPT_UNTIL_DELIVERED)
def test_items_added_after_composing_survive_the_delivery(execution: Execution) -> None:
    """A delivery clears only what the delivered request carried: items added after composing it stay for the next."""
    lanes = populate(execution)
    execution.compose()
    execution.append("Inbox", "arrived while the request was in flight")
    execution.record(tool_call(9))
    execution.delivered()
    expected: Lanes = {key("Inbox"): ["arrived while the request was in flight"], key(MANIFEST): [tool_call(9)]}
    found = execution.registers()
    for name, carried in lanes.items():
        held = found[name]["items"]
        left = [item for item in carried if item in held]
        check(
            R.S4_3_CONSUMABLE_CLEARED_AFTER_DELIVERY,
            not left,
            f"{name} still holds items the delivered request carried",
            received=held,
        )
        check_equal(
            R.S4_3_CONSUMABLE_KEPT_UNTIL_DELIVERED, held, expected.get(name, []), f"the items of {name} after the delivery"
        )
    composed = execution.compose()
    expect_request(
        composed, SESSION_ITEMS, expected, instructions=None, inputs=R.S4_3_CONSUMABLE_KEPT_UNTIL_DELIVERED, separate=None
    )


@requirement(R.S4_3_CONSUMABLE_KEPT_UNTIL_DELIVERED, R.S4_3_SESSION_NOT_CLEARED, R.S4_3_SESSION_PERSISTENT_ACROSS_CALLS)
def test_a_failed_delivery_keeps_every_consumable(execution: Execution) -> None:
    """After mark_failed nothing is cleared, and the retried request carries the same input items."""
    kept = R.S4_3_CONSUMABLE_KEPT_UNTIL_DELIVERED
    populate(execution)
    before, lanes = execution.registers(), held(execution, "Consumable")
    first = execution.compose()
    answer = execution.failed()
    check_equal(kept, answer["cleared"], 0, "the count mark_failed cleared")
    after = execution.registers()
    for name, register in before.items():
        rid = R.S4_3_SESSION_NOT_CLEARED if register["classification"] == "Session" else kept
        check_equal(rid, after.get(name), register, f"register {register['name']} after a failed delivery")
    retried = execution.compose(kept)
    check_equal(kept, retried["input"], first["input"], "the retried request's input items")
    check_equal(
        R.S4_3_SESSION_PERSISTENT_ACROSS_CALLS,
        retried["instructions"],
        first["instructions"],
        "the retried request's instructions",
    )
    expect_request(retried, SESSION_ITEMS, lanes, instructions=None, inputs=kept, separate=None)


@requirement(R.S4_3_SESSION_NOT_CLEARED, R.S4_3_SESSION_PERSISTENT_ACROSS_CALLS)
def test_session_items_survive_every_delivery(execution: Execution) -> None:
    """Through deliveries and failures, Session items stay in the provider and in every request composed."""
    populate(execution)
    for n, succeeded in enumerate([True, False, True, True]):
        execution.append("Inbox", f"turn {n}")
        composed = execution.compose(R.S4_3_SESSION_PERSISTENT_ACROSS_CALLS)
        expect_request(
            composed, SESSION_ITEMS, {}, instructions=R.S4_3_SESSION_PERSISTENT_ACROSS_CALLS, inputs=None, separate=None
        )
        if succeeded:
            execution.delivered()
        else:
            execution.failed()
        session_unchanged(execution, "a delivery" if succeeded else "a failed delivery")


def nothing_pending(execution: Execution, op: str, rid: str) -> None:
    """A delivery report with no request pending is refused with NO_PENDING_REQUEST, or a no-op clearing nothing."""
    outcome = execution.op(op)
    if outcome.ok:
        check_equal(rid, outcome.expect(rid)["cleared"], 0, f"the count {op} with nothing pending cleared")
    else:
        outcome.refused(rid, "NO_PENDING_REQUEST")


@requirement(R.S4_3_CONSUMABLE_KEPT_UNTIL_DELIVERED)
@pytest.mark.parametrize("op", ["mark_delivered", "mark_failed"])
def test_a_delivery_report_without_a_pending_request_clears_nothing(execution: Execution, op: str) -> None:
    """mark_delivered or mark_failed before any compose, or twice for one request, clears nothing.

    It is refused with NO_PENDING_REQUEST (the reference) or a no-op (the other reading of 4.3: nothing was delivered).
    """
    rid = R.S4_3_CONSUMABLE_KEPT_UNTIL_DELIVERED
    populate(execution)
    before = execution.registers()
    nothing_pending(execution, op, rid)
    check_equal(rid, execution.registers(), before, f"the provider after {op} with nothing pending")
    execution.compose()
    execution.op(op).result  # noqa: B018 - reading the result checks it
    after = execution.registers()
    nothing_pending(execution, op, rid)
    check_equal(rid, execution.registers(), after, f"the provider after a second {op}")


@requirement(R.S3_MULTI_INVOCATION_FLOWS, R.S4_3_SESSION_PERSISTENT_ACROSS_CALLS, R.S4_3_CONSUMABLE_CLEARED_AFTER_DELIVERY)
def test_an_execution_runs_many_invocations(execution: Execution) -> None:
    """Initial request and continuations: each request carries all Session items and only that turn's consumables."""
    multi = R.S3_MULTI_INVOCATION_FLOWS
    populate(execution, records=0)
    execution.compose()
    execution.delivered()
    before = len(execution.traces(multi))
    for turn in range(1, 5):
        execution.append("Inbox", f"continuation {turn}")
        execution.record(tool_call(turn))
        execution.begin(multi)
        composed = execution.compose(multi)
        wanted: Lanes = {key("Inbox"): [f"continuation {turn}"], key(MANIFEST): [tool_call(turn)]}
        expect_request(
            composed,
            SESSION_ITEMS,
            wanted,
            instructions=R.S4_3_SESSION_PERSISTENT_ACROSS_CALLS,
            inputs=R.S4_3_CONSUMABLE_CLEARED_AFTER_DELIVERY,
            separate=None,
        )
        execution.delivered(multi)
        execution.end({"prompt": 10 * turn, "completion": turn, "total": 11 * turn}, {"status": "completed"}, multi)
        traces = len(execution.traces(multi))
        check_equal(multi, traces - before, turn, f"the traces added by {turn} continuations, one each")
