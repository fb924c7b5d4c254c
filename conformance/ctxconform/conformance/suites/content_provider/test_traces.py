"""CompletionTraces (section 7): one per invocation, in invocation order, with token totals, summary and steps."""

from __future__ import annotations

from typing import Any, Final

import pytest

from ctxconform.conformance.suites.content_provider import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.content_provider.client import (
    Execution,
    as_given,
    fresh_execution,
    token_totals,
    trace_view,
)
from ctxconform.conformance.testing import Implementation, check_equal, requirement

ONE: Final = R.S7_2_ONE_TRACE_PER_INVOCATION
MANY: Final = R.S7_2_MULTIPLE_TRACES
LIST: Final = R.S7_3_LIST_OF_TRACES
TOKENS: Final = R.S7_3_TOKEN_TOTALS
SUMMARY: Final = R.S7_3_SUMMARY_DATA
STEPS: Final = R.S7_3_STEPS_LIST
ORDER: Final = R.S7_3_ORDER_IMPLIES_INVOCATION_ORDER
DIAGNOSTICS: Final = R.S7_4_STEPS_CAPTURE_DIAGNOSTICS
DEFERRED: Final = R.S7_4_STEP_SCHEMA_DEFERRED
VISIBLE: Final = R.S7_1_DIAGNOSTIC_VISIBILITY
Json = dict[str, Any]

TOTALS: Final = {"prompt": 1200, "completion": 340, "total": 1540}
FULL_TOTALS: Final = {"prompt": 1200, "completion": 340, "total": 1540, "reasoning": 128, "cached": 1024}
SUMMARY_DATA: Final = {"status": "completed", "executionTimeMs": 812.5, "responseId": "resp_01"}


def invocation(execution: Execution, steps: list[Json], tokens: Json = TOTALS, summary: Json = SUMMARY_DATA) -> Json:
    """Begin a trace, add `steps`, end it; the ended trace."""
    execution.begin()
    for step in steps:
        execution.step(step)
    return execution.end(tokens, summary)


def essentials(trace: Json) -> Json:
    """The fields of a trace the document defines (an implementation may add others, such as timestamps)."""
    return trace_view(trace)


def only_trace(execution: Execution, when: str) -> Json:
    """The essentials of the execution's one trace; fails diagnostic-visibility unless get_traces shows exactly one."""
    traces = execution.traces(VISIBLE)
    check_equal(VISIBLE, len(traces), 1, f"the number of traces listed {when}")
    return essentials(traces[0])


@requirement(LIST)
def test_an_execution_starts_with_an_empty_list_of_traces(execution: Execution) -> None:
    """Before any invocation, get_traces answers an empty list."""
    traces = execution.traces()
    check_equal(LIST, traces, [], "the traces of a new execution")


@requirement(ONE, MANY, ORDER, LIST)
def test_each_invocation_gets_one_trace_in_invocation_order(execution: Execution) -> None:
    """Four invocations give four traces, numbered 1 to 4, listed in the order they began."""
    check_equal(LIST, execution.traces(), [], "the traces of a new execution")
    for n in range(1, 5):
        began = execution.begin(ORDER)
        check_equal(ORDER, began, n, f"the number of invocation {n}")
        execution.end({"prompt": n, "completion": n, "total": 2 * n}, {"turn": n})
    traces = execution.traces()
    check_equal(MANY, len(traces), 4, "the number of traces after four invocations")
    check_equal(ORDER, [t["invocation"] for t in traces], [1, 2, 3, 4], "the invocation numbers as listed")
    prompts = [t.get("tokens", {}).get("prompt") for t in traces]
    check_equal(ORDER, prompts, [1, 2, 3, 4], "the invocations' token totals as listed")


@requirement(ONE)
def test_a_trace_cannot_begin_while_another_is_open(execution: Execution) -> None:
    """begin_trace while an invocation's trace is open adds no trace.

    It is refused with TRACE_OPEN (the reference), or a no-op answering the open invocation's number (the other
    reading of 7.2).
    """
    number = execution.begin()
    execution.step({"kind": "request"})
    before = execution.traces()
    again = execution.op("begin_trace", serves=ONE)
    if again.ok:
        check_equal(ONE, again.result["invocation"], number, "the invocation a begin_trace with a trace open answered")
    else:
        again.refused(ONE, "TRACE_OPEN")
    check_equal(ONE, execution.traces(), before, "the traces after a begin_trace with a trace open")


@requirement(ONE, LIST)
@pytest.mark.parametrize("when", ["before-any", "after-end"])
def test_steps_and_totals_need_an_open_trace(execution: Execution, when: str) -> None:
    """add_trace_step and end_trace with no trace open are refused with NO_OPEN_TRACE and change nothing."""
    if when == "after-end":
        invocation(execution, [{"kind": "request"}])
    before = execution.traces()
    # A trace listed that this execution never began would be another's, open or not: the list is not its own.
    check_equal(LIST, len(before), 1 if when == "after-end" else 0, "the number of traces this execution lists")
    execution.op("add_trace_step", serves=ONE, step={"kind": "stray"}).refused(ONE, "NO_OPEN_TRACE")
    execution.op("end_trace", serves=ONE, tokens=TOTALS, summary={}).refused(ONE, "NO_OPEN_TRACE")
    check_equal(ONE, execution.traces(), before, "the traces after a refused step and end")


@requirement(TOKENS, SUMMARY)
@pytest.mark.parametrize("tokens", [TOTALS, FULL_TOTALS, {"prompt": 0, "completion": 0, "total": 0}], ids=["core", "all", "zero"])
def test_an_ended_trace_carries_its_token_totals_and_summary(execution: Execution, tokens: Json) -> None:
    """end_trace's token totals and summary come back exactly, from end_trace and from get_traces.

    A count that was not given (reasoning, cached) may come back absent or null; counts and summary fields an
    implementation adds to those given are not compared.
    """
    ended = invocation(execution, [], tokens, SUMMARY_DATA)
    for where, trace in (("end_trace", ended), ("get_traces", execution.traces()[0])):
        check_equal(TOKENS, as_given(token_totals(trace.get("tokens")), tokens), tokens, f"the token totals {where} answers")
        check_equal(SUMMARY, as_given(trace.get("summary"), SUMMARY_DATA), SUMMARY_DATA, f"the summary {where} answers")
        check_equal(TOKENS, trace.get("ended"), True, f"whether the trace {where} answers has ended")


@requirement(SUMMARY)
@pytest.mark.parametrize("summary", [{}, {"status": "failed", "error": {"code": 429, "retryAfter": 2}}, {"ids": ["a", "b"]}])
def test_any_summary_object_comes_back_exactly(execution: Execution, summary: Json) -> None:
    """Summary data is whatever object end_trace was given, nested values included."""
    trace = invocation(execution, [], TOTALS, summary)
    check_equal(SUMMARY, as_given(trace.get("summary"), summary), summary, "the summary end_trace answered")


@requirement(DIAGNOSTICS, STEPS, MANY)
def test_steps_belong_to_their_invocation_in_order(execution: Execution) -> None:
    """Steps added during an invocation are that trace's, in the order added; a trace without steps has an empty list."""
    first = [{"kind": "request", "n": n} for n in range(5)]
    second = [{"kind": "tool", "name": "search"}, {"kind": "response"}]
    invocation(execution, first)
    invocation(execution, [])
    invocation(execution, second)
    traces = execution.traces()
    check_equal(MANY, len(traces), 3, "the number of traces after three invocations")
    found = {trace["invocation"]: trace["steps"] for trace in traces}
    check_equal(STEPS, found.get(2), [], "the steps of an invocation without steps")
    check_equal(DIAGNOSTICS, found, {1: first, 2: [], 3: second}, "the steps by invocation")


@requirement(DEFERRED)
@pytest.mark.parametrize(
    "step",
    [
        {},
        {"kind": "reasoning", "text": "caf\u00e9 ☕", "tokens": 12, "ok": True, "extra": None},
        {"nested": {"deeper": {"list": [1, 2.5, "three", [], {}]}}},
        {"": "empty key", "ключ": "значение", "🔑": [True, False]},
        {"big": 2**53, "negative": -1, "float": 1e-7},
    ],
    ids=["empty", "flat", "nested", "odd-keys", "numbers"],
)
def test_any_object_is_a_step_and_comes_back_exactly(execution: Execution, step: Json) -> None:
    """With the step schema deferred, any JSON object is accepted as a step and read back unchanged."""
    number = execution.begin()
    execution.step(step, DEFERRED)
    execution.end(TOTALS, {})
    steps = [trace["steps"] for trace in execution.traces() if trace["invocation"] == number]
    check_equal(DEFERRED, steps, [[step]], "the steps read back")


@requirement(DEFERRED)
@pytest.mark.parametrize("step", ["text", 7, None, ["kind", "request"], True], ids=["string", "number", "null", "list", "bool"])
def test_a_step_that_is_not_an_object_is_refused_or_kept(execution: Execution, step: object) -> None:
    """A step that is no object (a string, number, null, list or boolean) is refused or kept exactly.

    Refused, the trace is unchanged (the reference); the step schema being deferred, it may be kept exactly like any
    other step (the other reading of 7.4).
    """
    execution.begin()
    before = execution.traces()
    outcome = execution.send("add_trace_step", {"executionId": execution.execution_id, "step": step}, serves=DEFERRED)
    if outcome.ok:
        outcome.expect(DEFERRED)
        steps = [trace["steps"] for trace in execution.traces()]
        check_equal(DEFERRED, steps, [[step]], "the steps read back")
        return
    outcome.refused(DEFERRED)
    check_equal(DEFERRED, execution.traces(), before, "the traces after a refused step")


@requirement(VISIBLE)
def test_an_open_trace_can_be_read_while_it_fills(execution: Execution) -> None:
    """A trace is visible while its invocation runs: not ended, with the steps so far; then ended, with everything."""
    execution.begin()
    execution.step({"kind": "request"})
    open_trace = only_trace(execution, "while its invocation runs")
    check_equal(
        VISIBLE, (open_trace["ended"], open_trace["steps"]), (False, [{"kind": "request"}]), "the open trace's ended and steps"
    )
    execution.end(TOTALS, SUMMARY_DATA)
    ended = only_trace(execution, "after its invocation ended")
    ended |= {"tokens": as_given(ended.get("tokens"), TOTALS), "summary": as_given(ended.get("summary"), SUMMARY_DATA)}
    expected = {"invocation": 1, "ended": True, "tokens": TOTALS, "summary": SUMMARY_DATA, "steps": [{"kind": "request"}]}
    check_equal(VISIBLE, ended, expected, "the ended trace")


@requirement(LIST)
def test_each_execution_has_its_own_traces(implementation: Implementation, execution: Execution) -> None:
    """Traces of one execution never show up in another's list, and numbering starts at 1 in each."""
    invocation(execution, [{"kind": "mine"}])
    with fresh_execution(implementation) as other:
        check_equal(LIST, other.traces(), [], "the traces of a new execution")
        check_equal(LIST, other.begin(LIST), 1, "the number of a second execution's first invocation")
    check_equal(LIST, len(execution.traces()), 1, "the number of traces after another execution's invocation")
