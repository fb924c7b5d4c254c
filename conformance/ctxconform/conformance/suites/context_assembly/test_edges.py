"""Inputs at the edges: hostile node ids, values of the wrong type, limits at equality, blank and degenerate content."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Final

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ctxconform.conformance.suites.context_assembly import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.context_assembly.client import (
    AssemblyClient,
    Json,
    ceil4,
    dropped_count,
    edge,
    estimate_readings,
    linear_tree,
    node,
    split_messages,
)
from ctxconform.conformance.suites.context_assembly.test_truncation import hundred_token_path
from ctxconform.conformance.testing import (
    DEGENERATE_TEXTS,
    NAME_PAIRS,
    Implementation,
    check,
    check_equal,
    degenerate_texts,
    hostile_names,
    requirement,
    sized_text,
    wrong_types,
    wrong_values,
)
from ctxconform.conformance.testing import edge as edge_class

TRAVERSE: Final = R.DIALOGUE_MODE_TRAVERSE_ROOT_TO_CURRENT
SHAPE: Final = R.DIALOGUE_MODE_MESSAGES_ARRAY
FILTER: Final = R.DIALOGUE_MODE_FILTER_EXCLUDED
MERGE: Final = R.DIALOGUE_MODE_MERGE_CONSECUTIVE_SAME_AUTHOR
ROLES: Final = R.DIALOGUE_MODE_AUTHOR_TYPE_ROLES
PRIMARY: Final = R.MULTI_SOURCE_EDGES_PRIMARY_MAIN_CONTENT
ONE: Final = R.GUARANTEES_AT_LEAST_ONE_MESSAGE
SYSTEM_LONG: Final = R.GUARANTEES_SYSTEM_CONTEXT_TOO_LONG
SYSTEM_WHOLE: Final = R.GUARANTEES_SYSTEM_CONTEXT_NEVER_TRUNCATED
ROLLING: Final = R.TRUNCATION_ROLLING_WINDOW_KEEPS_RECENT
ROLLING_UNIT: Final = R.TRUNCATION_ROLLING_WINDOW_UNIT
MIN_RECENT: Final = R.USER_PREFERENCES_MINIMUM_RECENT_NODES
TOKEN_BUFFER: Final = R.USER_PREFERENCES_TOKEN_BUFFER
TREE_LEVEL: Final = R.SYSTEM_CONTEXT_COMBINATION_TREE_LEVEL_APPLIES
FOUR: Final = R.TOKEN_ESTIMATION_FOUR_CHARS_PER_TOKEN
CODES: Final = ("invalidTree", "INVALID_REQUEST")
# A small response buffer for tests whose subject is not the buffer.
TB: Final = 10
ROOMY: Final = 128_000
NONE_TYPE: Final = type(None)


def answer(result: Json) -> Json:
    """What a result says, node ids aside: the system context, each message's role and content, document and flags."""
    said = {key: result.get(key) for key in ("systemContext", "document", "truncated")}
    said["droppedMessageCount"] = dropped_count(result)
    said["messages"] = [(m.get("role"), m.get("content")) for m in result.get("messages") or []]
    return said


def everything(result: Json) -> str:
    """Every text of a result, the messages' contents first."""
    texts = [str(m.get("content")) for m in result.get("messages") or []]
    return "\u0000".join([*texts, str(result.get("document") or ""), str(result.get("systemContext") or "")])


# --- identifiers ----------------------------------------------------------------------------------------------------

TAME: Final = ("r", "p", "q", "s")


def branching(ids: Sequence[str], *, branch_first: bool) -> Json:
    """The path ids[0] -> ids[1] -> ids[2], with ids[3] a sibling of ids[1] off the path, listed before it or after."""
    root, middle, current, sibling = ids
    path_nodes = [node(root, "ROOT question"), node(middle, "PATH answer", "model"), node(current, "PATH follow-up")]
    off = node(sibling, "BRANCH answer", "model")
    on_edges = [edge(root, middle), edge(middle, current)]
    nodes = [path_nodes[0], off, *path_nodes[1:]] if branch_first else [*path_nodes, off]
    edges = [edge(root, sibling), *on_edges] if branch_first else [*on_edges, edge(root, sibling)]
    return {"tree": {"mode": "dialogue", "nodes": nodes, "edges": edges}, "path": list(ids[:3]), "modelContextLimit": ROOMY}


def check_same_as_tame(client: AssemblyClient, ids: Sequence[str], *, branch_first: bool) -> None:
    """The path through `ids` assembles exactly as the same tree with tame ids."""
    tame = client.assemble(branching(TAME, branch_first=branch_first), serves=TRAVERSE).result
    request = branching(ids, branch_first=branch_first)
    renamed = client.assemble(request, serves=TRAVERSE).expect(TRAVERSE)
    check_equal(TRAVERSE, answer(renamed), answer(tame), f"the answer for ids {list(ids)!r} (the one for tame ids)", sent=request)


@edge_class("identifiers")
@requirement(TRAVERSE)
@pytest.mark.parametrize(("first", "second"), NAME_PAIRS, ids=[ascii(pair) for pair in NAME_PAIRS])
def test_confusable_ids_are_distinct_nodes(client: AssemblyClient, first: str, second: str) -> None:
    """A path node and an off-path sibling whose ids code may confuse (case, normal form, prefix): distinct nodes."""
    for on_path, off_path in ((first, second), (second, first)):
        for branch_first in (False, True):  # the sibling listed before the path node, and after it
            check_same_as_tame(client, ("r", on_path, "q", off_path), branch_first=branch_first)


@edge_class("identifiers")
@requirement(TRAVERSE)
@given(ids=st.lists(hostile_names().filter(bool), min_size=4, max_size=4, unique=True), branch_first=st.booleans())
@example(ids=["__proto__", "constructor", "toString", "hasOwnProperty"], branch_first=True)
@example(ids=["../x", "/etc/passwd", "a" * 300, "a\x00b"], branch_first=False)
def test_hostile_ids_are_opaque_names(implementation: Implementation, ids: list[str], branch_first: bool) -> None:
    """Every id renamed to a hostile one (dot segments, prototype names, controls, long ids): the same answer."""
    check_same_as_tame(AssemblyClient(implementation), ids, branch_first=branch_first)


@edge_class("identifiers")
@requirement(TRAVERSE)
@pytest.mark.parametrize("position", [0, 1, 3], ids=["root", "middle", "sibling"])
def test_empty_id_is_refused_or_opaque(client: AssemblyClient, position: int) -> None:
    """An empty id (the kit's schema forbids it, the spec does not): refused, or a name like any other."""
    ids = list(TAME)
    ids[position] = ""
    reply = client.send(branching(ids, branch_first=True), serves=TRAVERSE)
    if not reply.ok:
        reply.refused(TRAVERSE)
        return
    tame = client.assemble(branching(TAME, branch_first=True), serves=TRAVERSE).result
    check_equal(TRAVERSE, answer(reply.expect(TRAVERSE)), answer(tame), "the answer with an empty id (the one for tame ids)")


# --- wrong types ----------------------------------------------------------------------------------------------------

Setter = Callable[[Json, object], None]


def _set(*keys: Any) -> Setter:
    """A setter of the value at `keys` in a request (the last key is set)."""

    def put(request: Json, value: object) -> None:
        owner: Any = request
        for key in keys[:-1]:
            owner = owner[key]
        owner[keys[-1]] = value

    return put


# Positions where a value of another type is malformed: (setter, the types that are right or may mean "absent").
REFUSED: Final[dict[str, tuple[Setter, tuple[type, ...]]]] = {
    "tree": (_set("tree"), (dict,)),
    "mode": (_set("tree", "mode"), (str,)),
    "nodes": (_set("tree", "nodes"), (list,)),
    "edges": (_set("tree", "edges"), (list,)),
    "path": (_set("path"), (list,)),
    "path-item": (_set("path", 1), (str,)),
    "node-id": (_set("tree", "nodes", 1, "id"), (str,)),
    "author-type": (_set("tree", "nodes", 1, "authorType"), (str,)),
    "edge-target": (_set("tree", "edges", 0, "target"), (str,)),
    "edge-sources": (_set("tree", "edges", 0, "sources"), (list,)),
    "source-node-id": (_set("tree", "edges", 0, "sources", 0, "nodeId"), (str,)),
    "model-context-limit": (_set("modelContextLimit"), (int, NONE_TYPE)),
    "token-buffer": (_set("settings", "tokenBuffer"), (int, NONE_TYPE)),
    "minimum-recent-nodes": (_set("settings", "minimumRecentNodes"), (int, NONE_TYPE)),
    "tree-token-buffer": (_set("tree", "settings", "tokenBuffer"), (int, NONE_TYPE)),
    "truncation-strategy": (_set("settings", "truncationStrategy"), (str, NONE_TYPE)),
    "settings": (_set("settings"), (dict, NONE_TYPE)),
    "working-buffer": (_set("workingBuffer"), (str, NONE_TYPE)),
    "agent": (_set("agent"), (dict, NONE_TYPE)),
}


def wrong_base() -> Json:
    """A valid three-node dialogue with settings at both levels."""
    return linear_tree(["Q", "A", "Q2"], settings={"tokenBuffer": TB}, tree_settings={"minimumRecentNodes": 2})


@edge_class("wrong-types")
@requirement(SHAPE)
@pytest.mark.parametrize("position", list(REFUSED))
def test_value_of_the_wrong_type_is_refused(implementation: Implementation, position: str) -> None:
    """A value of another JSON type where the request types one: refused with a spec error, never a crash or a result."""
    setter, right = REFUSED[position]
    # A boolean first: isinstance(True, int) holds in Python. Every named wrong value is sent, none drawn by chance.
    for value in sorted(wrong_values(exclude=right), key=lambda v: type(v) is not bool):
        request = wrong_base()
        setter(request, value)
        AssemblyClient(implementation).send(request, serves=SHAPE).refused(SHAPE, *CODES)


# Positions where a value of another type may be ignored or refused, never a crash.
TOLERATED: Final[dict[str, Setter]] = {
    "metadata": _set("tree", "nodes", 1, "metadata"),
    "edge-type": _set("tree", "edges", 0, "edgeType"),
    "source-role": _set("tree", "edges", 0, "sources", 0, "role"),
    "buffer-mode-system-context": _set("tree", "bufferModeSystemContext"),
    "agent-configuration": _set("agent", "configuration"),
}


@edge_class("wrong-types")
@requirement(SHAPE)
@pytest.mark.parametrize("position", list(TOLERATED))
def test_value_of_the_wrong_type_never_crashes(implementation: Implementation, position: str) -> None:
    """A value of another type in an optional or open position: a spec error or a well-formed result, never a crash."""
    for value in wrong_values():
        request = wrong_base()
        request["agent"] = {}
        TOLERATED[position](request, value)
        reply = AssemblyClient(implementation).send(request, serves=SHAPE)
        if reply.ok:
            reply.expect(SHAPE)
        else:
            reply.refused(SHAPE)


# Text no node holds: what str(), JSON or a list read as characters makes of a value that is not text.
MADE_UP: Final = re.compile(r"None|null|True|true|False|false|x\W+y\W+z")
NOT_TEXT: Final[dict[str, tuple[Setter, object]]] = {
    "content-null": (_set("tree", "nodes", 1, "content"), None),
    "content-true": (_set("tree", "nodes", 1, "content"), True),
    "content-false": (_set("tree", "nodes", 1, "content"), False),
    "text-null": (_set("tree", "nodes", 1, "content"), {"type": "text", "text": None}),
    "type-null": (_set("tree", "nodes", 1, "content"), {"type": None}),
    "parts-string": (_set("tree", "nodes", 1, "content"), {"type": "mixed", "parts": "xyz"}),
    "parts-null": (_set("tree", "nodes", 1, "content"), {"type": "mixed", "parts": None}),
    "system-context-null": (_set("tree", "systemContext"), None),
    "system-context-true": (_set("tree", "systemContext"), True),
    "system-prompt-null": (_set("agent", "configuration", "systemPrompt"), None),
    "system-prompt-false": (_set("agent", "configuration", "systemPrompt"), False),
}


@edge_class("wrong-types")
@requirement(PRIMARY)
@pytest.mark.parametrize("case", list(NOT_TEXT))
def test_value_that_is_not_text_makes_no_text(client: AssemblyClient, case: str) -> None:
    """A content or system text that is null, a boolean or a string of parts: refused, or no text made up from it."""
    setter, value = NOT_TEXT[case]
    request = wrong_base()
    request["agent"] = {"configuration": {}}
    setter(request, value)
    reply = client.send(request, serves=PRIMARY)
    if not reply.ok:
        reply.refused(PRIMARY)
        return
    text = everything(reply.expect(PRIMARY))
    check(PRIMARY, MADE_UP.search(text) is None, f"text made up from {value!r}", sent=request, received=text)


FLAG_VALUES: Final = st.one_of(wrong_types(exclude=(bool,)), st.sampled_from(["false", "no", "0"]))


@edge_class("wrong-types")
@requirement(FILTER)
@given(flag=st.sampled_from(["excluded", "pruned"]), value=FLAG_VALUES)
@example(flag="excluded", value="false")
@example(flag="pruned", value=1)
def test_flag_of_another_type_is_not_true(implementation: Implementation, flag: str, value: object) -> None:
    """metadata.excluded or pruned that is not true ("false", 1, [...]): refused, or the node is kept."""
    request = linear_tree(["Q1", "KEPT-middle", "Q2"])
    request["tree"]["nodes"][1]["metadata"] = {flag: value}
    reply = AssemblyClient(implementation).send(request, serves=FILTER)
    if not reply.ok:
        reply.refused(FILTER, *CODES)
        return
    text = everything(reply.expect(FILTER))
    check(FILTER, "KEPT-middle" in text, f"a node whose {flag} is {value!r}, not true, is left out", received=text)


# --- boundaries -----------------------------------------------------------------------------------------------------

# (characters of the system text, the limit's distance from the system context's estimate): exactly at the limit, one
# token under and one over, for a length that is a multiple of four and one more (ceil(characters / 4)).
SYSTEM_OFFSETS: Final = (
    (1, "one-under", (SYSTEM_LONG, SYSTEM_WHOLE)),
    (0, "at", (SYSTEM_LONG, SYSTEM_WHOLE)),
    (-1, "one-over", (SYSTEM_LONG,)),
)
SYSTEM_CASES: Final = [
    pytest.param(length, offset, id=f"{length}-chars-{name}", marks=requirement(*owners))
    for length in (200, 201)
    for offset, name, owners in SYSTEM_OFFSETS
]


def check_zero_token_buffer(client: AssemblyClient) -> None:
    """A tokenBuffer of 0 reserves nothing: a one-token message fits a one-token limit, whole."""
    result = client.assemble(linear_tree(["Hi"], limit=1, settings={"tokenBuffer": 0}), serves=TOKEN_BUFFER).result
    check(TOKEN_BUFFER, result["truncated"] is False, "truncated with a tokenBuffer of 0 in a limit it fits", received=result)


def check_system_four_chars(client: AssemblyClient, system: str) -> None:
    """A system context (and one short message) in a budget they fill to at most 90% at four characters per token: whole."""
    budget = -(-(len(system) + len("Hi")) * 10 // 36) + 2
    request = linear_tree(["Hi"], system=system, limit=budget + TB, settings={"tokenBuffer": TB})
    result = client.assemble(request, serves=FOUR).result
    check(FOUR, result["truncated"] is False, f"truncated in a {budget}-token budget", received=result["truncated"])


@edge_class("boundaries")
@requirement(TREE_LEVEL, FOUR, TOKEN_BUFFER)
@pytest.mark.parametrize(("length", "offset"), SYSTEM_CASES)
def test_system_context_at_the_limit(client: AssemblyClient, length: int, offset: int) -> None:
    """A system context one token under, exactly at and one over the limit (no response buffer): too long only over it."""
    text = sized_text(length, fill="S")
    # What the limit is set from, each checked first by its own rule: no buffer with tokenBuffer 0, about four characters
    # per token, and the tree's text as the whole system context (read back: its length is what the limit rests on).
    check_zero_token_buffer(client)
    check_system_four_chars(client, text)
    request = linear_tree(["Hi"], system=text, settings={"tokenBuffer": 0})
    system = client.assemble(request, serves=TREE_LEVEL).expect(TREE_LEVEL).get("systemContext")
    alone = isinstance(system, str) and system.strip() == text
    check(TREE_LEVEL, alone, "the tree's systemContext, with no agent, is not the system context", received=system)
    request["modelContextLimit"] = ceil4(len(str(system))) + offset
    reply = client.assemble(request, serves=SYSTEM_LONG)
    if offset < 0:
        reply.refused(SYSTEM_LONG, "systemContextTooLong")
        return
    # Not too long: assembled, or refused as context that cannot fit with its message (recent-nodes-exceed-limit).
    check(SYSTEM_LONG, reply.ok or reply.code != "systemContextTooLong", "refused as too long at the limit", received=reply.raw)
    if not reply.ok:
        reply.refused(SYSTEM_LONG, "contextExceedsLimit")
        return
    check_equal(SYSTEM_WHOLE, reply.result.get("systemContext") or "", system, "the system context at the limit")


@edge_class("boundaries")
@requirement(ROLLING, ROLLING_UNIT)
@pytest.mark.parametrize("offset", [-1, 0, 1], ids=["one-under", "at", "one-over"])
def test_rolling_window_at_the_budget(client: AssemblyClient, offset: int) -> None:
    """rollingWindow, five 100-token messages, a budget of 300 tokens, one under or one over: whole, the ones that fit."""
    texts = hundred_token_path(5)
    settings = {"tokenBuffer": TB, "truncationStrategy": "rollingWindow", "minimumRecentNodes": 1}
    request = linear_tree(texts, limit=300 + offset + TB, settings=settings)
    split = split_messages(client.assemble(request, serves=ROLLING).result["messages"], texts, allow_cut=True)
    # The most recent run, within the budget (keeps-recent), checked first: the unit is about how much of it is whole.
    kept, n = split.kept, len(texts)
    check(ROLLING, bool(kept) and kept == list(range(n - len(kept), n)), "not the most recent run", received=kept)
    kept_texts = [texts[i] for i in kept if i not in split.cut] + split.cut_texts
    shown = {"kept": kept, "cut": split.cut}
    check(ROLLING, estimate_readings(kept_texts)[0] <= 300 + offset, "the kept messages exceed the budget", received=shown)
    whole = [i for i in split.kept if i not in split.cut]
    expected = [3, 4] if offset < 0 else [2, 3, 4]
    check_equal(ROLLING_UNIT, whole, expected, f"the whole messages kept in {300 + offset} tokens (the most that fit)")


@edge_class("boundaries")
@requirement(MIN_RECENT)
def test_minimum_recent_nodes_zero_is_one(client: AssemblyClient) -> None:
    """A minimumRecentNodes of 0 keeps what 1 keeps (0 behaves as 1), on a path whose last four do not fit the budget."""
    texts = hundred_token_path(6)
    answers = []
    for recent in (1, 0):
        request = linear_tree(texts, limit=250 + TB, settings={"tokenBuffer": TB, "minimumRecentNodes": recent})
        answers.append(answer(client.assemble(request, serves=MIN_RECENT).expect(MIN_RECENT)))
    check_equal(MIN_RECENT, answers[1], answers[0], "the answer with minimumRecentNodes 0 (the one with 1)")


# --- degenerate content ---------------------------------------------------------------------------------------------


def expected_roles(nodes: Sequence[tuple[str, str, bool]]) -> list[str]:
    """One role per run of same-author nodes left after filtering."""
    roles: list[str] = []
    for author, _, excluded in nodes:
        role = "user" if author == "human" else "assistant"
        if not excluded and (not roles or roles[-1] != role):
            roles.append(role)
    return roles


def check_tagged_twin(client: AssemblyClient, nodes: list[tuple[str, str, bool]]) -> None:
    """The same path with every node tagged: exactly the nodes not excluded show, in path order.

    Checked first, by the rules they are about: blank nodes cannot show which of them were filtered, nor their order.
    """
    tags = [f"<{i}>" for i in range(len(nodes))]
    request = linear_tree(tags, [author for author, _, _ in nodes])
    for index, (_, _, excluded) in enumerate(nodes):
        if excluded:
            request["tree"]["nodes"][index]["metadata"] = {"excluded": True}
    text = everything(client.assemble(request, serves=FILTER).result)
    present = [tag in text for tag in tags]
    kept = [not excluded for _, _, excluded in nodes]
    check_equal(FILTER, present, kept, "which nodes are in the result (those not excluded)", sent=request)
    positions = [text.find(tag) for tag in tags if tag in text]
    check(TRAVERSE, positions == sorted(positions), "the nodes are out of path order", sent=request, received=text)


@edge_class("degenerate")
@requirement(FILTER, MERGE, ROLES, TRAVERSE)
@given(
    nodes=st.lists(
        st.tuples(st.sampled_from(["human", "model"]), st.one_of(degenerate_texts(), st.just("TEXT")), st.booleans()),
        min_size=1,
        max_size=8,
    )
)
@example(nodes=[("human", "TEXT", False), ("model", " \n ", False), ("human", "TEXT", False)])
@example(nodes=[("human", "", False), ("human", "TEXT", False), ("model", "\n", True), ("human", "\t", False)])
def test_blank_nodes_are_nodes(implementation: Implementation, nodes: list[tuple[str, str, bool]]) -> None:
    """Empty and whitespace-only nodes are converted and merged like any others; only excluded nodes are filtered."""
    nodes = [*nodes[:-1], (*nodes[-1][:2], False)]  # at least the current position is left
    client = AssemblyClient(implementation)
    check_tagged_twin(client, nodes)
    texts = [f"<{i}>" if text == "TEXT" else text for i, (_, text, _) in enumerate(nodes)]
    request = linear_tree(texts, [author for author, _, _ in nodes])
    for index, (_, _, excluded) in enumerate(nodes):
        if excluded:
            request["tree"]["nodes"][index]["metadata"] = {"excluded": True}
    result = client.assemble(request, serves=FILTER).result
    text = everything(result)
    present = [f"<{i}>" in text for i, (_, content, _) in enumerate(nodes) if content == "TEXT"]
    kept = [not excluded for _, content, excluded in nodes if content == "TEXT"]
    check_equal(FILTER, present, kept, "which tagged nodes are in the result (those not excluded)", sent=request)
    roles = [m.get("role") for m in result["messages"]]
    check_equal(MERGE, len(roles), len(expected_roles(nodes)), "the number of messages (one per run)", sent=request)
    check_equal(ROLES, roles, expected_roles(nodes), "the roles of the runs", sent=request)


@edge_class("degenerate")
@requirement(ONE, ROLES, FILTER)
def test_single_blank_node(client: AssemblyClient) -> None:
    """A path of one node whose content is blank (each degenerate text in turn): one message, of its author's role."""
    for content in DEGENERATE_TEXTS:
        request = linear_tree([content], ["model"])
        # A refusal leaves out a node that is not excluded (filter-excluded); at-least-one-message is about results.
        result = client.assemble(request, serves=FILTER).expect(FILTER)
        check_equal(ONE, len(result["messages"]), 1, "the number of messages", sent=request)
        role = result["messages"][0].get("role")
        check_equal(ROLES, role, "assistant", "the role of a model node's message", sent=request)
