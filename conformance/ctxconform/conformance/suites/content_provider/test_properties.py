"""Properties (hypothesis): the lanes over random operation sequences, failed deliveries, trace order, round trips."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance.suites.content_provider.client import (
    IN_INPUT,
    MANIFEST,
    Execution,
    expect_request,
    fresh_execution,
    input_lanes,
    key,
    new_id,
    registers,
    rehydrated,
    require,
    tool_call,
)

requirement = pytest.mark.requirement

CLEARED: Final = "content-provider/4.3/consumable-cleared-after-delivery"
KEPT: Final = "content-provider/4.3/consumable-kept-until-delivered"
SESSION_KEPT: Final = "content-provider/4.3/session-not-cleared"
EVERY_CALL: Final = "content-provider/4.3/session-persistent-across-calls"
ROUND_TRIP: Final = "content-provider/6.2/persist-and-rehydrate"
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
    "invocation": "content-provider/7.3/order-implies-invocation-order",
    "steps": "content-provider/7.4/steps-capture-diagnostics",
    "tokens": "content-provider/7.3/token-totals",
    "summary": "content-provider/7.3/summary-data",
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


def check_state(execution: Execution, model: Model) -> None:
    """Fail the right requirement unless the provider holds exactly the model's items."""
    found = execution.registers()
    for name, texts in model.session.items():
        require(found[name]["items"] == texts, SESSION_KEPT, f"{found[name]['name']} holds {found[name]['items']}, not {texts}")
    for name, items in model.consumable.items():
        held = found[name]["items"]
        require(held == items, charge(len(held), len(items)), f"{found[name]['name']} holds {held}, expected {items}")


def charge(held: int, expected: int) -> str:
    """The requirement a wrong set of consumables breaks: too few were kept, too many, or the wrong ones."""
    return KEPT if held < expected else CLEARED if held > expected else IN_INPUT


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
    elif model.pending is not None and kind == "deliver":
        execution.delivered()
        model.deliver()
    elif model.pending is not None and kind == "fail":
        execution.failed()
        model.pending = None
    else:  # compose, or a delivery report with nothing pending: compose first
        compose_and_check(execution, model)


def compose_and_check(execution: Execution, model: Model) -> None:
    """Compose: the state is unchanged, and the request carries every Session item and every pending Consumable."""
    composed = execution.compose()
    check_state(execution, model)
    wanted = {name: list(items) for name, items in model.consumable.items()}
    rid = charge(sum(map(len, input_lanes(composed).values())), sum(map(len, wanted.values())))
    expect_request(composed, model.session, wanted, instructions_requirement=EVERY_CALL, input_requirement=rid)
    model.pending = {name: len(items) for name, items in model.consumable.items() if items}


@requirement(EVERY_CALL, SESSION_KEPT, CLEARED, KEPT, IN_INPUT, "content-provider/4.3/consumable-for-llm")
@requirement("content-provider/4.3/session-in-instructions")
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
        for serial, action in enumerate(actions):
            run(execution, model, action, serial)
        compose_and_check(execution, model)


@requirement(KEPT, CLEARED)
@given(texts=st.lists(MOTIF, min_size=1, max_size=6), records=st.integers(0, 3), failures=st.integers(1, 4))
def test_failed_deliveries_keep_every_consumable(
    implementation: Implementation, texts: list[str], records: int, failures: int
) -> None:
    """However often delivery fails, nothing is cleared and every retry composes the same request; success then clears."""
    with fresh_execution(implementation) as execution:
        execution.add("Inbox", "Consumable")
        for n, text in enumerate(texts):
            execution.append("Inbox", f"⟦{n}⟧{text}")
        for n in range(records):
            execution.record(tool_call(n))
        before, first = execution.registers(), execution.compose()
        for _ in range(failures):
            execution.failed()
            require(execution.registers() == before, KEPT, f"a failed delivery changed the provider to {execution.document()}")
            retry = execution.compose(KEPT)
            require(retry == first, KEPT, f"the retry composed {retry}, the first attempt {first}")
        execution.delivered()
        require(execution.compose()["input"] == [], CLEARED, "a successful delivery left consumables in the next request")


@requirement(
    "content-provider/7.2/one-trace-per-invocation",
    "content-provider/7.2/multiple-traces",
    "content-provider/7.3/order-implies-invocation-order",
    "content-provider/7.3/token-totals",
    "content-provider/7.3/summary-data",
    "content-provider/7.4/steps-capture-diagnostics",
)
@given(invocations=st.lists(st.tuples(STEPS, TOKENS), min_size=1, max_size=5))
def test_traces_count_invocations_in_order(implementation: Implementation, invocations: list[tuple[list[Json], Json]]) -> None:
    """Each invocation leaves one trace, numbered and listed in invocation order, with its own steps, totals and summary."""
    with fresh_execution(implementation) as execution:
        for n, (steps, tokens) in enumerate(invocations, start=1):
            require(execution.begin() == n, "content-provider/7.3/order-implies-invocation-order", f"invocation {n} misnumbered")
            for step in steps:
                execution.step(step)
            execution.end(tokens, {"turn": n})
        found = [{k: t.get(k) for k in ("invocation", "steps", "tokens", "summary")} for t in execution.traces()]
    expected = [{"invocation": n, "steps": s, "tokens": t, "summary": {"turn": n}} for n, (s, t) in enumerate(invocations, 1)]
    require(
        len(found) == len(expected), "content-provider/7.2/multiple-traces", f"{len(expected)} invocations, {len(found)} traces"
    )
    for got, want in zip(found, expected, strict=True):
        differing = [name for name in TRACE_FIELDS if got[name] != want[name]]
        rid = TRACE_FIELDS[differing[0]] if differing else "content-provider/7.3/token-totals"
        require(got == want, rid, f"trace {got}\nexpected {want}")


@requirement("content-provider/7.4/step-schema-deferred")
@given(step=st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=6))
def test_any_json_object_is_a_step(implementation: Implementation, step: Json) -> None:
    """Whatever JSON object a step is, it is accepted and read back unchanged."""
    with fresh_execution(implementation) as execution:
        execution.begin()
        execution.step(step, "content-provider/7.4/step-schema-deferred")
        found = execution.traces()[0]["steps"]
    require(found == [step], "content-provider/7.4/step-schema-deferred", f"added {step}, read back {found}")


providers = st.lists(
    st.tuples(st.sampled_from(["Session", "Consumable"]), st.lists(ANY_TEXT, max_size=5)), min_size=0, max_size=4
).map(lambda registers_: [(f"Register {n}", c, items) for n, (c, items) in enumerate(registers_)])


@requirement(ROUND_TRIP, "content-provider/5.3/state-holders-only")
@given(plan=providers, records=st.integers(0, 3))
def test_rehydrate_of_persist_is_the_identity(
    implementation: Implementation, plan: list[tuple[str, str, list[str]]], records: int
) -> None:
    """Any provider, persisted and rehydrated (from its session id and from its serialized form), is equal to itself."""
    with fresh_execution(implementation) as execution:
        for name, classification, items in plan:
            execution.add(name, classification)
            for item in items:
                execution.append(name, item, "content-provider/5.3/state-holders-only")
        for n in range(records):
            execution.record(tool_call(n))
        original, session = execution.registers(), new_id("session")
        saved = execution.persist(session)
    expected = {key(name): {"name": name, "classification": c, "items": items} for name, c, items in plan}
    kept = {k: v for k, v in original.items() if k != key(MANIFEST)}
    require(kept == expected, "content-provider/5.3/state-holders-only", f"the provider holds {kept}, given {expected}")
    require(registers(saved) == original, ROUND_TRIP, f"persist answered {saved}, the provider was {original}")
    for source in ({"sessionId": session}, {"provider": saved}):
        copy = rehydrated(implementation, ROUND_TRIP, **source)
        require(copy.registers() == original, ROUND_TRIP, f"rehydrated from {sorted(source)}: {copy.document()}")
        copy.end_execution()
