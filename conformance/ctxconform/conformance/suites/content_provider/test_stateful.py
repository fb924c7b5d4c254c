"""Stateful differential test: random operation sequences against the implementation and the reference side by side."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, ClassVar, Final

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, rule, run_state_machine_as_test

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance._inprocess import InProcessTransport
from ctxconform.conformance.exceptions import RequirementFailure
from ctxconform.conformance.suites.content_provider.client import (
    MANIFEST,
    Execution,
    Outcome,
    appears_in_order,
    input_lanes,
    new_id,
    registers,
    tool_call,
)
from ctxconform.reference import Reference

Json = dict[str, Any]

CLASSIFIED: Final = "content-provider/4.2/classified"
ORDERED: Final = "content-provider/4.2/ordered-line-items"
RECORDS: Final = "content-provider/4.4/manifest-records"
SESSION_KEPT: Final = "content-provider/4.3/session-not-cleared"
CLEARED: Final = "content-provider/4.3/consumable-cleared-after-delivery"
KEPT: Final = "content-provider/4.3/consumable-kept-until-delivered"
EVERY_CALL: Final = "content-provider/4.3/session-persistent-across-calls"
IN_INPUT: Final = "content-provider/4.3/consumable-in-input-items"
SEPARATE: Final = "content-provider/3/separate-persistent-and-consumable"
ONE_PROVIDER: Final = "content-provider/5.1/one-provider-per-execution"
ONE_TRACE: Final = "content-provider/7.2/one-trace-per-invocation"
ORDER: Final = "content-provider/7.3/order-implies-invocation-order"
ROUND_TRIP: Final = "content-provider/6.2/persist-and-rehydrate"

NAMES: Final = ["Persona", "persona", "PERSONA", "Inbox", "inbox", "Notes", "Scratch Pad", MANIFEST, "toolcallmanifest"]
REGISTER_ARGS: Final = st.one_of(
    st.tuples(st.sampled_from(NAMES), st.sampled_from(["Session", "Consumable"])),
    st.tuples(st.sampled_from(["", "  ", "\t"]), st.sampled_from(["Session", "Consumable"])),
    st.tuples(st.sampled_from(NAMES), st.sampled_from(["Ephemeral", "Persistent", ""])),
)
MOTIF: Final = st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"], exclude_characters="⟦⟧"), max_size=10)
STEP: Final = st.fixed_dictionaries({"kind": st.sampled_from(["request", "tool", "response"]), "n": st.integers(0, 9)})
TOKENS: Final = st.fixed_dictionaries(
    {"prompt": st.integers(0, 99), "completion": st.integers(0, 99), "total": st.integers(0, 199)}
)

# What a result that differs from the reference's breaks, by operation; and a refusal, by the reference's code.
BY_OP: Final = {
    "create_provider": "content-provider/4.4/manifest-required",
    "get_provider": ONE_PROVIDER,
    "compose": IN_INPUT,
    "add_register": CLASSIFIED,
    "append_item": ORDERED,
    "record_tool_call": RECORDS,
    "mark_delivered": CLEARED,
    "mark_failed": KEPT,
    "begin_trace": ORDER,
    "add_trace_step": "content-provider/7.4/steps-capture-diagnostics",
    "end_trace": "content-provider/7.3/token-totals",
    "get_traces": ORDER,
    "persist": ROUND_TRIP,
    "rehydrate": ROUND_TRIP,
    "end_execution": ONE_PROVIDER,
}
BY_CODE: Final = {
    "UNKNOWN_CLASSIFICATION": "content-provider/3/exactly-two-classifications",
    "CLASSIFICATION_CONFLICT": CLASSIFIED,
    "BLANK_NAME": "content-provider/4.2/stable-name",
    "REGISTER_NOT_FOUND": CLASSIFIED,
    "MANIFEST_RECORDS_ONLY": RECORDS,
    "NO_PENDING_REQUEST": KEPT,
    "TRACE_OPEN": ONE_TRACE,
    "NO_OPEN_TRACE": ONE_TRACE,
    "SESSION_NOT_FOUND": ROUND_TRIP,
    "PROVIDER_NOT_FOUND": ONE_PROVIDER,
    "PROVIDER_EXISTS": ONE_PROVIDER,
}


def oracle() -> Implementation:
    """The reference, in memory, driven through the same protocol path as the implementation under test."""
    reference = Implementation(
        "oracle", InProcessTransport(lambda: Reference(store_url="memory:")), Path(tempfile.mkdtemp(prefix="ctxconform-oracle-"))
    )
    reference.start()
    return reference


def comparable(op: str, result: Json) -> Json:
    """What two conforming implementations answer alike: registers by name, traces without additions."""
    if "provider" in result:
        return {**result, "provider": registers(result["provider"])}
    if op == "get_traces":
        return {"traces": [trace_essentials(t) for t in result["traces"]]}
    if op == "end_trace":
        return trace_essentials(result)
    return result


def trace_essentials(trace: Json) -> Json:
    """The fields of a trace the document defines; an open trace's tokens and summary are not compared."""
    fields = ("invocation", "ended", "steps", "tokens", "summary") if trace.get("ended") else ("invocation", "ended", "steps")
    return {name: trace.get(name) for name in fields}


def agree(op: str, actual: Outcome, expected: Outcome) -> None:
    """Fail with the right requirement unless the implementation answered as the reference did."""
    if not expected.ok:
        actual.refused(BY_CODE.get(str(expected.code), BY_OP.get(op, ONE_PROVIDER)), str(expected.code))
        return
    got, want = comparable(op, actual.result(BY_OP.get(op))), comparable(op, expected.result())
    if got != want:
        raise RequirementFailure(BY_OP[op], f"{op}: the implementation answered {got!r}, the reference {want!r}")


def agree_on_request(mine: Json, theirs: Json, provider: dict[str, Json]) -> None:
    """Compare two composed requests under every accepted reading: lanes by register, Session items verbatim in order."""
    got, want = input_lanes(mine), input_lanes(theirs)
    if got != want:
        held, expected = sum(map(len, got.values())), sum(map(len, want.values()))
        rid = KEPT if held < expected else CLEARED if held > expected else IN_INPUT
        raise RequirementFailure(rid, f"input items by register: {got}, the reference's {want}")
    for register in provider.values():
        texts = [item for item in register["items"] if isinstance(item, str)]
        if register["classification"] == "Session" and not appears_in_order(mine["instructions"], texts):
            raise RequirementFailure(EVERY_CALL, f"the instructions lack {register['name']}'s items {texts}")
        if register["classification"] == "Consumable" and any(text in mine["instructions"] for text in texts):
            raise RequirementFailure(SEPARATE, f"a Consumable item of {register['name']} is in the instructions")


def agree_on_state(op: str, mine: dict[str, Json], theirs: dict[str, Json]) -> None:
    """After an operation both providers hold the same registers; a difference is charged by what changed it."""
    for name in sorted(mine.keys() | theirs.keys()):
        got, want = mine.get(name), theirs.get(name)
        if got == want:
            continue
        if got is None or want is None or op in ("add_register", "append_item", "record_tool_call", "rehydrate"):
            raise RequirementFailure(BY_OP.get(op, CLASSIFIED), f"after {op}, register {name}: {got}, the reference's {want}")
        if want["classification"] == "Session":
            raise RequirementFailure(SESSION_KEPT, f"after {op}, {want['name']} holds {got['items']}, not {want['items']}")
        rid = KEPT if len(got["items"]) < len(want["items"]) else CLEARED
        raise RequirementFailure(rid, f"after {op}, {want['name']} holds {got['items']}, not {want['items']}")


class ContentProviderMachine(RuleBasedStateMachine):
    """Both implementations get the same calls; every answer and every provider must agree, modulo accepted readings."""

    implementation: ClassVar[Implementation]
    reference: ClassVar[Implementation]
    executions = Bundle("executions")
    sessions = Bundle("sessions")

    def __init__(self) -> None:
        super().__init__()
        self.live: set[str] = set()
        self.serial = 0

    def call(self, op: str, execution_id: str, *, valid: bool = True, **fields: object) -> tuple[Outcome, Outcome]:
        """Make one call on both (checked against the request schema unless meant to be invalid), compare, then the providers."""
        if valid:
            mine = Execution(self.implementation, execution_id).call(op, **fields)
        else:
            mine = Execution(self.implementation, execution_id).send(op, {"executionId": execution_id, **fields})
        theirs = Execution(self.reference, execution_id).send(op, {"executionId": execution_id, **fields})
        agree(op, mine, theirs)
        if (op != "end_execution" and theirs.ok) or op == "rehydrate":
            self.compare_state(op, execution_id)
        return mine, theirs

    def compare_state(self, op: str, execution_id: str) -> None:
        """Compare the execution's provider and traces on both sides."""
        for read in ("get_provider", "get_traces"):
            mine = Execution(self.implementation, execution_id).call(read)
            theirs = Execution(self.reference, execution_id).call(read)
            if read == "get_provider" and mine.ok and theirs.ok:
                agree_on_state(op, registers(mine.result()["provider"]), registers(theirs.result()["provider"]))
            else:
                agree(read, mine, theirs)

    def text(self, motif: str) -> str:
        """An item text no other item contains."""
        self.serial += 1
        return f"⟦{self.serial}⟧{motif}"

    @rule(target=executions)
    def create(self) -> str:
        """Create an execution with its provider on both, holding a Session and a Consumable register with an item each."""
        execution_id = new_id()
        self.call("create_provider", execution_id)
        self.live.add(execution_id)
        # Most providers have a Session and a Consumable register; NAMES holds case variants of both.
        for name, classification in (("Persona", "Session"), ("Inbox", "Consumable")):
            self.call("add_register", execution_id, name=name, classification=classification)
            self.call("append_item", execution_id, register=name, text=self.text(f"{name} item"))
        return execution_id

    @rule(execution_id=executions, args=REGISTER_ARGS)
    def add_register(self, execution_id: str, args: tuple[str, str]) -> None:
        """Get or add a register (sometimes blank, of an unknown classification, or a conflict)."""
        valid = bool(args[0].strip()) and args[1] in ("Session", "Consumable")
        self.call("add_register", execution_id, valid=valid, name=args[0], classification=args[1])

    @rule(execution_id=executions, name=st.sampled_from([*NAMES, "Nowhere"]), motif=MOTIF)
    def append_item(self, execution_id: str, name: str, motif: str) -> None:
        """Append a text item (to a register that may not exist, or the manifest)."""
        self.call("append_item", execution_id, register=name, text=self.text(motif))

    @rule(execution_id=executions, name=st.sampled_from(["Persona", "persona", "Inbox", "INBOX"]), motif=MOTIF)
    def append_to_a_usual_register(self, execution_id: str, name: str, motif: str) -> None:
        """Append a text item to the Session or the Consumable register every execution starts with."""
        self.call("append_item", execution_id, register=name, text=self.text(motif))

    @rule(execution_id=executions)
    def record_tool_call(self, execution_id: str) -> None:
        """Record a tool call."""
        self.serial += 1
        self.call("record_tool_call", execution_id, record=tool_call(self.serial))

    @rule(execution_id=executions)
    def compose(self, execution_id: str) -> None:
        """Compose the next request on both and compare it under every reading."""
        mine, theirs = (Execution(side, execution_id).call("compose") for side in (self.implementation, self.reference))
        if not theirs.ok:
            agree("compose", mine, theirs)
            return
        provider = registers(Execution(self.reference, execution_id).call("get_provider").result()["provider"])
        agree_on_request(mine.result(IN_INPUT), theirs.result(), provider)
        self.compare_state("compose", execution_id)

    @rule(execution_id=executions, delivered=st.booleans())
    def report_delivery(self, execution_id: str, delivered: bool) -> None:
        """Report the pending request delivered or failed (or nothing pending)."""
        self.call("mark_delivered" if delivered else "mark_failed", execution_id)

    @rule(execution_id=executions)
    def begin_trace(self, execution_id: str) -> None:
        """Begin the next invocation's trace (or find one open)."""
        self.call("begin_trace", execution_id)

    @rule(execution_id=executions, step=STEP)
    def add_trace_step(self, execution_id: str, step: Json) -> None:
        """Add a step (or find no trace open)."""
        self.call("add_trace_step", execution_id, step=step)

    @rule(execution_id=executions, tokens=TOKENS)
    def end_trace(self, execution_id: str, tokens: Json) -> None:
        """End the open trace (or find none)."""
        self.call("end_trace", execution_id, tokens=tokens, summary={"status": "completed"})

    @rule(target=sessions, execution_id=executions)
    def persist(self, execution_id: str) -> str:
        """Persist a provider under a new session id."""
        session_id = new_id("session")
        self.call("persist", execution_id, sessionId=session_id)
        return session_id

    @rule(target=executions, session_id=sessions)
    def rehydrate(self, session_id: str) -> str:
        """Rehydrate a persisted provider into a new execution."""
        execution_id = new_id()
        mine, _ = self.call("rehydrate", execution_id, sessionId=session_id)
        if mine.ok:
            self.live.add(execution_id)
        return execution_id

    @rule(execution_id=consumes(executions))
    def end_execution(self, execution_id: str) -> None:
        """End an execution; later calls to it must get PROVIDER_NOT_FOUND."""
        self.call("end_execution", execution_id)
        self.live.discard(execution_id)
        self.call("get_provider", execution_id)

    def teardown(self) -> None:
        """End what this run created, so the implementation stays small."""
        for execution_id in self.live:
            for side in (self.implementation, self.reference):
                Execution(side, execution_id).call("end_execution")


@pytest.mark.requirement(
    "content-provider/4.4/manifest-required",
    CLASSIFIED,
    ORDERED,
    RECORDS,
    SESSION_KEPT,
    CLEARED,
    KEPT,
    EVERY_CALL,
    IN_INPUT,
    SEPARATE,
    ONE_PROVIDER,
    ONE_TRACE,
    ORDER,
    ROUND_TRIP,
    "content-provider/3/exactly-two-classifications",
    "content-provider/4.2/stable-name",
    "content-provider/7.3/token-totals",
    "content-provider/7.4/steps-capture-diagnostics",
)
def test_random_operation_sequences_agree_with_the_reference(implementation: Implementation) -> None:
    """Random registers, items, tool calls, requests, deliveries, traces, persists and rehydrations agree with the reference."""
    reference = oracle()
    machine = type("Machine", (ContentProviderMachine,), {"implementation": implementation, "reference": reference})
    try:
        run_state_machine_as_test(machine)
    finally:
        reference.stop()
