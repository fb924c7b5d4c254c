"""A content-provider execution as a test sees it: requests checked against the schemas, replies checked on reading."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance._outcome import CheckedReply
from ctxconform.conformance._protocol import Reply
from ctxconform.conformance._schemas import schema_errors
from ctxconform.conformance._unique import unique_hex
from ctxconform.conformance.exceptions import RequirementFailure

__all__ = [
    "CODES",
    "CONSUMABLE_ITEMS",
    "IN_INPUT",
    "IN_INSTRUCTIONS",
    "MANIFEST",
    "SEPARATE",
    "SESSION_ITEMS",
    "SHAPES",
    "SPEC",
    "Execution",
    "Outcome",
    "appears_in_order",
    "expect_request",
    "fresh_execution",
    "input_lanes",
    "key",
    "new_id",
    "populate",
    "registers",
    "rehydrated",
    "require",
    "tool_call",
]

SPEC: Final = "content-provider"
MANIFEST: Final = "ToolCallManifest"
Json = dict[str, Any]

# The requirement a malformed result breaks, per operation.
SHAPES: Final = {
    "create_provider": "content-provider/5.2/composed-solely-of-registers",
    "get_provider": "content-provider/5.2/composed-solely-of-registers",
    "end_execution": "content-provider/5.1/one-provider-per-execution",
    "add_register": "content-provider/4.2/classified",
    "append_item": "content-provider/4.2/ordered-line-items",
    "record_tool_call": "content-provider/4.4/manifest-records",
    "compose": "content-provider/4.3/consumable-in-input-items",
    "mark_delivered": "content-provider/4.3/consumable-cleared-after-delivery",
    "mark_failed": "content-provider/4.3/consumable-kept-until-delivered",
    "begin_trace": "content-provider/7.2/one-trace-per-invocation",
    "add_trace_step": "content-provider/7.4/steps-capture-diagnostics",
    "end_trace": "content-provider/7.3/token-totals",
    "get_traces": "content-provider/7.3/list-of-traces",
    "persist": "content-provider/6.2/persist-and-rehydrate",
    "rehydrate": "content-provider/6.2/persist-and-rehydrate",
}
# Every code error.json allows: the four of the origin's rules, the kit's and the protocol's.
CODES: Final = frozenset(
    {
        "UNKNOWN_CLASSIFICATION",
        "CLASSIFICATION_CONFLICT",
        "BLANK_NAME",
        "MANIFEST_MISSING",
        "MANIFEST_RECORDS_ONLY",
        "PROVIDER_EXISTS",
        "PROVIDER_NOT_FOUND",
        "REGISTER_NOT_FOUND",
        "NO_PENDING_REQUEST",
        "TRACE_OPEN",
        "NO_OPEN_TRACE",
        "SESSION_NOT_FOUND",
        "INVALID_REQUEST",
        "UNKNOWN_OP",
    }
)


def require(condition: object, requirement: str, message: str) -> None:
    """Fail `requirement` with `message` unless `condition` holds."""
    if not condition:
        raise RequirementFailure(requirement, message)


def new_id(prefix: str = "exec") -> str:
    """An execution or session id no other test uses."""
    return f"ctxconform-{prefix}-{unique_hex(16)}"


def key(name: str) -> str:
    """The key a register name is found by (names compare without regard to ASCII case)."""
    return name.lower()


def tool_call(n: int, tool: str = "search") -> Json:
    """A tool call record whose fields all carry `n`; the JSON texts are valid JSON."""
    return {
        "toolName": tool,
        "parametersJson": f'{{"query": "q{n}"}}',
        "outputJson": f'{{"hits": [{n}]}}',
        "toolCallRef": f"call_{n}",
    }


@dataclass(frozen=True)
class Outcome(CheckedReply):
    """A reply to one operation: a result checked against the operation's response schema when read, or an error."""

    def result(self, requirement: str | None = None) -> Json:
        """The result; fails `requirement` (the operation's own by default) when refused, its shape requirement when malformed."""
        shape = SHAPES.get(self.action, SHAPES["get_provider"])
        if not self.reply.ok:
            raise RequirementFailure(requirement or shape, f"{self.action} was refused with {self.reply.error}")
        errors = schema_errors(f"{SPEC}/{self.action}.response.json", self.reply.result)
        if errors:
            shape = _shape_broken(self.action, errors, shape)
            raise RequirementFailure(shape, f"{self.action} answered what its schema does not allow: {'; '.join(errors[:5])}")
        result: Json = self.reply.result
        return result


def _shape_broken(op: str, errors: list[str], default: str) -> str:
    # Some schema errors say which requirement broke: a provider without its manifest or with a Session one,
    # an instructions lane that is no text.
    if any("registers: " in e and "does not contain" in e for e in errors):
        return "content-provider/4.4/manifest-required"
    if any("/classification: 'Consumable' was expected" in e for e in errors):  # only the manifest's is a const
        return "content-provider/4.4/manifest-consumable"
    if op == "compose" and any(e.startswith("instructions") for e in errors):
        return "content-provider/4.3/session-in-instructions"
    return default


def check(op: str, reply: Reply, requirement: str) -> Outcome:
    """Check an error object against the error schema now (failing `requirement`); a result is checked when read."""
    if not reply.ok:
        errors = schema_errors(f"{SPEC}/error.json", reply.error)
        require(not errors, requirement, f"{op}: the error object does not match the schema: {'; '.join(errors)}")
    return Outcome(reply, op)


class Execution:
    """One agent execution of the implementation under test, named by its executionId."""

    def __init__(self, implementation: Implementation, execution_id: str | None = None) -> None:
        self.implementation = implementation
        self.execution_id = execution_id or new_id()

    def send(self, op: str, args: object, requirement: str | None = None) -> Outcome:
        """Call any operation with any arguments (malformed ones too)."""
        reply = self.implementation.call(SPEC, op, args)
        return check(op, reply, requirement or SHAPES.get(op, SHAPES["get_provider"]))

    def call(self, op: str, **fields: object) -> Outcome:
        """Call an operation on this execution with well-formed arguments (a suite bug otherwise)."""
        args = {"executionId": self.execution_id, **fields}
        errors = schema_errors(f"{SPEC}/{op}.request.json", args)
        assert not errors, f"the suite built a {op} request that breaks the schema: {'; '.join(errors)}"
        return self.send(op, args)

    def create(self) -> Json:
        """Create the execution's provider; its serialized form."""
        provider: Json = self.call("create_provider").result("content-provider/5.1/one-provider-per-execution")["provider"]
        return provider

    def document(self, requirement: str | None = None) -> Json:
        """The serialized provider (get_provider)."""
        provider: Json = self.call("get_provider").result(requirement)["provider"]
        return provider

    def registers(self, requirement: str | None = None) -> dict[str, Json]:
        """The provider's registers by key."""
        return registers(self.document(requirement))

    def add(self, name: str, classification: str, requirement: str = "content-provider/4.2/classified") -> Json:
        """Get or add a register; the register."""
        register: Json = self.call("add_register", name=name, classification=classification).result(requirement)["register"]
        return register

    def append(self, register: str, text: str, requirement: str = "content-provider/4.2/ordered-line-items") -> Json:
        """Append a text item."""
        return self.call("append_item", register=register, text=text).result(requirement)

    def record(self, record: Json, requirement: str = "content-provider/4.4/manifest-records") -> Json:
        """Record a tool call in the manifest."""
        return self.call("record_tool_call", record=record).result(requirement)

    def compose(self, requirement: str | None = None) -> Json:
        """Compose the next request."""
        return self.call("compose").result(requirement)

    def delivered(self, requirement: str = "content-provider/4.3/consumable-cleared-after-delivery") -> Json:
        """Report the pending request delivered."""
        return self.call("mark_delivered").result(requirement)

    def failed(self, requirement: str = "content-provider/4.3/consumable-kept-until-delivered") -> Json:
        """Report the pending request failed."""
        return self.call("mark_failed").result(requirement)

    def begin(self, requirement: str = "content-provider/7.2/one-trace-per-invocation") -> int:
        """Begin the next invocation's trace; its number."""
        invocation: int = self.call("begin_trace").result(requirement)["invocation"]
        return invocation

    def step(self, step: Json, requirement: str = "content-provider/7.4/steps-capture-diagnostics") -> Json:
        """Add a step to the open trace."""
        return self.call("add_trace_step", step=step).result(requirement)

    def end(self, tokens: Json, summary: Json, requirement: str = "content-provider/7.3/token-totals") -> Json:
        """End the open trace."""
        return self.call("end_trace", tokens=tokens, summary=summary).result(requirement)

    def traces(self, requirement: str = "content-provider/7.3/list-of-traces") -> list[Json]:
        """The execution's traces."""
        traces: list[Json] = self.call("get_traces").result(requirement)["traces"]
        return traces

    def persist(self, session_id: str, requirement: str = "content-provider/6.2/persist-and-rehydrate") -> Json:
        """Persist the provider under a session id; the serialized provider saved."""
        provider: Json = self.call("persist", sessionId=session_id).result(requirement)["provider"]
        return provider

    def end_execution(self) -> Outcome:
        """End the execution (clean-up)."""
        return self.call("end_execution")


def rehydrated(implementation: Implementation, requirement: str, **source: object) -> Execution:
    """A new execution rehydrated from `sessionId=...` or `provider=...`."""
    execution = Execution(implementation)
    execution.call("rehydrate", **source).result(requirement)
    return execution


@contextmanager
def fresh_execution(implementation: Implementation, ended: bool = True) -> Iterator[Execution]:
    """A new execution with a new provider, ended afterwards."""
    execution = Execution(implementation)
    # Only the refusal fails the set-up: what the new provider holds is for the tests to check.
    created = execution.call("create_provider")
    require(created.ok, "content-provider/5.1/one-provider-per-execution", f"create_provider was refused: {created.reply.error}")
    try:
        yield execution
    finally:
        if ended and implementation.broken is None:
            execution.end_execution()


def registers(document: Json) -> dict[str, Json]:
    """A serialized provider's registers by key."""
    return {key(register["name"]): register for register in document["registers"]}


def input_lanes(composed: Json) -> dict[str, list[object]]:
    """The input items grouped by register key, each register's in order: text, or the tool call record."""
    lanes: dict[str, list[object]] = {}
    for item in composed["input"]:
        lanes.setdefault(key(item["register"]), []).append(item["text"] if item["type"] == "text" else item["record"])
    return lanes


def appears_in_order(text: str, items: Sequence[str]) -> bool:
    """Whether every item occurs in `text`, each after the one before."""
    position = 0
    for item in items:
        found = text.find(item, position)
        if found < 0:
            return False
        position = found + len(item)
    return True


# A provider most tests start from: two Session and two Consumable registers, and tool calls in the manifest.
SESSION_ITEMS: Final[dict[str, list[str]]] = {
    "Persona": ["You are a careful incident analyst.", "Answer in plain English."],
    "Rules": ["Never guess a root cause.", "Cite the log line."],
}
CONSUMABLE_ITEMS: Final[dict[str, list[str]]] = {
    "Inbox": ["Throughput dropped 30% on Feb 18.", "What changed?"],
    "Retrieved": ["config diff: pool size 200 -> 20"],
}
SEPARATE: Final = "content-provider/3/separate-persistent-and-consumable"
IN_INSTRUCTIONS: Final = "content-provider/4.3/session-in-instructions"
IN_INPUT: Final = "content-provider/4.3/consumable-in-input-items"


def populate(execution: Execution, records: int = 2) -> dict[str, list[object]]:
    """Add SESSION_ITEMS, CONSUMABLE_ITEMS and `records` tool calls; return the Consumable lanes by register key."""
    for plan, classification in ((SESSION_ITEMS, "Session"), (CONSUMABLE_ITEMS, "Consumable")):
        for name, texts in plan.items():
            execution.add(name, classification)
            for text in texts:
                execution.append(name, text)
    for n in range(1, records + 1):
        execution.record(tool_call(n))
    lanes: dict[str, list[object]] = {key(name): list(texts) for name, texts in CONSUMABLE_ITEMS.items()}
    if records:
        lanes[key(MANIFEST)] = [tool_call(n) for n in range(1, records + 1)]
    return lanes


def expect_request(
    composed: Json,
    session: Mapping[str, Sequence[str]],
    consumable: Mapping[str, Sequence[object]],
    *,
    instructions_requirement: str = IN_INSTRUCTIONS,
    input_requirement: str = IN_INPUT,
) -> None:
    """Fail unless the request carries every Session item in its instructions and exactly `consumable` as input items."""
    instructions = composed["instructions"]
    for name, texts in session.items():
        require(
            appears_in_order(instructions, texts),
            instructions_requirement,
            f"the instructions lane lacks {name}'s items {texts} (in order): {instructions[:300]!r}",
        )
    lanes = input_lanes(composed)
    wanted = {name: items for name, items in consumable.items() if items}
    require(lanes == wanted, input_requirement, f"input items by register are {lanes}, expected {wanted}")
    session_texts = {text for texts in session.values() for text in texts}
    leaked = [item for item in composed["input"] if item.get("text") in session_texts]
    require(not leaked, SEPARATE, f"Session items among the input items: {leaked}")
    texts = [item for items in consumable.values() for item in items if isinstance(item, str)]
    require(not [t for t in texts if t in instructions], SEPARATE, "a Consumable item is in the instructions lane")
