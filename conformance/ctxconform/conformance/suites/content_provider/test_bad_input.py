"""Bad input: wrong types, missing and extra fields, unknown ops, blank names, huge values, invalid Unicode.

Each gets a spec error (never a crash) and leaves the provider, the traces and the pending request exactly as they were.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance._schemas import schema_errors
from ctxconform.conformance.suites.content_provider.client import (
    SHAPES,
    SPEC,
    Execution,
    fresh_execution,
    new_id,
    populate,
    require,
    tool_call,
)

requirement = pytest.mark.requirement
Json = Any

HUGE: Final = "x" * (1024 * 1024)
SURROGATES: Final = ("\ud800", "a\udc00b", "\ud83d")
TOKENS: Final = {"prompt": 1, "completion": 2, "total": 3}
WRONG_TYPES: Final = {"number": 7, "null": None, "true": True, "list": ["x"], "object": {"x": 1}, "float": 2.5}
# Each operation's arguments (besides executionId), well formed, against the seeded execution.
VALID: Final[dict[str, Json]] = {
    "get_provider": {},
    "end_execution": {},
    "add_register": {"name": "Notes", "classification": "Session"},
    "append_item": {"register": "Inbox", "text": "x"},
    "record_tool_call": {"record": tool_call(7)},
    "compose": {},
    "mark_delivered": {},
    "mark_failed": {},
    "begin_trace": {},
    "add_trace_step": {"step": {"kind": "x"}},
    "end_trace": {"tokens": TOKENS, "summary": {}},
    "get_traces": {},
    "persist": {"sessionId": "ctxconform-session-bad-input"},
}
# Operations that make an execution: their target is a new one, which must still have no provider afterwards.
CREATING: Final[dict[str, Json]] = {"create_provider": {}, "rehydrate": {"sessionId": "<seeded>"}}
STRING_FIELDS: Final = {"name", "classification", "register", "text", "sessionId", "executionId"}
NAME_FIELDS: Final = {"name", "register"}
UNKNOWN_OPS: Final = [
    "Compose",
    "COMPOSE",
    " compose",
    "compose\n",
    "compose\x00",
    "create",
    "createProvider",
    "create-provider",
    "add_item",
    "append",
    "clear",
    "clear_register",
    "remove_register",
    "delete_register",
    "deliver",
    "markDelivered",
    "save",
    "load",
    "shared_context",
    "assemble",
    "\u202ecompose",
    "com\u200bpose",
]


class Seeded:
    """An execution holding the usual registers, a persisted copy, an open trace with a step, and a pending request."""

    def __init__(self, implementation: Implementation) -> None:
        self.execution = Execution(implementation)
        self.execution.create()
        populate(self.execution)
        self.session = new_id("session")
        self.execution.persist(self.session)
        self.execution.begin()
        self.execution.step({"kind": "seed"})
        self.execution.compose()

    def state(self) -> tuple[object, object]:
        """What the tests must leave unchanged: the provider and the traces (a pending request shows in a later test)."""
        return self.execution.document(), self.execution.traces()

    def args(self, op: str) -> Json:
        """Well-formed arguments of `op` (a new execution for the operations that create one)."""
        if op in CREATING:
            base = {key: self.session if value == "<seeded>" else value for key, value in CREATING[op].items()}
            return {"executionId": new_id("bad-input"), **base}
        return {"executionId": self.execution.execution_id, **VALID[op]}


@pytest.fixture(scope="module")
def seeded(implementation: Implementation) -> Iterator[Seeded]:
    """One seeded execution for the whole module: no bad request may change it."""
    made = Seeded(implementation)
    yield made
    if implementation.broken is None:
        made.execution.end_execution()


def refused_unchanged(seeded: Seeded, op: str, args: Json, requirement_id: str, *codes: str) -> str:
    """Send `args`: it must be refused (with one of `codes` when given) and change nothing."""
    before = seeded.state()
    code = seeded.execution.send(op, args, requirement_id).refused(requirement_id, *codes)
    require(seeded.state() == before, requirement_id, f"the refused {op} {str(args)[:200]} changed the provider or traces")
    if op in CREATING and isinstance(args, dict) and isinstance(args.get("executionId"), str):
        target = Execution(seeded.execution.implementation, args["executionId"])
        target.send("get_provider", {"executionId": args["executionId"]}).refused(requirement_id)
    return code


def malformed(op: str, base: Json) -> dict[str, Json]:
    """Every way to break one operation's arguments: not an object, a field missing or extra, a field of a wrong type."""
    cases: dict[str, Json] = {"list": [base], "string": op, "null": None, "number": 1, "empty-object": {}}
    cases |= {f"missing-{field}": {k: v for k, v in base.items() if k != field} for field in base}
    cases |= (
        {"extra-field": {**base, "surplus": True}, "extra-sessionId": {**base, "sessionId": "s"}}
        if "sessionId" not in base
        else {}
    )
    cases["extra-items"] = {**base, "items": []}
    for field, value in base.items():
        for name, wrong in WRONG_TYPES.items():
            if not _same_type(wrong, value):
                cases[f"{field}-{name}"] = {**base, field: wrong}
        if isinstance(value, dict) and field != "step":
            cases[f"{field}-string"] = {**base, field: "x"}
    return cases


def _same_type(wrong: object, value: object) -> bool:
    return isinstance(wrong, dict) and isinstance(value, dict)


CASES: Final = [
    (op, name)
    for op in (*VALID, *CREATING)
    for name in malformed(op, {"executionId": "e", **(VALID[op] if op in VALID else CREATING[op])})
    if not (op == "add_trace_step" and name == "step-object")
]


@requirement(*sorted(set(SHAPES.values())))
@pytest.mark.parametrize(("op", "case"), CASES, ids=[f"{op}-{case}" for op, case in CASES])
def test_malformed_arguments_are_refused_and_change_nothing(seeded: Seeded, op: str, case: str) -> None:
    """Arguments that are not an object, lack a field, carry an extra one, or hold a wrong type get a spec error."""
    args = malformed(op, seeded.args(op))[case]
    assert schema_errors(f"{SPEC}/{op}.request.json", args), f"not malformed: {args!r}"
    refused_unchanged(seeded, op, args, SHAPES[op])


@requirement("content-provider/5.1/one-provider-per-execution")
@pytest.mark.parametrize("op", UNKNOWN_OPS, ids=repr)
def test_an_unknown_operation_is_refused(seeded: Seeded, op: str) -> None:
    """An operation content-provider does not have, however close to one, is refused with UNKNOWN_OP and does nothing."""
    refused_unchanged(seeded, op, seeded.args("compose"), "content-provider/5.1/one-provider-per-execution", "UNKNOWN_OP")


@requirement("content-provider/4.2/stable-name")
@pytest.mark.parametrize("name", ["", " ", "\t\n", "\u2003"], ids=repr)
@pytest.mark.parametrize("op", ["add_register", "append_item"])
def test_blank_register_names_are_refused_everywhere(seeded: Seeded, op: str, name: str) -> None:
    """A blank register name is BLANK_NAME in add_register (in append_item, BLANK_NAME or REGISTER_NOT_FOUND)."""
    field = "name" if op == "add_register" else "register"
    codes = ("BLANK_NAME",) if op == "add_register" else ("BLANK_NAME", "REGISTER_NOT_FOUND")
    refused_unchanged(seeded, op, {**seeded.args(op), field: name}, "content-provider/4.2/stable-name", *codes)


@requirement(*sorted(set(SHAPES.values())))
@pytest.mark.parametrize(
    ("op", "field"),
    [
        ("get_provider", "executionId"),
        ("add_register", "name"),
        ("append_item", "register"),
        ("persist", "sessionId"),
        ("rehydrate", "sessionId"),
        ("create_provider", "executionId"),
    ],
)
@pytest.mark.parametrize("size", [257, 1024 * 1024])
def test_huge_identifiers_are_refused(seeded: Seeded, op: str, field: str, size: int) -> None:
    """Names and ids longer than 256 characters (up to a megabyte) are refused, and nothing changes."""
    refused_unchanged(seeded, op, {**seeded.args(op), field: "N" * size}, SHAPES[op])


@requirement("content-provider/5.3/state-holders-only", "content-provider/7.4/step-schema-deferred")
@pytest.mark.parametrize(
    ("op", "args"),
    [
        ("append_item", {"register": "Persona", "text": HUGE + "!"}),
        ("record_tool_call", {"record": {**tool_call(8), "outputJson": '"' + HUGE + '"'}}),
        ("add_trace_step", {"step": {"blob": HUGE}}),
    ],
    ids=["item", "tool-output", "step"],
)
def test_huge_content_is_kept_exactly_or_refused(implementation: Implementation, op: str, args: Json) -> None:
    """A megabyte of content is either kept exactly or refused with a spec error and no change; never a crash."""
    with fresh_execution(implementation) as execution:
        populate(execution, records=0)
        execution.begin()
        before = (execution.document(), execution.traces())
        outcome = execution.send(op, {"executionId": execution.execution_id, **args})
        rid = "content-provider/7.4/step-schema-deferred" if op == "add_trace_step" else "content-provider/5.3/state-holders-only"
        if not outcome.ok:
            require((execution.document(), execution.traces()) == before, rid, f"a refused huge {op} changed the execution")
            return
        outcome.result(rid)
        held = [item for register in execution.document()["registers"] for item in register["items"]]
        held += execution.traces()[0]["steps"]
        given = args.get("text", args.get("record", args.get("step")))
        require(given in held, rid, f"a huge {op} was accepted but not kept exactly")


def unicode_cases(seeded: Seeded, text: str) -> dict[str, tuple[str, Json]]:
    """Arguments holding text that is not valid Unicode (a lone surrogate), in every string field."""
    return {
        "name": ("add_register", {**seeded.args("add_register"), "name": f"Notes{text}"}),
        "register": ("append_item", {**seeded.args("append_item"), "register": text}),
        "text": ("append_item", {**seeded.args("append_item"), "text": f"hello {text}"}),
        "toolName": ("record_tool_call", {**seeded.args("record_tool_call"), "record": {**tool_call(1), "toolName": text}}),
        "outputJson": ("record_tool_call", {**seeded.args("record_tool_call"), "record": {**tool_call(1), "outputJson": text}}),
        "step-value": ("add_trace_step", {**seeded.args("add_trace_step"), "step": {"kind": text}}),
        "step-key": ("add_trace_step", {**seeded.args("add_trace_step"), "step": {text: 1}}),
        "summary": ("end_trace", {**seeded.args("end_trace"), "summary": {"status": text}}),
        "sessionId": ("persist", {**seeded.args("persist"), "sessionId": f"s{text}"}),
        "executionId": ("create_provider", {"executionId": f"e{text}"}),
    }


UNICODE_FIELDS: Final = [
    "name",
    "register",
    "text",
    "toolName",
    "outputJson",
    "step-value",
    "step-key",
    "summary",
    "sessionId",
    "executionId",
]


@requirement(*sorted(set(SHAPES.values())))
@pytest.mark.parametrize("text", SURROGATES, ids=["high", "low-inside", "half-emoji"])
@pytest.mark.parametrize("field", UNICODE_FIELDS)
def test_invalid_unicode_is_refused_and_changes_nothing(seeded: Seeded, field: str, text: str) -> None:
    """A lone surrogate (such as the JSON escape of U+D800) in any text field is a spec error, never a crash, no change."""
    op, args = unicode_cases(seeded, text)[field]
    refused_unchanged(seeded, op, args, SHAPES[op])


def nested(depth: int) -> Json:
    """Lists and objects nested `depth` levels deep."""
    value: Json = "x"
    for level in range(depth):
        value = [value] if level % 2 else {"v": value}
    return value


@requirement(*sorted(set(SHAPES.values())))
@pytest.mark.parametrize("depth", [50, 500])
@pytest.mark.parametrize(("op", "field"), [("append_item", "text"), ("add_register", "name"), ("end_trace", "tokens")])
def test_deeply_nested_values_are_refused(seeded: Seeded, op: str, field: str, depth: int) -> None:
    """A deeply nested list or object in place of a string or counts gets an error, not a crash."""
    refused_unchanged(seeded, op, {**seeded.args(op), field: nested(depth)}, SHAPES[op])


@requirement("content-provider/7.3/token-totals")
@pytest.mark.parametrize(
    "tokens",
    [
        {"prompt": -1, "completion": 0, "total": 0},
        {"prompt": 1.5, "completion": 0, "total": 1},
        {"prompt": "1", "completion": 0, "total": 1},
        {"prompt": True, "completion": 0, "total": 1},
        {"prompt": 1, "completion": 1},
        {"prompt": 1, "completion": 1, "total": 2, "bonus": 3},
        {"prompt": 1, "completion": 1, "total": None},
    ],
    ids=["negative", "fraction", "string", "bool", "no-total", "unknown-count", "null"],
)
def test_malformed_token_totals_are_refused(seeded: Seeded, tokens: Json) -> None:
    """Token totals are whole, non-negative prompt, completion and total (and reasoning, cached): anything else is refused."""
    refused_unchanged(seeded, "end_trace", {**seeded.args("end_trace"), "tokens": tokens}, "content-provider/7.3/token-totals")


scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8)
)
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8
)


@st.composite
def broken_arguments(draw: st.DrawFn) -> tuple[str, str, Json]:
    """An operation and arguments with one field removed, added or replaced by a value of the wrong type."""
    op = draw(st.sampled_from(sorted(VALID)))
    base = {"executionId": "<seeded>", **VALID[op]}
    how = draw(st.sampled_from(["drop", "add", "replace"] if len(base) > 1 else ["add", "replace"]))
    field = draw(st.sampled_from(sorted(base)))
    if how == "drop":
        return op, field, {k: v for k, v in base.items() if k != field}
    if how == "add":
        extra = draw(st.text(min_size=1, max_size=10).filter(lambda name: name not in base))
        return op, extra, {**base, extra: draw(json_values)}
    wrong = draw(json_values.filter(lambda v: not (isinstance(v, str) if field in STRING_FIELDS else isinstance(v, dict))))
    return op, field, {**base, field: wrong}


@requirement(*sorted(set(SHAPES.values())))
@given(broken=broken_arguments())
def test_any_broken_arguments_are_refused_and_change_nothing(seeded: Seeded, broken: tuple[str, str, Json]) -> None:
    """Whatever field is dropped, added or given a wrong type, the call gets a spec error and changes nothing."""
    op, _, args = broken
    args = {k: seeded.execution.execution_id if v == "<seeded>" else v for k, v in args.items()}
    if not schema_errors(f"{SPEC}/{op}.request.json", args):
        return  # a replacement that happens to be valid (such as another well-formed step object) is not bad input
    refused_unchanged(seeded, op, args, SHAPES[op])
