"""CompletionTraces (section 7): one per invocation, in invocation order, with token totals, summary and steps."""

from __future__ import annotations

from typing import Any, Final

import pytest

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance.suites.content_provider.client import Execution, fresh_execution, require

requirement = pytest.mark.requirement

ONE: Final = "content-provider/7.2/one-trace-per-invocation"
MANY: Final = "content-provider/7.2/multiple-traces"
LIST: Final = "content-provider/7.3/list-of-traces"
TOKENS: Final = "content-provider/7.3/token-totals"
SUMMARY: Final = "content-provider/7.3/summary-data"
STEPS: Final = "content-provider/7.3/steps-list"
ORDER: Final = "content-provider/7.3/order-implies-invocation-order"
DIAGNOSTICS: Final = "content-provider/7.4/steps-capture-diagnostics"
DEFERRED: Final = "content-provider/7.4/step-schema-deferred"
VISIBLE: Final = "content-provider/7.1/diagnostic-visibility"
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
    return {name: trace[name] for name in ("invocation", "ended", "tokens", "summary", "steps") if name in trace}


def only_trace(execution: Execution, when: str) -> Json:
    """The essentials of the execution's one trace; fails diagnostic-visibility unless get_traces shows exactly one."""
    traces = execution.traces(VISIBLE)
    require(len(traces) == 1, VISIBLE, f"{when}, the one trace begun is listed as {traces}")
    return essentials(traces[0])


@requirement(LIST)
def test_an_execution_starts_with_an_empty_list_of_traces(execution: Execution) -> None:
    """Before any invocation, get_traces answers an empty list."""
    traces = execution.traces()
    require(traces == [], LIST, f"a new execution has traces {traces}")


@requirement(ONE, MANY, ORDER, LIST)
def test_each_invocation_gets_one_trace_in_invocation_order(execution: Execution) -> None:
    """Four invocations give four traces, numbered 1 to 4, listed in the order they began."""
    for n in range(1, 5):
        began = execution.begin(ORDER)
        require(began == n, ORDER, f"invocation {n} was numbered {began}")
        execution.end({"prompt": n, "completion": n, "total": 2 * n}, {"turn": n})
    traces = execution.traces()
    require(len(traces) == 4, MANY, f"four invocations left {len(traces)} trace(s)")
    require([t["invocation"] for t in traces] == [1, 2, 3, 4], ORDER, f"traces are listed as {[t['invocation'] for t in traces]}")
    require([t["summary"] for t in traces] == [{"turn": n} for n in range(1, 5)], ORDER, "traces are not in invocation order")


@requirement(ONE)
def test_a_trace_cannot_begin_while_another_is_open(execution: Execution) -> None:
    """begin_trace while an invocation's trace is open is refused with TRACE_OPEN, and no trace is added."""
    execution.begin()
    execution.step({"kind": "request"})
    before = execution.traces()
    execution.call("begin_trace").refused(ONE, "TRACE_OPEN")
    require(execution.traces() == before, ONE, "a refused begin_trace changed the traces")


@requirement(ONE)
@pytest.mark.parametrize("when", ["before-any", "after-end"])
def test_steps_and_totals_need_an_open_trace(execution: Execution, when: str) -> None:
    """add_trace_step and end_trace with no trace open are refused with NO_OPEN_TRACE and change nothing."""
    if when == "after-end":
        invocation(execution, [{"kind": "request"}])
    before = execution.traces()
    execution.call("add_trace_step", step={"kind": "stray"}).refused(ONE, "NO_OPEN_TRACE")
    execution.call("end_trace", tokens=TOTALS, summary={}).refused(ONE, "NO_OPEN_TRACE")
    require(execution.traces() == before, ONE, "a refused step or end changed the traces")


@requirement(TOKENS, SUMMARY)
@pytest.mark.parametrize("tokens", [TOTALS, FULL_TOTALS, {"prompt": 0, "completion": 0, "total": 0}], ids=["core", "all", "zero"])
def test_an_ended_trace_carries_its_token_totals_and_summary(execution: Execution, tokens: Json) -> None:
    """end_trace's token totals and summary come back exactly, from end_trace and from get_traces."""
    ended = invocation(execution, [], tokens, SUMMARY_DATA)
    for where, trace in (("end_trace", ended), ("get_traces", execution.traces()[0])):
        require(trace.get("tokens") == tokens, TOKENS, f"{where}: tokens {trace.get('tokens')}, given {tokens}")
        require(trace.get("summary") == SUMMARY_DATA, SUMMARY, f"{where}: summary {trace.get('summary')}")
        require(trace["ended"] is True, TOKENS, f"{where}: an ended trace says ended={trace['ended']}")


@requirement(SUMMARY)
@pytest.mark.parametrize("summary", [{}, {"status": "failed", "error": {"code": 429, "retryAfter": 2}}, {"ids": ["a", "b"]}])
def test_any_summary_object_comes_back_exactly(execution: Execution, summary: Json) -> None:
    """Summary data is whatever object end_trace was given, nested values included."""
    trace = invocation(execution, [], TOTALS, summary)
    require(trace.get("summary") == summary, SUMMARY, f"summary {trace.get('summary')}, given {summary}")


@requirement(DIAGNOSTICS, STEPS)
def test_steps_belong_to_their_invocation_in_order(execution: Execution) -> None:
    """Steps added during an invocation are that trace's, in the order added; a trace without steps has an empty list."""
    first = [{"kind": "request", "n": n} for n in range(5)]
    second = [{"kind": "tool", "name": "search"}, {"kind": "response"}]
    invocation(execution, first)
    invocation(execution, [])
    invocation(execution, second)
    traces = execution.traces()
    found = [trace["steps"] for trace in traces]
    require(found[1] == [], STEPS, f"an invocation without steps has {found[1]}")
    require(found == [first, [], second], DIAGNOSTICS, f"steps by trace: {found}")


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
    execution.begin()
    execution.step(step, DEFERRED)
    steps = execution.traces()[0]["steps"]
    require(steps == [step], DEFERRED, f"added {step}, read back {steps}")


@requirement(DEFERRED)
@pytest.mark.parametrize("step", ["text", 7, None, ["kind", "request"], True], ids=["string", "number", "null", "list", "bool"])
def test_a_step_that_is_not_an_object_is_refused(execution: Execution, step: object) -> None:
    """A step must be an object: a string, number, null, list or boolean is refused, and the trace is unchanged."""
    execution.begin()
    before = execution.traces()
    execution.send("add_trace_step", {"executionId": execution.execution_id, "step": step}, DEFERRED).refused(DEFERRED)
    require(execution.traces() == before, DEFERRED, "a refused step changed the trace")


@requirement(VISIBLE)
def test_an_open_trace_can_be_read_while_it_fills(execution: Execution) -> None:
    """A trace is visible while its invocation runs: not ended, with the steps so far; then ended, with everything."""
    execution.begin()
    execution.step({"kind": "request"})
    open_trace = only_trace(execution, "while its invocation runs")
    require(open_trace["ended"] is False and open_trace["steps"] == [{"kind": "request"}], VISIBLE, f"open trace: {open_trace}")
    execution.end(TOTALS, SUMMARY_DATA)
    ended = only_trace(execution, "after its invocation ended")
    expected = {"invocation": 1, "ended": True, "tokens": TOTALS, "summary": SUMMARY_DATA, "steps": [{"kind": "request"}]}
    require(ended == expected, VISIBLE, f"ended trace: {ended}")


@requirement(LIST)
def test_each_execution_has_its_own_traces(implementation: Implementation, execution: Execution) -> None:
    """Traces of one execution never show up in another's list, and numbering starts at 1 in each."""
    invocation(execution, [{"kind": "mine"}])
    with fresh_execution(implementation) as other:
        require(other.traces() == [], LIST, "a new execution shows another execution's traces")
        require(other.begin(LIST) == 1, LIST, "a second execution's first invocation is not numbered 1")
    require(len(execution.traces()) == 1, LIST, "another execution's invocation was added to this one's traces")
