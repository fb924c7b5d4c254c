"""Dialogue mode: roles, traversal of the active path, exclusion, merging, non-text content, context sources."""

from __future__ import annotations

import json
import re
from typing import Final

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ctxconform.conformance.suites.context_assembly import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.context_assembly.client import (
    AssemblyClient,
    Json,
    dropped_count,
    edge,
    estimate_readings,
    linear_tree,
    node,
    whitespace_separator,
)
from ctxconform.conformance.testing import Implementation, check, check_equal, requirement

ROLES: Final = R.DIALOGUE_MODE_AUTHOR_TYPE_ROLES
TRAVERSE: Final = R.DIALOGUE_MODE_TRAVERSE_ROOT_TO_CURRENT
MERGE: Final = R.DIALOGUE_MODE_MERGE_CONSECUTIVE_SAME_AUTHOR
SEPARATOR: Final = R.DIALOGUE_MODE_MERGE_SEPARATOR
FILTER: Final = R.DIALOGUE_MODE_FILTER_EXCLUDED
NON_TEXT: Final = R.DIALOGUE_MODE_NON_TEXT_CONTENT
FITS: Final = R.DIALOGUE_MODE_TRUNCATE_ONLY_IF_NEEDED
PRIMARY: Final = R.MULTI_SOURCE_EDGES_PRIMARY_MAIN_CONTENT
CONTEXT: Final = R.MULTI_SOURCE_EDGES_CONTEXT_BEFORE_PRIMARY
ORDER: Final = R.MULTI_SOURCE_EDGES_PROCESSING_ORDER
WITHIN_ROLE: Final = R.MULTI_SOURCE_EDGES_ORDER_WITHIN_ROLE
WHITESPACE: Final = R.MULTI_SOURCE_EDGES_PRIMARY_CONTENT_WHITESPACE
BRANCH: Final = R.EXCLUSION_FILTERING_ANNOTATION_BRANCH
EXCLUDED: Final = R.EXCLUSION_FILTERING_EXCLUDED_FLAG
PRUNED: Final = R.EXCLUSION_FILTERING_PRUNED_FLAG
ANNOTATION: Final = R.EXCLUSION_FILTERING_ANNOTATION_EDGE_EXCLUDED
INCLUSION: Final = R.EXCLUSION_FILTERING_ANNOTATION_EXPLICIT_INCLUSION
NOTHING_LEFT: Final = R.GUARANTEES_NOTHING_LEFT_AFTER_FILTERING
FLAG: Final = R.GUARANTEES_TRUNCATED_FLAG
FOUR: Final = R.TOKEN_ESTIMATION_FOUR_CHARS_PER_TOKEN
DROPPED: Final = R.GUARANTEES_DROPPED_MESSAGE_COUNT
PLACEHOLDER: Final = re.compile(r"\[[^\[\]]*\b(image|audio)\b[^\[\]]*\]", re.IGNORECASE)


def pairs(result: Json) -> list[tuple[str, str]]:
    """The messages as (role, content)."""
    return [(m["role"], m["content"]) for m in result["messages"]]


def roles(result: Json) -> list[str]:
    """The messages' roles."""
    return [m["role"] for m in result["messages"]]


def contents(result: Json) -> list[str]:
    """The messages' contents."""
    return [m["content"] for m in result["messages"]]


def merged_ok(content: str, parts: list[str]) -> bool:
    """Whether `content` is `parts` joined under a reading of merge-separator (a separator made only of whitespace)."""
    return whitespace_separator(content, parts) is not None


def in_order(text: str, parts: list[str]) -> bool:
    """Whether every part appears in `text`, in the given order."""
    positions = [text.find(part) for part in parts]
    return -1 not in positions and positions == sorted(positions)


def check_path_order(result: Json, texts: list[str]) -> None:
    """The nodes' contents come in path order (checked first, so that later checks may rely on the order)."""
    everything = "\u0000".join(contents(result))
    check(TRAVERSE, in_order(everything, texts), "the messages are not in path order", received=contents(result), expected=texts)


def within_four_chars(texts: list[str], budget: int) -> bool:
    """Whether the texts are at most 90% of four characters per token of the budget (four-chars-per-token's range)."""
    return sum(map(len, texts)) * 10 <= budget * 4 * 9


@requirement(ROLES, PRIMARY, FITS, TRAVERSE)
def test_roles_follow_author_type(client: AssemblyClient) -> None:
    """Roles: human -> user, model -> assistant; each node's content is its message's content."""
    request = linear_tree(["Hello?", "Hi, how can I help?", "Tell me a story."])
    result = client.assemble(request, serves=ROLES).result
    check_path_order(result, ["Hello?", "Hi, how can I help?", "Tell me a story."])
    check_equal(ROLES, roles(result), ["user", "assistant", "user"], "the message roles", sent=request)
    check_equal(PRIMARY, contents(result), ["Hello?", "Hi, how can I help?", "Tell me a story."], "the message contents")
    flags = {"truncated": result["truncated"], "droppedMessageCount": dropped_count(result)}
    check_equal(FITS, flags, {"truncated": False, "droppedMessageCount": 0}, "the flags of a context that fits")


@requirement(ROLES)
def test_path_opening_with_a_model_node(client: AssemblyClient) -> None:
    """Roles follow authorType, not position: a model greeting first is an assistant message."""
    request = linear_tree(["Welcome! How can I help?", "I need a map.", "Here is one."], ["model", "human", "model"])
    result = client.assemble(request, serves=ROLES).result
    check_equal(ROLES, roles(result), ["assistant", "user", "assistant"], "the message roles", sent=request)


def as_prose(text: str) -> str:
    """The text as prose reads it: CRLF line breaks as LF, surrounding whitespace trimmed."""
    return text.replace("\r\n", "\n").strip()


@requirement(PRIMARY, WHITESPACE)
def test_message_content_is_the_node_content_unchanged(client: AssemblyClient) -> None:
    """A node's content, line breaks and markup included, reaches its message as given or with its surroundings trimmed."""
    texts = ["  indented question\n", "\n\nAn answer after blank lines.\n\n", "\t*Markdown* list:\r\n- one\r\n- two  "]
    result = client.assemble(linear_tree(texts), serves=PRIMARY).result
    # The order is traverse-root-to-current's business: each message is one node's content.
    got = contents(result)
    check_equal(PRIMARY, sorted(map(as_prose, got)), sorted(map(as_prose, texts)), "the message contents (as prose)")
    lf = [text.replace("\r\n", "\n") for text in texts]
    readings = [sorted(texts), sorted(text.strip() for text in texts), sorted(lf), sorted(map(as_prose, texts))]
    check(WHITESPACE, sorted(got) in readings, "the contents are neither as given nor trimmed", received=got, expected=readings)


@requirement(TRAVERSE)
def test_only_the_active_path_is_assembled(client: AssemblyClient) -> None:
    """Siblings, other branches and descendants of the current position never appear."""
    request = linear_tree(["root", "reply A", "follow A", "deeper A"])
    tree = request["tree"]
    tree["nodes"] += [node("b1", "reply B", "model"), node("b2", "follow B", "human")]
    tree["edges"] += [edge("n0", "b1"), edge("b1", "b2")]
    for path, expected in (
        (["n0", "n1", "n2"], ["root", "reply A", "follow A"]),
        (["n0", "b1", "b2"], ["root", "reply B", "follow B"]),
    ):
        request["path"] = path
        result = client.assemble(request, serves=TRAVERSE).result
        check_equal(TRAVERSE, contents(result), expected, "the message contents", sent=request)


def runs_of(authors: list[str], texts: list[str]) -> list[tuple[str, list[str]]]:
    """The expected messages: one (role, texts) per run of same-author nodes."""
    runs: list[tuple[str, list[str]]] = []
    for author, text in zip(authors, texts, strict=True):
        role = "user" if author == "human" else "assistant"
        if runs and runs[-1][0] == role:
            runs[-1][1].append(text)
        else:
            runs.append((role, [text]))
    return runs


@requirement(TRAVERSE, ROLES, MERGE, SEPARATOR, PRIMARY)
@given(
    nodes=st.lists(
        st.tuples(
            st.sampled_from(["human", "model"]),
            st.text(st.characters(min_codepoint=97, max_codepoint=122), min_size=1, max_size=30),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_generated_paths_merge_runs(implementation: Implementation, nodes: list[tuple[str, str]]) -> None:
    """One message per run of same-author nodes, in path order, roles by authorType, contents joined."""
    texts = [f"<{i}>{text}" for i, (_, text) in enumerate(nodes)]
    authors = [author for author, _ in nodes]
    request = linear_tree(texts, authors)
    result = AssemblyClient(implementation).assemble(request, serves=MERGE).result
    everything = "\u0000".join(contents(result))
    check(TRAVERSE, in_order(everything, [f"<{i}>" for i in range(len(texts))]), "nodes out of path order", received=result)
    check(PRIMARY, all(text in everything for text in texts), "a node's content changed", sent=request, received=result)
    runs = runs_of(authors, texts)
    check_equal(MERGE, len(result["messages"]), len(runs), "the number of messages (one per same-author run)", sent=request)
    check_equal(ROLES, roles(result), [role for role, _ in runs], "the message roles", sent=request)
    for content, (_, parts) in zip(contents(result), runs, strict=True):
        check(SEPARATOR, merged_ok(content, parts), "merged content is not the nodes joined", received=content, expected=parts)


@requirement(MERGE, SEPARATOR, TRAVERSE)
def test_consecutive_same_author_nodes_merge(client: AssemblyClient) -> None:
    """Two human nodes then a model node: two messages, the first holding both texts in order."""
    request = linear_tree(["First.", "Second.", "Reply."], ["human", "human", "model"])
    result = client.assemble(request, serves=MERGE).result
    check_path_order(result, ["First.", "Second.", "Reply."])
    got = pairs(result)
    check(MERGE, len(got) == 2 and got[0][0] == "user" and got[1] == ("assistant", "Reply."), "not merged", received=got)
    check(SEPARATOR, merged_ok(got[0][1], ["First.", "Second."]), "merged content", received=got[0][1])


FLAGGED: Final = [
    pytest.param({"excluded": True}, EXCLUDED, id="excluded", marks=requirement(EXCLUDED, FILTER, TRAVERSE, MERGE)),
    pytest.param({"pruned": True}, PRUNED, id="pruned", marks=requirement(PRUNED, FILTER, TRAVERSE, MERGE)),
    pytest.param(
        {"pruned": True, "excluded": False}, PRUNED, id="pruned-not-excluded", marks=requirement(PRUNED, FILTER, TRAVERSE, MERGE)
    ),
]


@pytest.mark.parametrize(("flags", "leak"), FLAGGED)
def test_flagged_nodes_are_left_out(client: AssemblyClient, flags: dict[str, bool], leak: str) -> None:
    """A flagged node contributes nothing; the nodes after it stay, in order."""
    request = linear_tree(["Q1", "SECRET-middle", "Q2", "A2"], ["human", "model", "human", "model"])
    request["tree"]["nodes"][1]["metadata"] = flags
    result = client.assemble(request, serves=FILTER).result
    check(leak, "SECRET-middle" not in json.dumps(result), "the flagged node's content is in the result", received=result)
    everything = "\u0000".join(contents(result))
    check(
        FILTER,
        all(text in everything for text in ("Q1", "Q2", "A2")),
        "the nodes after the flagged one are lost",
        received=result,
    )
    check_path_order(result, ["Q1", "Q2", "A2"])
    got = pairs(result)
    # Filtering comes before merging: the human nodes around the flagged model node are consecutive, so they merge.
    merged = len(got) == 2 and got[1] == ("assistant", "A2") and got[0][0] == "user" and merged_ok(got[0][1], ["Q1", "Q2"])
    check(MERGE, merged, "the nodes around the flagged one are not merged", received=got)


@requirement(ANNOTATION, TRAVERSE)
def test_annotation_target_is_left_out(client: AssemblyClient) -> None:
    """A node reached through an annotation edge contributes nothing."""
    request = linear_tree(["Q1", "A1", "ANNOTATION-note"], ["human", "model", "human"])
    request["tree"]["edges"][1]["edgeType"] = "annotation"
    result = client.assemble(request, serves=ANNOTATION).result
    check(ANNOTATION, "ANNOTATION-note" not in json.dumps(result), "the annotation target is in the result", received=result)
    check_path_order(result, ["Q1", "A1"])
    check_equal(ANNOTATION, pairs(result), [("user", "Q1"), ("assistant", "A1")], "the messages", sent=request)


@requirement(BRANCH, ANNOTATION, TRAVERSE)
def test_nodes_after_an_annotation_target(client: AssemblyClient) -> None:
    """A path going on past an annotation target: the nodes after it are kept (reading 1) or excluded too (reading 2)."""
    request = linear_tree(["Q1", "A1", "ANNOTATION-note", "Q2", "A2"], ["human", "model", "human", "human", "model"])
    request["tree"]["edges"][1]["edgeType"] = "annotation"
    result = client.assemble(request, serves=BRANCH).result
    check(ANNOTATION, "ANNOTATION-note" not in json.dumps(result), "the annotation target is in the result", received=result)
    check_path_order(result, ["Q1", "A1"])
    allowed = [[("user", "Q1"), ("assistant", "A1"), ("user", "Q2"), ("assistant", "A2")], [("user", "Q1"), ("assistant", "A1")]]
    check(BRANCH, pairs(result) in allowed, "the messages follow no reading", received=pairs(result), expected=allowed)


@requirement(NOTHING_LEFT, EXCLUDED, PRUNED)
@pytest.mark.parametrize("mode", ["dialogue", "buffer"])
def test_path_with_every_node_excluded(client: AssemblyClient, mode: str) -> None:
    """Every node excluded: refused with a spec error, or a result with no message (empty document), nothing leaked."""
    request = linear_tree(["HIDDEN-one", "HIDDEN-two"], mode=mode, system="Be brief.")
    for index, flag in enumerate(("excluded", "pruned")):
        request["tree"]["nodes"][index]["metadata"] = {flag: True}
    reply = client.assemble(request, serves=NOTHING_LEFT)
    answer = json.dumps(reply.raw if reply.ok else reply.error)
    check(EXCLUDED, "HIDDEN-one" not in answer, "an excluded node's content is in the answer", received=answer)
    check(PRUNED, "HIDDEN-two" not in answer, "a pruned node's content is in the answer", received=answer)
    if not reply.ok:
        reply.refused(NOTHING_LEFT)
        return
    result = reply.expect(NOTHING_LEFT)
    empty = result.get("document", "") == "" if mode == "buffer" else result["messages"] == []
    check(NOTHING_LEFT, empty, "content from nowhere", sent=request, received=result)
    flags = {"truncated": result["truncated"], "droppedMessageCount": dropped_count(result)}
    check_equal(NOTHING_LEFT, flags, {"truncated": False, "droppedMessageCount": 0}, "the flags")


@requirement(INCLUSION, TRAVERSE)
def test_annotation_target_with_excluded_false(client: AssemblyClient) -> None:
    """metadata.excluded false on an annotation target: included (reading 1) or still excluded (reading 2)."""
    request = linear_tree(["Q1", "A1", "NOTE"], ["human", "model", "human"])
    request["tree"]["edges"][1]["edgeType"] = "annotation"
    request["tree"]["nodes"][2]["metadata"] = {"excluded": False}
    result = client.assemble(request, serves=INCLUSION).result
    check_path_order(result, ["Q1", "A1"])
    allowed = [[("user", "Q1"), ("assistant", "A1")], [("user", "Q1"), ("assistant", "A1"), ("user", "NOTE")]]
    check(INCLUSION, pairs(result) in allowed, "the messages follow no reading", received=pairs(result), expected=allowed)


@requirement(NON_TEXT, TRAVERSE)
@pytest.mark.parametrize("kind", ["image", "audio"])
def test_non_text_node_becomes_a_placeholder(client: AssemblyClient, kind: str) -> None:
    """A non-text node is not dropped: its message is a bracketed placeholder naming its type."""
    request = linear_tree(
        ["Look at this:", {"type": kind, "url": "https://example.invalid/x"}, "What is it?"], ["human", "human", "model"]
    )
    result = client.assemble(request, serves=NON_TEXT).result
    check_path_order(result, ["Look at this:", "What is it?"])
    # Whether the placeholder merges with its neighbour is merge-consecutive-same-author's business.
    everything = "\u0000".join(contents(result))
    between = everything[everything.find("Look at this:") + len("Look at this:") : everything.find("What is it?")]
    match = PLACEHOLDER.search(between)
    check(
        NON_TEXT, match is not None and match.group(1).lower() == kind, f"no [{kind} ...] placeholder", received=contents(result)
    )


@requirement(NON_TEXT)
def test_mixed_content_keeps_text_parts_in_order(client: AssemblyClient) -> None:
    """Mixed content: text parts kept in order with a placeholder in place of the image."""
    content = {"type": "mixed", "parts": [{"type": "text", "text": "Before."}, {"type": "image"}, "After."]}
    text = client.assemble(linear_tree([content]), serves=NON_TEXT).result["messages"][0]["content"]
    before, after = text.find("Before."), text.find("After.")
    match = PLACEHOLDER.search(text)
    holds = 0 <= before < after and match is not None and before < match.start() < after
    check(NON_TEXT, holds, "the text parts and the placeholder are not in order", received=text)


@requirement(CONTEXT)
@pytest.mark.parametrize("context_author", ["human", "model"])
def test_context_source_comes_before_primary(client: AssemblyClient, context_author: str) -> None:
    """A context source's content appears once, before the edge's primary source's content."""
    request = linear_tree(["PRIMARY question", "ANSWER"])
    request["tree"]["nodes"].append(node("c0", "REFERENCE figure", context_author))
    request["tree"]["edges"] = [edge("n0", "n1", extra=[("c0", "context")])]
    got = contents(client.assemble(request, serves=CONTEXT).result)
    joined = "\u0000".join(got)
    check(CONTEXT, joined.count("REFERENCE figure") == 1, "the context source is not there once", received=got)
    check(CONTEXT, in_order(joined, ["REFERENCE figure", "PRIMARY question", "ANSWER"]), "out of order", received=got)
    where = next(i for i, c in enumerate(got) if "PRIMARY question" in c)
    before = got[where - 1] if where else ""
    holds = got[where].endswith("PRIMARY question") and ("REFERENCE figure" in got[where] or before.endswith("REFERENCE figure"))
    check(CONTEXT, holds, "the context source does not stand right before the primary", received=got)


@requirement(CONTEXT, ORDER, WITHIN_ROLE)
def test_several_context_sources_come_before_the_primary(client: AssemblyClient) -> None:
    """Two context sources of one edge appear once each, both before the primary (in either order: order-within-role)."""
    request = linear_tree(["PRIMARY", "ANSWER"])
    request["tree"]["nodes"] += [node("c0", "REF-one", "human"), node("c1", "REF-two", "human")]
    request["tree"]["edges"] = [edge("n0", "n1", extra=[("c0", "context"), ("c1", "context")])]
    text = "\u0000".join(contents(client.assemble(request, serves=CONTEXT).result))
    before = all(0 <= text.find(ref) < text.find("PRIMARY") for ref in ("REF-one", "REF-two"))
    check(CONTEXT, before, "a context source is missing or after the primary", received=text)
    check(ORDER, before, "not processed context first, then primary", received=text)
    once = text.count("REF-one") == 1 and text.count("REF-two") == 1
    check(WITHIN_ROLE, once, "the context sources are not there once each", received=text)


@requirement(FITS, FOUR, FLAG, DROPPED, TRAVERSE)
@pytest.mark.parametrize("strategy", ["truncateMiddle", "rollingWindow", "stopAtLimit"])
@given(lengths=st.lists(st.integers(1, 400), min_size=1, max_size=10), spare=st.integers(1, 50))
@example(lengths=[40] * 6, spare=1)  # fits with no room left for a truncation marker, none needed
@example(lengths=[400] * 2, spare=50)  # well inside four characters per token
def test_nothing_is_truncated_when_it_fits(implementation: Implementation, strategy: str, lengths: list[int], spare: int) -> None:
    """Context whose estimate fits the budget comes back whole, with truncated false and nothing dropped."""
    texts = [f"{i:03d}" + "w" * length for i, length in enumerate(lengths)]
    _, high = estimate_readings(texts)
    request = linear_tree(texts, limit=high + spare + 7, settings={"tokenBuffer": 7, "truncationStrategy": strategy})
    budget = high + spare
    # Well inside four characters per token the check is four-chars-per-token's; nearer the budget, the fit's. Context
    # exactly at the budget is test_truncation's check_budget's case, where the fit is checked just before it.
    fits = FOUR if within_four_chars(texts, budget) else FITS
    reply = AssemblyClient(implementation).assemble(request, serves=fits)
    result = reply.expect(fits)
    check_equal(fits, sorted(contents(result)), sorted(texts), f"{strategy}: the messages of a context that fits")
    check_path_order(result, texts)
    check_equal(FLAG, result["truncated"], False, f"{strategy}: truncated")
    check_equal(DROPPED, dropped_count(result), 0, f"{strategy}: droppedMessageCount")
