"""Properties (hypothesis): the lanes over random operation sequences, failed deliveries, trace order, round trips."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Final

from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance.suites.content_provider import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.content_provider.client import (
    MANIFEST,
    Execution,
    as_given,
    expect_request,
    fresh_execution,
    input_lanes,
    key,
    new_id,
    registers,
    rehydrated,
    request_lanes,
    tool_call,
    trace_view,
)
from ctxconform.conformance.testing import Implementation, check, check_equal, requirement

Json = dict[str, Any]

SESSION_NAMES: Final = ("Persona", "Rules")
CONSUMABLE_NAMES: Final = ("Inbox", "Retrieved")
# Item texts carry a unique tag in brackets the motif never holds, so no item is found inside another.
MOTIF: Final = st.text(
    st.characters(codec="utf-8", exclude_categories=["Cs", "Cc", "Zl", "Zp"], exclude_characters="⟦⟧"), max_size=12
)
ANY_TEXT: Final = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40)
ACTIONS: Final = st.lists(
    st.one_of(
        st.tuples(st.just("session"), st.sampled_from(SESSION_NAMES), MOTIF),
        st.tuples(st.just("consumable"), st.sampled_from(CONSUMABLE_NAMES), MOTIF),
        st.tuples(st.just("tool"), st.just(MANIFEST), st.just("")),
        st.tuples(st.sampled_from(["deliver", "fail", "compose"]), st.just(""), st.just("")),
    ),
    max_size=25,
)
JSON_VALUES: Final = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=15,
)
STEPS: Final = st.lists(st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4), max_size=4)
# What a difference in each field of a trace breaks, the invocation number first (a misordered list differs there).
TRACE_FIELDS: Final = {
    "invocation": R.S7_3_ORDER_IMPLIES_INVOCATION_ORDER,
    "steps": R.S7_4_STEPS_CAPTURE_DIAGNOSTICS,
    "tokens": R.S7_3_TOKEN_TOTALS,
    "summary": R.S7_3_SUMMARY_DATA,
}
TOKENS: Final = st.fixed_dictionaries(
    {"prompt": st.integers(0, 10**6), "completion": st.integers(0, 10**6), "total": st.integers(0, 2 * 10**6)},
    optional={"reasoning": st.integers(0, 10**6), "cached": st.integers(0, 10**6)},
)


@dataclass
class Model:
    """What the provider must hold: Session and Consumable items by register key, and the pending request's counts."""

    session: dict[str, list[str]] = field(default_factory=lambda: {key(n): [] for n in SESSION_NAMES})
    consumable: dict[str, list[object]] = field(default_factory=lambda: {key(n): [] for n in (*CONSUMABLE_NAMES, MANIFEST)})
    pending: dict[str, int] | None = None

    def deliver(self) -> None:
        """Clear what the pending request carried."""
        for name, count in (self.pending or {}).items():
            del self.consumable[name][:count]
        self.pending = None


def _bag(items: object) -> Counter[str]:
    """The items as a multiset (anything but a list counts as empty)."""
    if not isinstance(items, list):
        return Counter()
    return Counter(json.dumps(item, sort_keys=True) for item in items)


def check_items(held: list[object], expected: list[object], fewer: str, more: str, what: str) -> None:
    """Check a register's items: none missing (`fewer`), none left over (`more`), each exact, in order."""
    check(fewer, len(held) >= len(expected), f"{what} lacks items", received=held, expected=expected)
    check(more, len(held) <= len(expected), f"{what} holds items it should no longer hold", received=held, expected=expected)
    check(
        R.S5_3_STATE_HOLDERS_ONLY,
        _bag(held) == _bag(expected),
        f"{what} holds items other than given",
        received=held,
        expected=expected,
    )
    check_equal(R.S4_2_ORDERED_LINE_ITEMS, held, expected, f"the order of {what}'s items")


def check_state(execution: Execution, model: Model) -> None:
    """Check that the provider holds exactly the model's items, each difference charged to what it breaks."""
    found = execution.registers()
    wanted = [*model.session, *model.consumable]
    check(
        R.S4_2_MULTIPLE_REGISTERS,
        all(name in found for name in wanted),
        "registers are missing",
        received=sorted(found),
        expected=wanted,
    )
    for name, texts in model.session.items():
        check_items(found[name]["items"], list(texts), R.S4_3_SESSION_NOT_CLEARED, R.S5_3_STATE_HOLDERS_ONLY, found[name]["name"])
    for name, items in model.consumable.items():
        check_items(
            found[name]["items"],
            items,
            R.S4_3_CONSUMABLE_KEPT_UNTIL_DELIVERED,
            R.S4_3_CONSUMABLE_CLEARED_AFTER_DELIVERY,
            found[name]["name"],
        )


def run(execution: Execution, model: Model, action: tuple[str, str, str], serial: int) -> None:
    """Carry out one action on the implementation and on the model."""
    kind, name, motif = action
    if kind in ("session", "consumable"):
        text = f"⟦{kind[0]}{serial}⟧{motif}"
        execution.append(name, text)
        (model.session if kind == "session" else model.consumable)[key(name)].append(text)
    elif kind == "tool":
        execution.record(tool_call(serial))
        model.consumable[key(MANIFEST)].append(tool_call(serial))
    elif model.pending is not None and kind in ("deliver", "fail"):
        # A request that carried no Consumable item has nothing to clear or keep: its report is a step of the flow (3).
        serves = None if model.pending else R.S3_MULTI_INVOCATION_FLOWS
        if kind == "deliver":
            execution.delivered(serves)
            model.deliver()
        else:
            execution.failed(serves)
            model.pending = None
    else:  # compose, or a delivery report with nothing pending: compose first
        compose_and_check(execution, model)


def check_lanes(composed: Json, model: Model) -> None:
    """Check the input items: none the provider does not hold, none held back, then exactly the pending ones."""
    found = input_lanes(composed)
    bags = {name: _bag(items) for name, items in model.consumable.items()}
    made_up = [item for name, items in found.items() for item in items if _bag([item]) - bags.get(name, Counter())]
    check(R.S4_1_HOLDS_ALL_PROMPT_CONTEXT, not made_up, "input items the provider never held", received=made_up, expected=[])
    carried = sum(map(len, found.values()))
    pending = sum(map(len, model.consumable.values()))
    check(
        R.S4_3_CONSUMABLE_FOR_LLM,
        carried >= pending,
        "pending Consumable items were held back",
        received=found,
        expected=model.consumable,
    )
    expect_request(composed, model.session, model.consumable, instructions=R.S4_3_SESSION_PERSISTENT_ACROSS_CALLS)


def compose_and_check(execution: Execution, model: Model) -> None:
    """Compose: the state is unchanged, and the request carries every Session item and every pending Consumable."""
    composed = execution.compose()
    check_state(execution, model)
    check_lanes(composed, model)
    model.pending = {name: len(items) for name, items in model.consumable.items() if items}


@requirement(
    R.S3_MULTI_INVOCATION_FLOWS,
    R.S4_3_SESSION_PERSISTENT_ACROSS_CALLS,
    R.S4_3_SESSION_NOT_CLEARED,
    R.S4_3_CONSUMABLE_CLEARED_AFTER_DELIVERY,
    R.S4_3_CONSUMABLE_KEPT_UNTIL_DELIVERED,
    R.S4_3_CONSUMABLE_IN_INPUT_ITEMS,
    R.S4_3_CONSUMABLE_FOR_LLM,
    R.S4_1_HOLDS_ALL_PROMPT_CONTEXT,
    R.S3_SEPARATE_PERSISTENT_AND_CONSUMABLE,
    R.S4_2_MULTIPLE_REGISTERS,
    R.S4_2_ORDERED_LINE_ITEMS,
    R.S5_3_STATE_HOLDERS_ONLY,
)
@given(actions=ACTIONS)
def test_every_request_carries_the_session_items_and_the_undelivered_consumables(
    implementation: Implementation, actions: list[tuple[str, str, str]]
) -> None:
    """Over random appends, tool calls, composes, deliveries and failures, each request matches a simple model."""
    with fresh_execution(implementation) as execution:
        for name in SESSION_NAMES:
            execution.add(name, "Session")
        for name in CONSUMABLE_NAMES:
            execution.add(name, "Consumable")
        model = Model()
        check_state(execution, model)
        for serial, action in enumerate(actions):
            run(execution, model, action, serial)
        compose_and_check(execution, model)


@requirement(R.S4_3_CONSUMABLE_KEPT_UNTIL_DELIVERED, R.S4_3_CONSUMABLE_CLEARED_AFTER_DELIVERY)
@given(texts=st.lists(MOTIF, min_size=1, max_size=6), records=st.integers(0, 3), failures=st.integers(1, 4))
def test_failed_deliveries_keep_every_consumable(
    implementation: Implementation, texts: list[str], records: int, failures: int
) -> None:
    """However often delivery fails, nothing is cleared and every retry composes the same request; success then clears."""
    kept = R.S4_3_CONSUMABLE_KEPT_UNTIL_DELIVERED
    with fresh_execution(implementation) as execution:
        execution.add("Inbox", "Consumable")
        for n, text in enumerate(texts):
            execution.append("Inbox", f"⟦{n}⟧{text}")
        for n in range(records):
            execution.record(tool_call(n))
        before, first = execution.registers(), execution.compose()
        for _ in range(failures):
            execution.failed()
            check_equal(kept, execution.registers(), before, "the provider after a failed delivery")
            check_equal(kept, request_lanes(execution.compose(kept)), request_lanes(first), "the retried request")
        execution.delivered()
        cleared = R.S4_3_CONSUMABLE_CLEARED_AFTER_DELIVERY
        again = execution.compose(cleared)["input"]
        left = [item for item in again if item in first["input"]]
        check(cleared, not left, "the next request carries items the delivered one carried", received=left, expected=[])


@requirement(
    R.S7_3_LIST_OF_TRACES,
    R.S7_3_STEPS_LIST,
    R.S7_2_MULTIPLE_TRACES,
    R.S7_3_ORDER_IMPLIES_INVOCATION_ORDER,
    R.S7_3_TOKEN_TOTALS,
    R.S7_3_SUMMARY_DATA,
    R.S7_4_STEPS_CAPTURE_DIAGNOSTICS,
)
@given(invocations=st.lists(st.tuples(STEPS, TOKENS), min_size=1, max_size=5))
def test_traces_count_invocations_in_order(implementation: Implementation, invocations: list[tuple[list[Json], Json]]) -> None:
    """Each invocation leaves one trace, numbered and listed in invocation order, with its own steps, totals and summary."""
    with fresh_execution(implementation) as execution:
        check_equal(R.S7_3_LIST_OF_TRACES, execution.traces(), [], "the traces of a new execution")
        for n, (steps, tokens) in enumerate(invocations, start=1):
            check_equal(R.S7_3_ORDER_IMPLIES_INVOCATION_ORDER, execution.begin(), n, f"the number of invocation {n}")
            for step in steps:
                execution.step(step)
            execution.end(tokens, {"turn": n})
        found = [{k: trace_view(t).get(k) for k in ("invocation", "steps", "tokens", "summary")} for t in execution.traces()]
    expected = [{"invocation": n, "steps": s, "tokens": t, "summary": {"turn": n}} for n, (s, t) in enumerate(invocations, 1)]
    check_equal(R.S7_2_MULTIPLE_TRACES, len(found), len(expected), "the number of traces, one per invocation")
    for got, want in zip(found, expected, strict=True):
        listed = got["steps"]
        check(
            R.S7_3_STEPS_LIST,
            _bag(listed) == _bag(want["steps"]),
            "a trace lists other steps",
            received=listed,
            expected=want["steps"],
        )
        for name, rid in TRACE_FIELDS.items():
            value = as_given(got[name], want[name]) if name in ("tokens", "summary") else got[name]
            check_equal(rid, value, want[name], f"the {name} of trace {want['invocation']}")


@requirement(R.S7_4_STEP_SCHEMA_DEFERRED)
@given(step=st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=6))
def test_any_json_object_is_a_step(implementation: Implementation, step: Json) -> None:
    """Whatever JSON object a step is, it is accepted and read back unchanged."""
    with fresh_execution(implementation) as execution:
        number = execution.begin()
        execution.step(step, R.S7_4_STEP_SCHEMA_DEFERRED)
        execution.end({"prompt": 0, "completion": 0, "total": 0}, {})
        found = [trace["steps"] for trace in execution.traces() if trace["invocation"] == number]
    check_equal(R.S7_4_STEP_SCHEMA_DEFERRED, found, [[step]], "the steps read back")


providers = st.lists(
    st.tuples(st.sampled_from(["Session", "Consumable"]), st.lists(ANY_TEXT, max_size=5)), min_size=0, max_size=4
).map(lambda registers_: [(f"Register {n}", c, items) for n, (c, items) in enumerate(registers_)])


@requirement(R.S6_2_PERSIST_AND_REHYDRATE, R.S5_3_STATE_HOLDERS_ONLY, R.S4_2_MULTIPLE_REGISTERS)
@given(plan=providers, records=st.integers(0, 3))
def test_rehydrate_of_persist_is_the_identity(
    implementation: Implementation, plan: list[tuple[str, str, list[str]]], records: int
) -> None:
    """Any provider, persisted and rehydrated (from its session id and from its serialized form), is equal to itself."""
    round_trip = R.S6_2_PERSIST_AND_REHYDRATE
    with fresh_execution(implementation) as execution:
        for name, classification, items in plan:
            execution.add(name, classification)
            for item in items:
                execution.append(name, item, R.S5_3_STATE_HOLDERS_ONLY)
        for n in range(records):
            execution.record(tool_call(n))
        original, session = execution.registers(), new_id("session")
        saved = execution.persist(session)
    expected = {key(name): {"name": name, "classification": c, "items": items} for name, c, items in plan}
    kept = {k: v for k, v in original.items() if k != key(MANIFEST)}
    check_equal(R.S4_2_MULTIPLE_REGISTERS, sorted(kept), sorted(expected), "the registers the provider holds")
    check_equal(R.S5_3_STATE_HOLDERS_ONLY, kept, expected, "the registers the provider holds")
    check_equal(round_trip, registers(saved), original, "the provider persist answered")
    for source in ({"sessionId": session}, {"provider": saved}):
        copy = rehydrated(implementation, round_trip, **source)
        check_equal(round_trip, copy.registers(round_trip), original, f"the provider rehydrated from {next(iter(source))}")
        copy.end_execution()
