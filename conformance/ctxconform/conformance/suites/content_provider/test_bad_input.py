"""Bad input: wrong types, missing and extra fields, blank names, huge values, invalid Unicode.

Each gets a spec error (never a crash) and leaves the provider, the traces and the pending request exactly as they were.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance.suites.content_provider import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.content_provider.client import (
    OPERATIONS,
    SPEC,
    Execution,
    as_given,
    fresh_execution,
    new_id,
    populate,
    token_totals,
    tool_call,
)
from ctxconform.conformance.testing import Implementation, check, check_equal, requirement, schema_errors

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
        """What bad input must leave unchanged: the provider and the traces."""
        return self.execution.document(), self.execution.traces()

    def args(self, op: str) -> Json:
        """Well-formed arguments of `op` (a new execution for the operations that create one)."""
        if op in CREATING:
            base = {key: self.session if value == "<seeded>" else value for key, value in CREATING[op].items()}
            return {"executionId": new_id("bad-input"), **base}
        return {"executionId": self.execution.execution_id, **VALID[op]}

    def end(self) -> None:
        """End the seeded execution (unless the implementation broke)."""
        if self.execution.implementation.broken is None:
            self.execution.end_execution()


@contextmanager
def seeded_execution(implementation: Implementation) -> Iterator[Seeded]:
    """A seeded execution of its own, ended afterwards."""
    made = Seeded(implementation)
    try:
        yield made
    finally:
        made.end()


@pytest.fixture
def seeded(implementation: Implementation) -> Iterator[Seeded]:
    """A seeded execution of the test's own: no bad request may change it."""
    with seeded_execution(implementation) as made:
        yield made


def refused_unchanged(seeded: Seeded, op: str, args: Json, requirement_id: str, *codes: str) -> str:
    """Check that `args` is refused (with one of `codes` when given) and changes nothing."""
    before = seeded.state()
    code = seeded.execution.send(op, args, serves=requirement_id).refused(requirement_id, *codes)
    check_equal(requirement_id, seeded.state(), before, f"the provider and traces after the refused {op}", sent=args)
    if op in CREATING and isinstance(args, dict) and isinstance(args.get("executionId"), str):
        target = Execution(seeded.execution.implementation, args["executionId"])
        target.send("get_provider", {"executionId": args["executionId"]}, serves=requirement_id).refused(requirement_id)
    return code


def served_by(op: str, field: str, value: object) -> str:
    """The requirement a malformed value of `field` breaks: an item that is a container breaks 5.2, else the operation's."""
    if op == "append_item" and field == "text" and isinstance(value, (list, dict)):
        return R.S5_2_REGISTERS_ONLY_CONTAINMENT
    return OPERATIONS.of(op).requirement


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


def case_params() -> list[Any]:
    """One param per operation and way to break its arguments, declaring the requirement that case breaks."""
    params = []
    for op in (*VALID, *CREATING):
        base = {"executionId": "e", **(VALID[op] if op in VALID else CREATING[op])}
        for name, args in malformed(op, base).items():
            if op == "add_trace_step" and name.startswith("step-"):
                continue  # the step schema is deferred (7.4): test_a_step_that_is_not_an_object_is_refused_or_kept
            field = name.split("-", 1)[0]
            rid = served_by(op, field, args.get(field) if isinstance(args, dict) else None)
            params.append(pytest.param(op, name, rid, id=f"{op}-{name}", marks=requirement(rid)))
    return params


@pytest.mark.parametrize(("op", "case", "rid"), case_params())
def test_malformed_arguments_are_refused_and_change_nothing(seeded: Seeded, op: str, case: str, rid: str) -> None:
    """Arguments that are not an object, lack a field, carry an extra one, or hold a wrong type get a spec error."""
    args = malformed(op, seeded.args(op))[case]
    if not schema_errors(f"{SPEC}/{op}.request.json", args):
        raise RuntimeError(f"the suite's malformed case {op}-{case} is well formed: {args!r}")
    refused_unchanged(seeded, op, args, rid)


@requirement(R.S4_2_STABLE_NAME)
@pytest.mark.parametrize("name", ["", " ", "\t\n", "\u2003"], ids=repr)
@pytest.mark.parametrize("op", ["add_register", "append_item"])
def test_blank_register_names_are_refused_everywhere(seeded: Seeded, op: str, name: str) -> None:
    """A blank register name is BLANK_NAME in add_register (in append_item, BLANK_NAME or REGISTER_NOT_FOUND)."""
    field = "name" if op == "add_register" else "register"
    codes = ("BLANK_NAME",) if op == "add_register" else ("BLANK_NAME", "REGISTER_NOT_FOUND")
    refused_unchanged(seeded, op, {**seeded.args(op), field: name}, R.S4_2_STABLE_NAME, *codes)


IDENTIFIERS: Final = [
    ("get_provider", "executionId"),
    ("add_register", "name"),
    ("append_item", "register"),
    ("persist", "sessionId"),
    ("rehydrate", "sessionId"),
    ("create_provider", "executionId"),
]


@pytest.mark.parametrize(
    ("op", "field"),
    [pytest.param(op, field, marks=requirement(OPERATIONS.of(op).requirement), id=f"{op}-{field}") for op, field in IDENTIFIERS],
)
@pytest.mark.parametrize("size", [257, 1024 * 1024])
def test_huge_identifiers_are_refused(seeded: Seeded, op: str, field: str, size: int) -> None:
    """Names and ids longer than 256 characters (up to a megabyte) are refused, and nothing changes."""
    refused_unchanged(seeded, op, {**seeded.args(op), field: "N" * size}, OPERATIONS.of(op).requirement)


@pytest.mark.parametrize(
    ("op", "args", "rid"),
    [
        pytest.param(
            "append_item",
            {"register": "Persona", "text": HUGE + "!"},
            R.S5_3_STATE_HOLDERS_ONLY,
            id="item",
            marks=requirement(R.S5_3_STATE_HOLDERS_ONLY),
        ),
        pytest.param(
            "record_tool_call",
            {"record": {**tool_call(8), "outputJson": '"' + HUGE + '"'}},
            R.S5_3_STATE_HOLDERS_ONLY,
            id="tool-output",
            marks=requirement(R.S5_3_STATE_HOLDERS_ONLY),
        ),
        pytest.param(
            "add_trace_step",
            {"step": {"blob": HUGE}},
            R.S7_4_STEP_SCHEMA_DEFERRED,
            id="step",
            marks=requirement(R.S7_4_STEP_SCHEMA_DEFERRED),
        ),
    ],
)
def test_huge_content_is_kept_exactly_or_refused(implementation: Implementation, op: str, args: Json, rid: str) -> None:
    """A megabyte of content is either kept exactly or refused with a spec error and no change; never a crash."""
    with fresh_execution(implementation) as execution:
        populate(execution, records=0)
        execution.begin()
        before = (execution.document(), execution.traces())
        outcome = execution.send(op, {"executionId": execution.execution_id, **args}, serves=rid)
        if not outcome.ok:
            check_equal(rid, (execution.document(), execution.traces()), before, f"the execution after a refused huge {op}")
            return
        outcome.expect(rid)
        execution.end({"prompt": 0, "completion": 0, "total": 0}, {})
        held = [item for register in execution.document()["registers"] for item in register["items"]]
        held += [step for trace in execution.traces() for step in trace["steps"]]
        given = args.get("text", args.get("record", args.get("step")))
        check(rid, given in held, f"a huge {op} was accepted but not kept exactly")


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


# Each field, and the operation unicode_cases sends it to.
UNICODE_FIELDS: Final = {
    "name": "add_register",
    "register": "append_item",
    "text": "append_item",
    "toolName": "record_tool_call",
    "outputJson": "record_tool_call",
    "step-value": "add_trace_step",
    "step-key": "add_trace_step",
    "summary": "end_trace",
    "sessionId": "persist",
    "executionId": "create_provider",
}


@pytest.mark.parametrize("text", SURROGATES, ids=["high", "low-inside", "half-emoji"])
@pytest.mark.parametrize(
    "field", [pytest.param(field, marks=requirement(OPERATIONS.of(op).requirement)) for field, op in UNICODE_FIELDS.items()]
)
def test_invalid_unicode_is_refused_and_changes_nothing(seeded: Seeded, field: str, text: str) -> None:
    """A lone surrogate (such as the JSON escape of U+D800) in any text field is a spec error, never a crash, no change."""
    op, args = unicode_cases(seeded, text)[field]
    refused_unchanged(seeded, op, args, OPERATIONS.of(op).requirement)


def nested(depth: int) -> Json:
    """Lists and objects nested `depth` levels deep."""
    value: Json = "x"
    for level in range(depth):
        value = [value] if level % 2 else {"v": value}
    return value


NESTED: Final = [("append_item", "text"), ("add_register", "name"), ("end_trace", "tokens")]


@pytest.mark.parametrize("depth", [50, 500])
@pytest.mark.parametrize(
    ("op", "field"),
    [pytest.param(op, field, marks=requirement(served_by(op, field, nested(1))), id=f"{op}-{field}") for op, field in NESTED],
)
def test_deeply_nested_values_are_refused(seeded: Seeded, op: str, field: str, depth: int) -> None:
    """A deeply nested list or object in place of a string or counts gets an error, not a crash."""
    refused_unchanged(seeded, op, {**seeded.args(op), field: nested(depth)}, served_by(op, field, nested(depth)))


@requirement(R.S7_3_TOKEN_TOTALS)
@pytest.mark.parametrize(
    "tokens",
    [
        {"prompt": -1, "completion": 0, "total": 0},
        {"prompt": 1.5, "completion": 0, "total": 1},
        {"prompt": "1", "completion": 0, "total": 1},
        {"prompt": True, "completion": 0, "total": 1},
        {"prompt": 1, "completion": 1, "total": 2, "reasoning": -3},
    ],
    ids=["negative", "fraction", "string", "bool", "negative-reasoning"],
)
def test_malformed_token_totals_are_refused(seeded: Seeded, tokens: Json) -> None:
    """Token counts are whole and non-negative: a negative, fractional, string or boolean count is refused."""
    refused_unchanged(seeded, "end_trace", {**seeded.args("end_trace"), "tokens": tokens}, R.S7_3_TOKEN_TOTALS)


@requirement(R.S7_3_TOKEN_TOTALS)
@pytest.mark.parametrize(
    "tokens",
    [
        {"prompt": 1, "completion": 1},
        {"prompt": 1, "completion": 1, "total": 2, "bonus": 3},
        {"prompt": 1, "completion": 1, "total": None},
    ],
    ids=["no-total", "unknown-count", "null-total"],
)
def test_token_totals_beyond_the_kits_are_refused_or_kept(seeded: Seeded, tokens: Json) -> None:
    """Totals without a total, or with a count the kit does not name, are refused or kept.

    Refused, they change nothing (the reference); 7.3 naming no counts, they may end the trace with the counts given
    (a total computed, another count kept).
    """
    rid = R.S7_3_TOKEN_TOTALS
    args = {**seeded.args("end_trace"), "tokens": tokens}
    before = seeded.state()
    outcome = seeded.execution.send("end_trace", args, serves=rid)
    if not outcome.ok:
        outcome.refused(rid)
        check_equal(rid, seeded.state(), before, "the provider and traces after the refused end_trace", sent=args)
        return
    given = {name: count for name, count in tokens.items() if count is not None}
    for trace in (outcome.expect(rid), seeded.execution.traces()[-1]):
        check_equal(rid, as_given(token_totals(trace.get("tokens")), given), given, "the token totals given, kept")


scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8)
)
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8
)


@st.composite
def broken_arguments(draw: st.DrawFn, op: str) -> tuple[str, Json]:
    """Arguments of `op` with one field removed, added or replaced by a value of the wrong type."""
    base = {"executionId": "<seeded>", **VALID[op]}
    how = draw(st.sampled_from(["drop", "add", "replace"] if len(base) > 1 else ["add", "replace"]))
    field = draw(st.sampled_from(sorted(base)))
    if how == "drop":
        return field, {k: v for k, v in base.items() if k != field}
    if how == "add":
        extra = draw(st.text(min_size=1, max_size=10).filter(lambda name: name not in base))
        return extra, {**base, extra: draw(json_values)}
    wrong = draw(json_values.filter(lambda v: not (isinstance(v, str) if field in STRING_FIELDS else isinstance(v, dict))))
    return field, {**base, field: wrong}


@pytest.mark.parametrize("op", [pytest.param(op, marks=requirement(OPERATIONS.of(op).requirement)) for op in VALID])
@given(data=st.data())
def test_any_broken_arguments_are_refused_and_change_nothing(
    implementation: Implementation, op: str, data: st.DataObject
) -> None:
    """Whatever field is dropped, added or given a wrong type, the call gets a spec error and changes nothing."""
    field, args = data.draw(broken_arguments(op))
    if served_by(op, field, args.get(field)) != OPERATIONS.of(op).requirement:
        return  # an item that is a container: test_an_item_that_is_a_container_is_refused's case
    with seeded_execution(implementation) as seeded:
        args = {k: seeded.execution.execution_id if v == "<seeded>" else v for k, v in args.items()}
        if not schema_errors(f"{SPEC}/{op}.request.json", args):
            return  # a replacement that happens to be valid (such as another well-formed step object) is not bad input
        refused_unchanged(seeded, op, args, OPERATIONS.of(op).requirement)
