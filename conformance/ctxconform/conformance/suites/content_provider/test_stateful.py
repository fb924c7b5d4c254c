"""Stateful differential test: random operation sequences against the implementation and the reference side by side."""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any, ClassVar, Final

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, rule, run_state_machine_as_test

from ctxconform.conformance.suites.content_provider import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.content_provider.client import (
    MANIFEST,
    Execution,
    appears_in_order,
    as_given,
    documented,
    found_in,
    input_lanes,
    key,
    names_are_exact,
    new_id,
    registers,
    tool_call,
    trace_view,
)
from ctxconform.conformance.testing import Checked, Implementation, check, check_equal, requirement
from ctxconform.reference import Reference

Json = dict[str, Any]

NAMES: Final = ["Persona", "persona", "PERSONA", "Inbox", "inbox", "Notes", "Scratch Pad", MANIFEST, "toolcallmanifest"]
# Each name's spelling where names are exact keys (4.2/stable-name's other reading): there the case variants above
# would name other registers than the reference's, so the machine asks for each register by its one spelling.
SPELLING: Final = {key(name): name for name in reversed(NAMES)}
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

# What an answer that differs from the reference's breaks, by operation; and a refusal, by the reference's code.
BY_OP: Final = {
    "create_provider": R.S5_1_ONE_PROVIDER_PER_EXECUTION,
    "get_provider": R.S5_1_ONE_PROVIDER_PER_EXECUTION,
    "compose": R.S4_3_CONSUMABLE_IN_INPUT_ITEMS,
    "add_register": R.S4_2_CLASSIFIED,
    "append_item": R.S4_2_ITEMS_ACCUMULATE,
    "record_tool_call": R.S4_4_MANIFEST_RECORDS,
    "mark_delivered": R.S4_3_CONSUMABLE_CLEARED_AFTER_DELIVERY,
    "mark_failed": R.S4_3_CONSUMABLE_KEPT_UNTIL_DELIVERED,
    "begin_trace": R.S7_3_LIST_OF_TRACES,  # a number other than the reference's: the execution's list is not its own
    "add_trace_step": R.S7_3_STEPS_LIST,  # a step count other than the reference's: the trace's steps are not its own
    "end_trace": R.S7_3_TOKEN_TOTALS,
    "get_traces": R.S7_3_LIST_OF_TRACES,
    "persist": R.S6_2_PERSIST_AND_REHYDRATE,
    "rehydrate": R.S6_2_PERSIST_AND_REHYDRATE,
    "end_execution": R.S5_1_ONE_PROVIDER_PER_EXECUTION,
}
# Refusals of the reference the registry also reads as no-ops: begin_trace with a trace open (7.2), a delivery report
# with no request pending (4.3).
NO_OPS: Final = frozenset(
    {("begin_trace", "TRACE_OPEN"), ("mark_delivered", "NO_PENDING_REQUEST"), ("mark_failed", "NO_PENDING_REQUEST")}
)
# Codes the registry accepts in place of the reference's: a text item offered to the ToolCallManifest.
SAME_AS: Final = {"MANIFEST_RECORDS_ONLY": ("MANIFEST_RECORDS_ONLY", "INVALID_REQUEST")}
BY_CODE: Final = {
    "UNKNOWN_CLASSIFICATION": R.S3_EXACTLY_TWO_CLASSIFICATIONS,
    "CLASSIFICATION_CONFLICT": R.S4_2_CLASSIFIED,
    "BLANK_NAME": R.S4_2_STABLE_NAME,
    "REGISTER_NOT_FOUND": R.S4_2_CLASSIFIED,
    "MANIFEST_RECORDS_ONLY": R.S4_4_MANIFEST_RECORDS,
    "NO_PENDING_REQUEST": R.S4_3_CONSUMABLE_KEPT_UNTIL_DELIVERED,
    "TRACE_OPEN": R.S7_2_ONE_TRACE_PER_INVOCATION,
    "NO_OPEN_TRACE": R.S7_2_ONE_TRACE_PER_INVOCATION,
    "SESSION_NOT_FOUND": R.S6_2_PERSIST_AND_REHYDRATE,
    "PROVIDER_NOT_FOUND": R.S5_1_ONE_PROVIDER_PER_EXECUTION,
    "PROVIDER_EXISTS": R.S5_1_ONE_PROVIDER_PER_EXECUTION,
}
# What a well-formed call's content is ruled by, where that content varies: the reference checks a call's arguments
# before the execution's state, so where it refused for the state (NO_OPEN_TRACE, say) and the implementation refused
# the call as INVALID_REQUEST, the implementation objected to content the reference took.
CONTENT: Final = {"end_trace": R.S7_3_TOKEN_TOTALS, "record_tool_call": R.S4_4_MANIFEST_RECORDS}
# Operations that add or replace registers; after any other, a register that appears comes from the choreography.
REGISTER_OPS: Final = frozenset({"create_provider", "add_register", "append_item", "record_tool_call", "rehydrate"})
TRACE_FIELDS: Final = {
    "ended": R.S7_2_ONE_TRACE_PER_INVOCATION,
    "tokens": R.S7_3_TOKEN_TOTALS,
    "summary": R.S7_3_SUMMARY_DATA,
}


class InProcessReference:
    """The reference in this process with an in-memory store, answering through JSON copies: the oracle's transport."""

    def __init__(self) -> None:
        self.reference: Reference | None = None

    def open(self) -> None:
        """Build the reference."""
        self.reference = Reference(store_url="memory:")

    def exchange(self, message: dict[str, Any], timeout: float) -> object:  # noqa: ARG002 - in process, nothing to wait for
        """Answer one protocol message."""
        if self.reference is None:
            raise RuntimeError("the oracle was called before it was opened")
        return json.loads(json.dumps(self.reference.handle(json.loads(json.dumps(message)))))

    def close(self, timeout: float) -> None:  # noqa: ARG002 - in process, nothing to wait for
        """Drop the reference."""
        self.reference = None


def oracle() -> Implementation:
    """The reference, in memory, driven through the same protocol path as the implementation under test."""
    reference = Implementation("oracle", InProcessReference(), Path(tempfile.mkdtemp(prefix="ctxconform-oracle-")))
    reference.start()
    return reference


def trace_essentials(trace: Json) -> Json:
    """The fields of a trace the document defines; an open trace's tokens and summary are not compared."""
    fields = ("invocation", "ended", "steps", "tokens", "summary") if trace.get("ended") else ("invocation", "ended", "steps")
    view = trace_view(trace)
    return {name: view.get(name) for name in fields}


def comparable(op: str, result: Json) -> Json:
    """What two conforming implementations answer alike: the documented fields, providers and traces aside."""
    if op == "end_trace":
        return trace_essentials(result)
    return {name: value for name, value in documented(op, result).items() if name not in ("provider", "traces")}


def agree(op: str, actual: Checked, expected: Checked, *, well_formed: bool = True) -> None:
    """Check that the implementation answered as the reference did, its provider and traces charged by what differs."""
    if not expected.ok:
        code = str(expected.code)
        rid = BY_CODE.get(code, BY_OP.get(op, R.S5_1_ONE_PROVIDER_PER_EXECUTION))
        if well_formed and op in CONTENT and actual.code == "INVALID_REQUEST" and code != "INVALID_REQUEST":
            rid = CONTENT[op]
        actual.refused(rid, *SAME_AS.get(code, (code,)))
        return
    rid = BY_OP[op]
    got = actual.expect(rid)
    answer, wanted = comparable(op, got), comparable(op, expected.raw)
    for name in ("tokens", "summary") if op == "end_trace" else ():  # given fields come back; others may be added
        answer[name] = as_given(answer.get(name), wanted.get(name))
    if isinstance(answer.get("register"), dict) and isinstance(wanted.get("register"), dict):
        agree_on_register(op, answer.pop("register"), wanted.pop("register"))  # its name, class and items, each its own
    check_equal(rid, answer, wanted, f"the answer to {op}, against the reference's")
    if "provider" in got:
        agree_on_state(op, registers(got["provider"]), registers(expected.raw["provider"]))
    if "traces" in got:
        agree_on_traces([trace_essentials(t) for t in got["traces"]], [trace_essentials(t) for t in expected.raw["traces"]])


def agree_on_request(mine: Json, theirs: Json, provider: dict[str, Json]) -> None:
    """Compare two composed requests under every accepted reading: lanes by register, Session items verbatim in order."""
    got, want = input_lanes(mine), input_lanes(theirs)
    held, expected = sum(map(len, got.values())), sum(map(len, want.values()))
    check(R.S4_3_CONSUMABLE_KEPT_UNTIL_DELIVERED, held >= expected, "input items are missing", received=got, expected=want)
    check(R.S4_3_CONSUMABLE_CLEARED_AFTER_DELIVERY, held <= expected, "input items too many", received=got, expected=want)
    check_equal(R.S4_3_CONSUMABLE_IN_INPUT_ITEMS, got, want, "the input items by register, against the reference's")
    for register in provider.values():
        texts = [item for item in register["items"] if isinstance(item, str)]
        if register["classification"] == "Session":
            check(
                R.S4_3_SESSION_PERSISTENT_ACROSS_CALLS,
                appears_in_order(mine["instructions"], texts),
                f"the instructions lack {register['name']}'s items",
                received=mine["instructions"],
                expected=texts,
            )
        else:
            inside = [text for text in texts if found_in(mine["instructions"], text)]
            check(
                R.S3_SEPARATE_PERSISTENT_AND_CONSUMABLE, not inside, "Consumable items are in the instructions", received=inside
            )


def _bag(items: list[object]) -> Counter[str]:
    return Counter(json.dumps(item, sort_keys=True) for item in items)


def agree_on_state(op: str, mine: dict[str, Json], theirs: dict[str, Json]) -> None:
    """After an operation both providers hold the same registers; a difference is charged by what it breaks."""
    if op in ("persist", "rehydrate"):  # the provider saved or given back is not the one persisted
        check_equal(R.S6_2_PERSIST_AND_REHYDRATE, mine, theirs, f"the provider {op} answered, against the reference's")
        return
    extra, missing = sorted(mine.keys() - theirs.keys()), sorted(theirs.keys() - mine.keys())
    check(
        R.S4_2_MULTIPLE_REGISTERS,
        not missing,
        f"after {op}, registers are missing",
        received=sorted(mine),
        expected=sorted(theirs),
    )
    appeared = R.S4_2_CLASSIFIED if op in REGISTER_OPS else R.S3_INDEPENDENT_OF_CHOREOGRAPHY
    check(appeared, not extra, f"after {op}, registers appeared", received=sorted(mine), expected=sorted(theirs))
    for name in sorted(theirs):
        agree_on_register(op, mine[name], theirs[name])


def agree_on_register(op: str, got: Json, want: Json) -> None:
    """One register against the reference's: its name, its classification and its items, each charged on its own."""
    check_equal(R.S4_2_STABLE_NAME, got["name"], want["name"], f"the name of register {want['name']} after {op}")
    check_equal(R.S4_2_CLASSIFIED, got["classification"], want["classification"], f"the classification of {want['name']}")
    agree_on_items(op, got["items"], want["items"], want)


def agree_on_items(op: str, held: list[object], expected: list[object], register: Json) -> None:
    """A register's items: none missing, none left over, each exact, in order."""
    what = f"the items of {register['name']} after {op}"
    session = register["classification"] == "Session"
    fewer = R.S4_3_SESSION_NOT_CLEARED if session else R.S4_3_CONSUMABLE_KEPT_UNTIL_DELIVERED
    more = R.S4_2_ITEMS_ACCUMULATE if session else R.S4_3_CONSUMABLE_CLEARED_AFTER_DELIVERY
    if op in ("append_item", "record_tool_call", "rehydrate"):  # items were added: a shortfall is in the adding
        fewer = R.S4_2_ITEMS_ACCUMULATE
    check(fewer, len(held) >= len(expected), f"{what} lack items", received=held, expected=expected)
    check(more, len(held) <= len(expected), f"{what} are too many", received=held, expected=expected)
    check(R.S5_3_STATE_HOLDERS_ONLY, _bag(held) == _bag(expected), f"{what} are not as given", received=held, expected=expected)
    check_equal(R.S4_2_ORDERED_LINE_ITEMS, held, expected, f"the order of {what}")


def agree_on_traces(mine: list[Json], theirs: list[Json]) -> None:
    """Both executions list the same traces; a difference is charged by what it breaks."""
    numbers, wanted = [t["invocation"] for t in mine], [t["invocation"] for t in theirs]
    check(
        R.S7_3_LIST_OF_TRACES,
        len(mine) <= len(theirs),
        "traces of other executions are listed",
        received=numbers,
        expected=wanted,
    )
    open_ = [t["invocation"] for t in theirs if not t["ended"]]
    shown = [t["invocation"] for t in mine if not t["ended"]]
    check_equal(R.S7_1_DIAGNOSTIC_VISIBILITY, shown, open_, "the open traces listed")
    check(R.S7_2_MULTIPLE_TRACES, len(mine) >= len(theirs), "traces are missing", received=numbers, expected=wanted)
    check_equal(R.S7_3_ORDER_IMPLIES_INVOCATION_ORDER, numbers, wanted, "the invocations the traces are listed for")
    for got, want in zip(mine, theirs, strict=True):
        steps, expected = got["steps"], want["steps"]
        check(
            R.S7_3_STEPS_LIST,
            _bag(steps) == _bag(expected),
            f"trace {want['invocation']} lists other steps",
            received=steps,
            expected=expected,
        )
        check_equal(R.S7_4_STEPS_CAPTURE_DIAGNOSTICS, steps, expected, f"the steps of trace {want['invocation']}")
        for name, rid in TRACE_FIELDS.items():
            found = as_given(got.get(name), want.get(name)) if name in ("tokens", "summary") else got.get(name)
            check_equal(rid, found, want.get(name), f"the {name} of trace {want['invocation']}")


class ContentProviderMachine(RuleBasedStateMachine):
    """Both implementations get the same calls; every answer and every provider must agree, modulo accepted readings."""

    implementation: ClassVar[Implementation]
    reference: ClassVar[Implementation]
    exact_names: ClassVar[bool] = False  # register names are exact keys in the implementation (4.2's other reading)
    executions = Bundle("executions")
    sessions = Bundle("sessions")

    def __init__(self) -> None:
        super().__init__()
        self.live: set[str] = set()
        self.serial = 0

    def call(self, op: str, execution_id: str, *, valid: bool = True, **fields: object) -> tuple[Checked, Checked]:
        """Make one call on both (checked against the request schema unless meant to be invalid), compare, then the providers."""
        if valid:
            mine = Execution(self.implementation, execution_id).request(op, fields)
        else:
            mine = Execution(self.implementation, execution_id).send(op, {"executionId": execution_id, **fields})
        theirs = Execution(self.reference, execution_id).send(op, {"executionId": execution_id, **fields})
        if mine.ok and not theirs.ok and (op, theirs.code) in NO_OPS:
            self.agree_on_no_op(op, execution_id, mine, BY_CODE[str(theirs.code)])
        else:
            agree(op, mine, theirs, well_formed=valid)
        if (op not in ("end_execution", "get_provider") and (theirs.ok or mine.ok)) or op == "rehydrate":
            self.compare_state(op, execution_id)
        return mine, theirs

    def agree_on_no_op(self, op: str, execution_id: str, mine: Checked, rid: str) -> None:
        """Where the reference refuses and the registry also reads the call as a no-op, check the no-op's answer."""
        answer = mine.expect(rid)
        if op == "begin_trace":  # the open invocation's number: the reference's last trace
            open_ = len(Execution(self.reference, execution_id).op("get_traces").raw["traces"])
            check_equal(rid, answer["invocation"], open_, "the invocation begin_trace with a trace open answered")
        else:
            check_equal(rid, answer["cleared"], 0, f"the count {op} with nothing pending cleared")

    def compare_state(self, op: str, execution_id: str) -> None:
        """Compare the execution's provider and traces on both sides."""
        for read in ("get_provider", "get_traces"):
            mine = Execution(self.implementation, execution_id).op(read)
            theirs = Execution(self.reference, execution_id).op(read)
            if read == "get_provider" and mine.ok and theirs.ok:
                agree_on_state(op, registers(mine.result["provider"]), registers(theirs.raw["provider"]))
            else:
                agree(read, mine, theirs)

    def spelled(self, name: str) -> str:
        """The name to ask for: as drawn, or where names are exact keys, the register's one spelling."""
        return SPELLING.get(key(name), name) if self.exact_names else name

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
        self.call("add_register", execution_id, valid=valid, name=self.spelled(args[0]), classification=args[1])

    @rule(execution_id=executions, name=st.sampled_from([*NAMES, "Nowhere"]), motif=MOTIF)
    def append_item(self, execution_id: str, name: str, motif: str) -> None:
        """Append a text item (to a register that may not exist, or the manifest)."""
        self.call("append_item", execution_id, register=self.spelled(name), text=self.text(motif))

    @rule(execution_id=executions, name=st.sampled_from(["Persona", "persona", "Inbox", "INBOX"]), motif=MOTIF)
    def append_to_a_usual_register(self, execution_id: str, name: str, motif: str) -> None:
        """Append a text item to the Session or the Consumable register every execution starts with."""
        self.call("append_item", execution_id, register=self.spelled(name), text=self.text(motif))

    @rule(execution_id=executions)
    def record_tool_call(self, execution_id: str) -> None:
        """Record a tool call."""
        self.serial += 1
        self.call("record_tool_call", execution_id, record=tool_call(self.serial))

    @rule(execution_id=executions)
    def compose(self, execution_id: str) -> None:
        """Compose the next request on both and compare it under every reading."""
        mine, theirs = (Execution(side, execution_id).op("compose") for side in (self.implementation, self.reference))
        if not theirs.ok:
            agree("compose", mine, theirs)
            return
        provider = registers(Execution(self.reference, execution_id).op("get_provider").raw["provider"])
        agree_on_request(mine.expect(R.S4_3_CONSUMABLE_IN_INPUT_ITEMS), theirs.raw, provider)
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
                Execution(side, execution_id).op("end_execution")


@requirement(
    R.S3_EXACTLY_TWO_CLASSIFICATIONS,
    R.S3_INDEPENDENT_OF_CHOREOGRAPHY,
    R.S3_SEPARATE_PERSISTENT_AND_CONSUMABLE,
    R.S4_2_CLASSIFIED,
    R.S4_2_ITEMS_ACCUMULATE,
    R.S4_2_MULTIPLE_REGISTERS,
    R.S4_2_ORDERED_LINE_ITEMS,
    R.S4_2_STABLE_NAME,
    R.S4_3_CONSUMABLE_CLEARED_AFTER_DELIVERY,
    R.S4_3_CONSUMABLE_IN_INPUT_ITEMS,
    R.S4_3_CONSUMABLE_KEPT_UNTIL_DELIVERED,
    R.S4_3_SESSION_NOT_CLEARED,
    R.S4_3_SESSION_PERSISTENT_ACROSS_CALLS,
    R.S4_4_MANIFEST_RECORDS,
    R.S5_1_ONE_PROVIDER_PER_EXECUTION,
    R.S5_3_STATE_HOLDERS_ONLY,
    R.S6_2_PERSIST_AND_REHYDRATE,
    R.S7_1_DIAGNOSTIC_VISIBILITY,
    R.S7_2_MULTIPLE_TRACES,
    R.S7_2_ONE_TRACE_PER_INVOCATION,
    R.S7_3_LIST_OF_TRACES,
    R.S7_3_ORDER_IMPLIES_INVOCATION_ORDER,
    R.S7_3_STEPS_LIST,
    R.S7_3_SUMMARY_DATA,
    R.S7_3_TOKEN_TOTALS,
    R.S7_4_STEPS_CAPTURE_DIAGNOSTICS,
)
def test_random_operation_sequences_agree_with_the_reference(implementation: Implementation) -> None:
    """Random registers, items, tool calls, requests, deliveries, traces, persists and rehydrations agree with the reference."""
    exact = names_are_exact(implementation)
    reference = oracle()
    machine = type(
        "Machine",
        (ContentProviderMachine,),
        {"implementation": implementation, "reference": reference, "exact_names": exact},
    )
    try:
        run_state_machine_as_test(machine)
    finally:
        reference.stop()
