"""A content-provider execution as a test sees it: each operation charged to what it serves, results read through checks.

Every call serves its operation's requirement (the `OPERATIONS` table) unless a test names another: a refusal where a
result is required, a broken call and a result that breaks the response schema are charged to it. A provider without
its ToolCallManifest, or with a Session one, breaks the schema in a way that names its own requirement (4.4), and an
instructions lane that is no text names 4.3's; those are charged there instead.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, Final

from ctxconform.conformance.suites.content_provider import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.testing import (
    Checked,
    Client,
    Implementation,
    Operation,
    Operations,
    check,
    schema_errors,
    unique_hex,
)

__all__ = [
    "CONSUMABLE_ITEMS",
    "DOCUMENTED",
    "MANIFEST",
    "OPERATIONS",
    "SESSION_ITEMS",
    "SPEC",
    "Execution",
    "Lanes",
    "appears_in_order",
    "as_given",
    "documented",
    "expect_request",
    "found_in",
    "fresh_execution",
    "held",
    "input_lanes",
    "key",
    "names_are_exact",
    "new_id",
    "populate",
    "register_view",
    "registers",
    "rehydrated",
    "request_lanes",
    "token_totals",
    "tool_call",
    "trace_view",
]

SPEC: Final = "content-provider"
MANIFEST: Final = "ToolCallManifest"
Json = dict[str, Any]
Lanes = dict[str, list[object]]


def _operation(requirement: str, op: str) -> Operation:
    return Operation(requirement, f"{SPEC}/{op}.response.json")


# The requirement each operation's request and answer serve: the one saying what it takes and gives.
_SERVES: Final = {
    "create_provider": R.S5_1_ONE_PROVIDER_PER_EXECUTION,
    "get_provider": R.S5_2_COMPOSED_SOLELY_OF_REGISTERS,
    "end_execution": R.S5_1_ONE_PROVIDER_PER_EXECUTION,
    "add_register": R.S4_2_CLASSIFIED,
    "append_item": R.S4_2_ITEMS_ACCUMULATE,
    "record_tool_call": R.S4_4_MANIFEST_RECORDS,
    "compose": R.S4_3_CONSUMABLE_IN_INPUT_ITEMS,
    "mark_delivered": R.S4_3_CONSUMABLE_CLEARED_AFTER_DELIVERY,
    "mark_failed": R.S4_3_CONSUMABLE_KEPT_UNTIL_DELIVERED,
    "begin_trace": R.S7_2_ONE_TRACE_PER_INVOCATION,
    "add_trace_step": R.S7_4_STEP_SCHEMA_DEFERRED,
    "end_trace": R.S7_3_TOKEN_TOTALS,
    "get_traces": R.S7_3_LIST_OF_TRACES,
    "persist": R.S6_2_PERSIST_AND_REHYDRATE,
    "rehydrate": R.S6_2_PERSIST_AND_REHYDRATE,
}
OPERATIONS: Final = Operations(
    spec=SPEC,
    table={op: _operation(requirement, op) for op, requirement in _SERVES.items()},
    error_schema=f"{SPEC}/error.json",
)
_PROVIDER_ANSWERS: Final = frozenset({"create_provider", "get_provider", "persist", "rehydrate"})
# The fields of each answer the README documents; an implementation may add others (the response schemas are open).
DOCUMENTED: Final[dict[str, tuple[str, ...]]] = {
    "create_provider": ("executionId", "provider"),
    "get_provider": ("executionId", "provider"),
    "end_execution": ("executionId", "ended"),
    "add_register": ("register",),
    "append_item": ("register", "count"),
    "record_tool_call": ("register", "count"),
    "compose": ("instructions", "input"),
    "mark_delivered": ("cleared",),
    "mark_failed": ("cleared",),
    "begin_trace": ("invocation",),
    "add_trace_step": ("invocation", "steps"),
    "end_trace": ("invocation", "ended", "tokens", "summary", "steps"),
    "get_traces": ("traces",),
    "persist": ("sessionId", "provider"),
    "rehydrate": ("executionId", "provider"),
}
REGISTER_FIELDS: Final = ("name", "classification", "items")
TRACE_FIELDS: Final = ("invocation", "ended", "tokens", "summary", "steps")
OPTIONAL_COUNTS: Final = ("reasoning", "cached")


def _schema_owner(checked: Checked) -> str | None:
    """The requirement a result's schema errors name, where they name one more specific than the operation's."""
    if not checked.ok or checked.operation.schema is None:
        return None
    errors = schema_errors(checked.operation.schema, checked.raw)
    if checked.op in _PROVIDER_ANSWERS and any("registers: " in e and "does not contain" in e for e in errors):
        return R.S4_4_MANIFEST_REQUIRED
    if checked.op in _PROVIDER_ANSWERS and any("'Consumable' was expected" in e for e in errors):
        return R.S4_4_MANIFEST_CONSUMABLE  # the schema's one const classification is the manifest's
    if checked.op == "compose" and any(e.startswith("instructions") for e in errors):
        return R.S4_3_SESSION_IN_INSTRUCTIONS
    return None


def new_id(prefix: str = "exec") -> str:
    """An execution or session id no other test uses."""
    return f"ctxconform-{prefix}-{unique_hex(16)}"


def key(name: str) -> str:
    """The key the suite files a register under: its name in lower case.

    The suite never files two names differing only in case where an implementation may hold both (names_are_exact).
    """
    return name.lower()


def documented(op: str, answer: Json) -> Json:
    """The fields of an answer the README documents (others an implementation adds are not compared)."""
    return {name: value for name, value in answer.items() if name in DOCUMENTED.get(op, tuple(answer))}


def register_view(register: Json) -> Json:
    """A register as the document defines it: its name, classification and items (other fields are the implementation's)."""
    return {name: register[name] for name in REGISTER_FIELDS if name in register}


def token_totals(tokens: object) -> object:
    """Token totals as given: an optional count that was not given may come back absent or null (the same)."""
    if not isinstance(tokens, dict):
        return tokens
    return {name: value for name, value in tokens.items() if not (name in OPTIONAL_COUNTS and value is None)}


def as_given(returned: object, given: object) -> object:
    """What came back of an object given (a summary, token totals): its fields that were given, others left out.

    Token totals and summary data (7.3) are what the invocation was given, and an implementation may add to them (a
    count of its own, a duration): every given field must come back with its value, nothing more is compared.
    Token totals go through token_totals first, so an optional count that came back null counts as absent.
    """
    if isinstance(returned, dict) and isinstance(given, dict):
        return {name: value for name, value in returned.items() if name in given}
    return returned


def trace_view(trace: Json) -> Json:
    """A trace's fields the document defines, tokens normalized; an open trace's tokens and summary (absent or null) left out."""
    view: Json = {
        name: trace[name]
        for name in TRACE_FIELDS
        if name in trace and not (name in ("tokens", "summary") and trace[name] is None)
    }
    if "tokens" in view:
        view["tokens"] = token_totals(view["tokens"])
    return view


def request_lanes(composed: Json) -> Json:
    """A composed request's two lanes, the prompt composition inputs (fields such as a request id aside)."""
    return {"instructions": composed.get("instructions"), "input": composed.get("input")}


def names_are_exact(implementation: Implementation) -> bool:
    """Which reading of 4.2/stable-name the implementation follows: whether register names are exact keys.

    True when "Probe" and "probe" are two registers, False when names are compared without regard to case (the origin,
    the reference). Probed on an execution of its own, ended afterwards; an implementation that renames "Probe" when asked for
    "probe" is read as comparing without regard to case (and fails there).
    """
    probe = Execution(implementation, new_id("case-probe"))
    probe.op("create_provider").result  # noqa: B018 - reading the result checks it
    try:
        probe.op("add_register", name="CaseProbe", classification="Session").raw  # noqa: B018 - a setup call
        again = probe.op("add_register", name="caseprobe", classification="Session").raw
        listed = probe.op("get_provider").raw
        try:
            names = {register["name"] for register in listed["provider"]["registers"]}
            return bool(again["register"]["name"] == "caseprobe" and {"CaseProbe", "caseprobe"} <= names)
        except (KeyError, TypeError):  # a malformed answer: judged where it is read, under the origin's reading
            return False
    finally:
        if implementation.broken is None:
            probe.end_execution()


def tool_call(n: int, tool: str = "search") -> Json:
    """A tool call record whose fields all carry `n`; the JSON texts are valid JSON."""
    return {
        "toolName": tool,
        "parametersJson": f'{{"query": "q{n}"}}',
        "outputJson": f'{{"hits": [{n}]}}',
        "toolCallRef": f"call_{n}",
    }


class Execution(Client):
    """One agent execution of the implementation under test, named by its executionId."""

    def __init__(self, implementation: Implementation, execution_id: str | None = None) -> None:
        super().__init__(implementation, OPERATIONS)
        self.execution_id = execution_id or new_id()
        self.tracing = False  # whether this client began a trace it has not ended

    def send(self, op: str, args: object, *, serves: str | None = None) -> Checked:
        """Call any operation with any arguments (malformed ones too)."""
        checked = self.call(op, args, serves=serves or OPERATIONS.of(op).requirement)
        owner = _schema_owner(checked)
        return checked if owner is None else replace(checked, operation=replace(checked.operation, requirement=owner))

    def op(self, op: str, *, serves: str | None = None, **fields: object) -> Checked:
        """Call an operation on this execution with well-formed arguments (a suite bug otherwise)."""
        return self.request(op, fields, serves=serves)

    def request(self, op: str, fields: Mapping[str, object], *, serves: str | None = None) -> Checked:
        """Call an operation on this execution with well-formed `fields` besides executionId (a suite bug otherwise)."""
        args = {"executionId": self.execution_id, **fields}
        errors = schema_errors(f"{SPEC}/{op}.request.json", args)
        if errors:
            raise RuntimeError(f"the suite built a {op} request that breaks the schema: {'; '.join(errors)}")
        return self.send(op, args, serves=serves)

    def create(self, serves: str | None = None) -> Json:
        """Create the execution's provider; its serialized form."""
        provider: Json = self.op("create_provider", serves=serves).result["provider"]
        return provider

    def document(self, serves: str | None = None) -> Json:
        """The serialized provider (get_provider)."""
        provider: Json = self.op("get_provider", serves=serves).result["provider"]
        return provider

    def registers(self, serves: str | None = None) -> dict[str, Json]:
        """The provider's registers by key."""
        return registers(self.document(serves))

    def add(self, name: str, classification: str, serves: str | None = None) -> Json:
        """Get or add a register; the register."""
        register: Json = self.op("add_register", serves=serves, name=name, classification=classification).result["register"]
        return register

    def append(self, register: str, text: str, serves: str | None = None) -> Json:
        """Append a text item."""
        answer: Json = self.op("append_item", serves=serves, register=register, text=text).result
        return answer

    def record(self, record: Json, serves: str | None = None) -> Json:
        """Record a tool call in the manifest."""
        answer: Json = self.op("record_tool_call", serves=serves, record=record).result
        return answer

    def compose(self, serves: str | None = None) -> Json:
        """Compose the next request."""
        composed: Json = self.op("compose", serves=serves).result
        return composed

    def delivered(self, serves: str | None = None) -> Json:
        """Report the pending request delivered."""
        answer: Json = self.op("mark_delivered", serves=serves).result
        return answer

    def failed(self, serves: str | None = None) -> Json:
        """Report the pending request failed."""
        answer: Json = self.op("mark_failed", serves=serves).result
        return answer

    def begin(self, serves: str | None = None) -> int:
        """Begin the next invocation's trace; its number."""
        began = self.op("begin_trace", serves=serves)
        if began.code == "TRACE_OPEN" and not self.tracing:  # an open trace this execution never began: another's
            began = replace(began, serves=R.S7_3_LIST_OF_TRACES)
        invocation: int = began.result["invocation"]
        self.tracing = True
        return invocation

    def step(self, step: Json, serves: str | None = None) -> Json:
        """Add a step to the open trace."""
        answer: Json = self.op("add_trace_step", serves=serves, step=step).result
        return answer

    def end(self, tokens: Json, summary: Json, serves: str | None = None) -> Json:
        """End the open trace."""
        trace: Json = self.op("end_trace", serves=serves, tokens=tokens, summary=summary).result
        self.tracing = False
        return trace

    def traces(self, serves: str | None = None) -> list[Json]:
        """The execution's traces."""
        traces: list[Json] = self.op("get_traces", serves=serves).result["traces"]
        return traces

    def persist(self, session_id: str, serves: str | None = None) -> Json:
        """Persist the provider under a session id; the serialized provider saved."""
        provider: Json = self.op("persist", serves=serves, sessionId=session_id).result["provider"]
        return provider

    def end_execution(self) -> Checked:
        """End the execution (clean-up: the answer is not read)."""
        return self.op("end_execution")


def rehydrated(implementation: Implementation, serves: str | None = None, **source: object) -> Execution:
    """A new execution rehydrated from `sessionId=...` or `provider=...`."""
    execution = Execution(implementation)
    execution.op("rehydrate", serves=serves, **source).expect(serves or R.S6_2_PERSIST_AND_REHYDRATE)
    return execution


@contextmanager
def fresh_execution(implementation: Implementation, *, ended: bool = True) -> Iterator[Execution]:
    """A new execution with a new provider, ended afterwards."""
    execution = Execution(implementation)
    # A refusal fails 5.1; a new provider without its ToolCallManifest, or with a Session one, fails 4.4 (the schema).
    execution.op("create_provider").result  # noqa: B018 - reading the result checks it
    try:
        yield execution
    finally:
        if ended and implementation.broken is None:
            execution.end_execution()


def registers(document: Json) -> dict[str, Json]:
    """A serialized provider's registers by key, each as the document defines it (name, classification, items)."""
    return {key(register["name"]): register_view(register) for register in document["registers"]}


def input_lanes(composed: Json) -> Lanes:
    """The input items grouped by register key, each register's in order: text, or the tool call record."""
    lanes: Lanes = {}
    for item in composed["input"]:
        lanes.setdefault(key(item["register"]), []).append(item["text"] if item["type"] == "text" else item["record"])
    return lanes


def _lines(text: str) -> list[str]:
    """The non-blank lines of a text, each without its outer whitespace."""
    return [line.strip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n") if line.strip()]


def appears_in_order(text: str, items: Sequence[str]) -> bool:
    """Whether every item can be read in `text`, each after the one before.

    The instructions lane is text a rendering lays out as it likes (4.3 says the items are serialized into it, not
    how): an item is found when each of its non-blank lines occurs whole, in order, whatever the line ends, the
    indentation, the outer whitespace or a line's prefix (a list or quote mark) around it. A blank item is always found.
    """
    position = 0
    for item in items:
        for line in _lines(item):
            found = text.find(line, position)
            if found < 0:
                return False
            position = found + len(line)
    return True


def found_in(text: str, item: str) -> bool:
    """Whether a non-blank item can be read in `text` (as appears_in_order finds it)."""
    return bool(_lines(item)) and appears_in_order(text, [item])


# A provider most tests start from: two Session and two Consumable registers, and tool calls in the manifest.
SESSION_ITEMS: Final[dict[str, list[str]]] = {
    "Persona": ["You are a careful incident analyst.", "Answer in plain English."],
    "Rules": ["Never guess a root cause.", "Cite the log line."],
}
CONSUMABLE_ITEMS: Final[dict[str, list[str]]] = {
    "Inbox": ["Throughput dropped 30% on Feb 18.", "What changed?"],
    "Retrieved": ["config diff: pool size 200 -> 20"],
}


def held(execution: Execution, classification: str) -> dict[str, list[Any]]:
    """The items the provider holds in its registers of `classification` that hold any, by register key."""
    found = execution.registers().items()
    return {name: r["items"] for name, r in found if r["classification"] == classification and r["items"]}


def populate(execution: Execution, records: int = 2) -> Lanes:
    """Add SESSION_ITEMS, CONSUMABLE_ITEMS and `records` tool calls; return the Consumable lanes by register key."""
    plans = ((SESSION_ITEMS, "Session"), (CONSUMABLE_ITEMS, "Consumable"))
    for plan, classification in plans:
        for name in plan:
            execution.add(name, classification)
    for plan, _ in plans:
        for name, texts in plan.items():
            for text in texts:
                appended = execution.op("append_item", register=name, text=text)
                if appended.code == "REGISTER_NOT_FOUND":  # a register just added is gone: the provider kept only some
                    appended = replace(appended, serves=R.S4_2_MULTIPLE_REGISTERS)
                appended.result  # noqa: B018 - reading the result checks it
    for n in range(1, records + 1):
        execution.record(tool_call(n))
    lanes: Lanes = {key(name): list(texts) for name, texts in CONSUMABLE_ITEMS.items()}
    if records:
        lanes[key(MANIFEST)] = [tool_call(n) for n in range(1, records + 1)]
    return lanes


def expect_request(
    composed: Json,
    session: Mapping[str, Sequence[str]],
    consumable: Mapping[str, Sequence[object]],
    *,
    instructions: str | None = R.S4_3_SESSION_IN_INSTRUCTIONS,
    inputs: str | None = R.S4_3_CONSUMABLE_IN_INPUT_ITEMS,
    separate: str | None = R.S3_SEPARATE_PERSISTENT_AND_CONSUMABLE,
) -> None:
    """Check that the request carries every Session item in its instructions and exactly `consumable` as input items.

    Each part is charged to the requirement given for it; None leaves that part unchecked. Only 4.3's lane
    requirement asks for a register's items in their order; the others ask that each item is carried.
    """
    lane = composed["instructions"]
    if separate is not None:
        _check_separate(composed, session, consumable, separate)
    if instructions is not None:
        ordered = instructions == R.S4_3_SESSION_IN_INSTRUCTIONS
        for name, texts in session.items():
            check(
                instructions,
                appears_in_order(lane, texts) if ordered else all(appears_in_order(lane, [text]) for text in texts),
                f"the instructions lane lacks {name}'s items{', in order' if ordered else ''}",
                received=lane,
                expected={name: list(texts)},
            )
    if inputs is not None:
        wanted = {name: list(items) for name, items in consumable.items() if items}
        check(
            inputs,
            input_lanes(composed) == wanted,
            "the input items by register are not as expected",
            received=composed["input"],
            expected=wanted,
        )


def _check_separate(
    composed: Json, session: Mapping[str, Sequence[str]], consumable: Mapping[str, Sequence[object]], requirement: str
) -> None:
    session_texts = {text for texts in session.values() for text in texts}
    leaked = [item for item in composed["input"] if item.get("text") in session_texts]
    check(requirement, not leaked, "Session items are among the input items", received=leaked, expected=[])
    texts = [item for items in consumable.values() for item in items if isinstance(item, str)]
    inside = [text for text in texts if found_in(composed["instructions"], text)]
    check(requirement, not inside, "Consumable items are in the instructions lane", received=inside, expected=[])
