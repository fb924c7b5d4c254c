"""Delivery (sections 3, 4.3 and 4.4): a successful delivery clears what it carried, a failed one clears nothing."""

from __future__ import annotations

import pytest

from ctxconform.conformance.suites.content_provider.client import (
    MANIFEST,
    SESSION_ITEMS,
    Execution,
    expect_request,
    key,
    populate,
    require,
    tool_call,
)

requirement = pytest.mark.requirement

CLEARED = "content-provider/4.3/consumable-cleared-after-delivery"
KEPT = "content-provider/4.3/consumable-kept-until-delivered"
SESSION_KEPT = "content-provider/4.3/session-not-cleared"
EVERY_CALL = "content-provider/4.3/session-persistent-across-calls"
MULTI = "content-provider/3/multi-invocation-flows"


def session_unchanged(execution: Execution, what: str) -> None:
    """Fail session-not-cleared unless every Session register holds its SESSION_ITEMS."""
    found = execution.registers()
    for name, texts in SESSION_ITEMS.items():
        require(found[key(name)]["items"] == texts, SESSION_KEPT, f"after {what}, {name} holds {found[key(name)]['items']}")


@requirement(CLEARED, "content-provider/4.4/manifest-required")
def test_a_delivery_clears_the_consumables_it_carried(execution: Execution) -> None:
    """After mark_delivered the Consumable registers (manifest too) are empty but still there; the next request has no input."""
    lanes = populate(execution)
    execution.compose()
    answer = execution.delivered()
    carried = sum(len(items) for items in lanes.values())
    require(answer["cleared"] == carried, CLEARED, f"mark_delivered cleared {answer['cleared']} items of {carried}")
    found = execution.registers()
    for name in lanes:
        require(name in found, "content-provider/4.4/manifest-required", f"register {name} is gone after delivery")
        require(found[name]["items"] == [], CLEARED, f"{found[name]['name']} still holds {found[name]['items']}")
    expect_request(execution.compose(CLEARED), SESSION_ITEMS, {}, input_requirement=CLEARED)


@requirement(CLEARED, KEPT)
def test_items_added_after_composing_survive_the_delivery(execution: Execution) -> None:
    """A delivery clears only what the delivered request carried: items added after composing it stay for the next."""
    lanes = populate(execution)
    execution.compose()
    execution.append("Inbox", "arrived while the request was in flight")
    execution.record(tool_call(9))
    execution.delivered()
    expected: dict[str, list[object]] = {key("Inbox"): ["arrived while the request was in flight"], key(MANIFEST): [tool_call(9)]}
    found = execution.registers()
    for name in lanes:
        require(found[name]["items"] == expected.get(name, []), KEPT, f"after delivery {name} holds {found[name]['items']}")
    expect_request(execution.compose(), SESSION_ITEMS, expected, input_requirement=KEPT)


@requirement(KEPT, EVERY_CALL)
def test_a_failed_delivery_keeps_every_consumable(execution: Execution) -> None:
    """After mark_failed nothing is cleared, and the retried request carries the same input items."""
    lanes = populate(execution)
    first = execution.compose()
    before = execution.registers()
    answer = execution.failed()
    require(answer["cleared"] == 0, KEPT, f"mark_failed answered {answer}")
    require(execution.registers() == before, KEPT, "a failed delivery changed the provider")
    retried = execution.compose(KEPT)
    require(retried["input"] == first["input"], KEPT, f"the retry's input items are {retried['input']}, first {first['input']}")
    require(retried == first, EVERY_CALL, f"the retry composed {retried}, the first attempt {first}")
    expect_request(retried, SESSION_ITEMS, lanes, input_requirement=KEPT)


@requirement(SESSION_KEPT, EVERY_CALL)
def test_session_items_survive_every_delivery(execution: Execution) -> None:
    """Through deliveries and failures, Session items stay in the provider and in every request composed."""
    lanes, previous = populate(execution), KEPT
    for n, succeeded in enumerate([True, False, True, True]):
        execution.append("Inbox", f"turn {n}")
        lanes.setdefault(key("Inbox"), []).append(f"turn {n}")
        composed = execution.compose(EVERY_CALL)
        expect_request(composed, SESSION_ITEMS, lanes, instructions_requirement=EVERY_CALL, input_requirement=previous)
        if succeeded:
            execution.delivered()
            lanes, previous = {}, CLEARED
        else:
            execution.failed()
            previous = KEPT
        session_unchanged(execution, "a delivery" if succeeded else "a failed delivery")


@requirement(KEPT)
@pytest.mark.parametrize("op", ["mark_delivered", "mark_failed"])
def test_a_delivery_report_without_a_pending_request_is_refused(execution: Execution, op: str) -> None:
    """mark_delivered or mark_failed before any compose, or twice for one request, is refused and clears nothing."""
    populate(execution)
    before = execution.registers()
    execution.call(op).refused(KEPT, "NO_PENDING_REQUEST")
    require(execution.registers() == before, KEPT, f"{op} with nothing pending changed the provider")
    execution.compose()
    execution.call(op).result(KEPT if op == "mark_failed" else CLEARED)
    after = execution.registers()
    execution.call(op).refused(KEPT, "NO_PENDING_REQUEST")
    require(execution.registers() == after, KEPT, f"a second {op} changed the provider")


@requirement(MULTI, EVERY_CALL, CLEARED)
def test_an_execution_runs_many_invocations(execution: Execution) -> None:
    """Initial request and continuations: each request carries all Session items and only that turn's consumables."""
    populate(execution, records=0)
    execution.compose()
    execution.delivered()
    for turn in range(1, 5):
        execution.append("Inbox", f"continuation {turn}")
        execution.record(tool_call(turn))
        invocation = execution.begin(MULTI)
        require(invocation == turn, MULTI, f"continuation {turn} began invocation {invocation}")
        composed = execution.compose(MULTI)
        wanted: dict[str, list[object]] = {key("Inbox"): [f"continuation {turn}"], key(MANIFEST): [tool_call(turn)]}
        expect_request(composed, SESSION_ITEMS, wanted, input_requirement=CLEARED, instructions_requirement=EVERY_CALL)
        execution.delivered(MULTI)
        execution.end({"prompt": 10 * turn, "completion": turn, "total": 11 * turn}, {"status": "completed"}, MULTI)
    require(len(execution.traces(MULTI)) == 4, MULTI, "four continuations left a trace count other than four")
