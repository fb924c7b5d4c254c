"""Dialogue mode: roles, traversal of the active path, exclusion, merging, non-text content, context sources."""

from __future__ import annotations

import re
from typing import Final

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance.suites.context_assembly.client import (
    DIALOGUE_SHAPE,
    Json,
    assemble,
    edge,
    estimate_readings,
    linear_tree,
    node,
    require,
)

requirement = pytest.mark.requirement

ROLES: Final = "context-assembly/dialogue-mode/author-type-roles"
TRAVERSE: Final = "context-assembly/dialogue-mode/traverse-root-to-current"
MERGE: Final = "context-assembly/dialogue-mode/merge-consecutive-same-author"
SEPARATOR: Final = "context-assembly/dialogue-mode/merge-separator"
FILTER: Final = "context-assembly/dialogue-mode/filter-excluded"
NON_TEXT: Final = "context-assembly/dialogue-mode/non-text-content"
FITS: Final = "context-assembly/dialogue-mode/truncate-only-if-needed"
PRIMARY: Final = "context-assembly/multi-source-edges/primary-main-content"
EXCLUDED: Final = "context-assembly/exclusion-filtering/excluded-flag"
PRUNED: Final = "context-assembly/exclusion-filtering/pruned-flag"


def pairs(result: Json) -> list[tuple[str, str]]:
    """The messages as (role, content)."""
    return [(m["role"], m["content"]) for m in result["messages"]]


def merged_ok(content: str, parts: list[str]) -> bool:
    """Whether `content` is `parts` joined under a reading of merge-separator."""
    return content in ("\n\n".join(parts), "\n".join(parts))


@requirement(ROLES, DIALOGUE_SHAPE, "context-assembly/multi-source-edges/primary-main-content")
def test_roles_follow_author_type(implementation: Implementation) -> None:
    """Roles: human -> user, model -> assistant; each node's content is its message's content."""
    request = linear_tree(["Hello?", "Hi, how can I help?", "Tell me a story."])
    result = assemble(implementation, request).result(ROLES)
    require(
        pairs(result) == [("user", "Hello?"), ("assistant", "Hi, how can I help?"), ("user", "Tell me a story.")],
        ROLES,
        f"messages {result['messages']}",
    )
    require(result["truncated"] is False and result["droppedMessageCount"] == 0, FITS, f"flags {result}")


@requirement(ROLES)
def test_path_opening_with_a_model_node(implementation: Implementation) -> None:
    """Roles follow authorType, not position: a model greeting first is an assistant message."""
    request = linear_tree(["Welcome! How can I help?", "I need a map.", "Here is one."], ["model", "human", "model"])
    result = assemble(implementation, request).result(ROLES)
    require([role for role, _ in pairs(result)] == ["assistant", "user", "assistant"], ROLES, f"messages {result['messages']}")


@requirement(PRIMARY)
def test_message_content_is_the_node_content_unchanged(implementation: Implementation) -> None:
    """Whitespace around and inside a node's content, line breaks and markup included, reaches its message as is."""
    texts = ["  indented question\n", "\n\nAn answer after blank lines.\n\n", "\t*Markdown* list:\n- one\n- two  "]
    result = assemble(implementation, linear_tree(texts)).result(PRIMARY)
    require([content for _, content in pairs(result)] == texts, PRIMARY, f"messages {result['messages']}")


@requirement(TRAVERSE)
def test_only_the_active_path_is_assembled(implementation: Implementation) -> None:
    """Siblings, other branches and descendants of the current position never appear."""
    request = linear_tree(["root", "reply A", "follow A", "deeper A"])
    tree = request["tree"]
    tree["nodes"] += [node("b1", "reply B", "model"), node("b2", "follow B", "human")]
    tree["edges"] += [edge("n0", "b1"), edge("b1", "b2")]
    request["path"] = ["n0", "n1", "n2"]
    result = assemble(implementation, request).result(TRAVERSE)
    require([c for _, c in pairs(result)] == ["root", "reply A", "follow A"], TRAVERSE, f"messages {result['messages']}")
    request["path"] = ["n0", "b1", "b2"]
    result = assemble(implementation, request).result(TRAVERSE)
    require([c for _, c in pairs(result)] == ["root", "reply B", "follow B"], TRAVERSE, f"messages {result['messages']}")


@requirement(TRAVERSE, ROLES, MERGE, SEPARATOR, "context-assembly/multi-source-edges/primary-main-content")
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
    result = assemble(implementation, linear_tree(texts, authors)).result(MERGE)
    runs: list[tuple[str, list[str]]] = []
    for author, text in zip(authors, texts, strict=True):
        role = "user" if author == "human" else "assistant"
        if runs and runs[-1][0] == role:
            runs[-1][1].append(text)
        else:
            runs.append((role, [text]))
    got = pairs(result)
    require(len(got) == len(runs), MERGE, f"{len(got)} messages for {len(runs)} runs of same-author nodes")
    for (role, content), (want_role, parts) in zip(got, runs, strict=True):
        require(role == want_role, ROLES, f"role {role}; expected {want_role}")
        require(merged_ok(content, parts), SEPARATOR, f"content {content!r} for nodes {parts}")


@requirement(MERGE, SEPARATOR)
def test_consecutive_same_author_nodes_merge(implementation: Implementation) -> None:
    """Two human nodes then a model node: two messages, the first holding both texts in order."""
    result = assemble(implementation, linear_tree(["First.", "Second.", "Reply."], ["human", "human", "model"])).result(MERGE)
    got = pairs(result)
    require(len(got) == 2 and got[0][0] == "user" and got[1] == ("assistant", "Reply."), MERGE, f"messages {got}")
    require(merged_ok(got[0][1], ["First.", "Second."]), SEPARATOR, f"merged content {got[0][1]!r}")


@requirement(EXCLUDED, PRUNED, FILTER)
@pytest.mark.parametrize(
    ("flags", "leak"),
    [({"excluded": True}, EXCLUDED), ({"pruned": True}, PRUNED), ({"pruned": True, "excluded": False}, PRUNED)],
    ids=["excluded", "pruned", "pruned-not-excluded"],
)
def test_flagged_nodes_are_left_out(implementation: Implementation, flags: dict[str, bool], leak: str) -> None:
    """A flagged node contributes nothing; the nodes after it stay, in order."""
    request = linear_tree(["Q1", "SECRET-middle", "Q2", "A2"], ["human", "model", "human", "model"])
    request["tree"]["nodes"][1]["metadata"] = flags
    result = assemble(implementation, request).result(FILTER)
    text = repr(result)
    require("SECRET-middle" not in text, leak, f"result {text[:300]}")
    got = pairs(result)
    require(len(got) == 2 and got[1] == ("assistant", "A2") and got[0][0] == "user", FILTER, f"messages {got}")
    require(merged_ok(got[0][1], ["Q1", "Q2"]), FILTER, f"same-author nodes around the excluded one not merged: {got}")


@requirement("context-assembly/exclusion-filtering/annotation-edge-excluded")
def test_annotation_target_is_left_out(implementation: Implementation) -> None:
    """A node reached through an annotation edge contributes nothing."""
    request = linear_tree(["Q1", "A1", "ANNOTATION-note"], ["human", "model", "human"])
    request["tree"]["edges"][1]["edgeType"] = "annotation"
    request["path"] = ["n0", "n1", "n2"]
    result = assemble(implementation, request).result("context-assembly/exclusion-filtering/annotation-edge-excluded")
    require(
        pairs(result) == [("user", "Q1"), ("assistant", "A1")],
        "context-assembly/exclusion-filtering/annotation-edge-excluded",
        f"messages {pairs(result)}",
    )


NOTHING_LEFT: Final = "context-assembly/guarantees/nothing-left-after-filtering"


@requirement(NOTHING_LEFT)
@pytest.mark.parametrize("mode", ["dialogue", "buffer"])
def test_path_with_every_node_excluded(implementation: Implementation, mode: str) -> None:
    """Every node excluded: refused with a spec error, or a result with no message (empty document), nothing leaked."""
    if mode == "buffer" and "buffer_mode" not in implementation.features("context-assembly"):
        pytest.skip("buffer_mode not declared")
    request = linear_tree(["HIDDEN-one", "HIDDEN-two"], mode=mode, system="Be brief.")
    for index, flag in enumerate(("excluded", "pruned")):
        request["tree"]["nodes"][index]["metadata"] = {flag: True}
    outcome = assemble(implementation, request, NOTHING_LEFT)
    if not outcome.ok:
        outcome.refused(NOTHING_LEFT)
        return
    result = outcome.result(NOTHING_LEFT)
    require("HIDDEN" not in repr(result), NOTHING_LEFT, f"excluded content in {result}")
    empty = result.get("document", "") == "" if mode == "buffer" else result["messages"] == []
    require(empty, NOTHING_LEFT, f"content from nowhere: {result}")
    require(result["truncated"] is False and result["droppedMessageCount"] == 0, NOTHING_LEFT, f"flags {result}")


@requirement("context-assembly/exclusion-filtering/annotation-explicit-inclusion")
def test_annotation_target_with_excluded_false(implementation: Implementation) -> None:
    """metadata.excluded false on an annotation target: included (reading 1) or still excluded (reading 2)."""
    request = linear_tree(["Q1", "A1", "NOTE"], ["human", "model", "human"])
    request["tree"]["edges"][1]["edgeType"] = "annotation"
    request["tree"]["nodes"][2]["metadata"] = {"excluded": False}
    result = assemble(implementation, request).result("context-assembly/exclusion-filtering/annotation-explicit-inclusion")
    require(
        pairs(result) in ([("user", "Q1"), ("assistant", "A1")], [("user", "Q1"), ("assistant", "A1"), ("user", "NOTE")]),
        "context-assembly/exclusion-filtering/annotation-explicit-inclusion",
        f"messages {pairs(result)}",
    )


PLACEHOLDER: Final = re.compile(r"\[[^\[\]]*\b(image|audio)\b[^\[\]]*\]", re.IGNORECASE)


@requirement(NON_TEXT)
@pytest.mark.parametrize("kind", ["image", "audio"])
def test_non_text_node_becomes_a_placeholder(implementation: Implementation, kind: str) -> None:
    """A non-text node is not dropped: its message is a bracketed placeholder naming its type."""
    request = linear_tree(
        ["Look at this:", {"type": kind, "url": "https://example.invalid/x"}, "What is it?"], ["human", "human", "model"]
    )
    request["tree"]["nodes"][2]["authorType"] = "model"
    result = assemble(implementation, request).result(NON_TEXT)
    got = pairs(result)
    require(len(got) == 2 and got[0][1].startswith("Look at this:"), NON_TEXT, f"messages {got}")
    match = PLACEHOLDER.search(got[0][1][len("Look at this:") :])
    require(match is not None and match.group(1).lower() == kind, NON_TEXT, f"no [{kind} ...] placeholder in {got[0][1]!r}")


@requirement(NON_TEXT)
def test_mixed_content_keeps_text_parts_in_order(implementation: Implementation) -> None:
    """Mixed content: text parts kept in order with a placeholder in place of the image."""
    content = {"type": "mixed", "parts": [{"type": "text", "text": "Before."}, {"type": "image"}, "After."]}
    result = assemble(implementation, linear_tree([content])).result(NON_TEXT)
    text = result["messages"][0]["content"]
    before, after = text.find("Before."), text.find("After.")
    match = PLACEHOLDER.search(text)
    require(
        0 <= before < after and match is not None and before < match.start() < after,
        NON_TEXT,
        f"content {text!r}",
    )


CONTEXT: Final = "context-assembly/multi-source-edges/context-before-primary"


@requirement(CONTEXT, "context-assembly/multi-source-edges/processing-order")
@pytest.mark.parametrize("context_author", ["human", "model"])
def test_context_source_comes_before_primary(implementation: Implementation, context_author: str) -> None:
    """A context source's content appears once, before the edge's primary source's content."""
    request = linear_tree(["PRIMARY question", "ANSWER"])
    request["tree"]["nodes"].append(node("c0", "REFERENCE figure", context_author))
    request["tree"]["edges"] = [edge("n0", "n1", extra=[("c0", "context")])]
    result = assemble(implementation, request).result(CONTEXT)
    contents = [c for _, c in pairs(result)]
    joined = "\u0000".join(contents)
    require(joined.count("REFERENCE figure") == 1, CONTEXT, f"messages {contents}")
    require(
        joined.index("REFERENCE figure") < joined.index("PRIMARY question") < joined.index("ANSWER"),
        CONTEXT,
        f"messages {contents}",
    )
    where = next(i for i, c in enumerate(contents) if "PRIMARY question" in c)
    same = contents[where]
    before = contents[where - 1] if where else ""
    require(
        same.endswith("PRIMARY question") and ("REFERENCE figure" in same or before.endswith("REFERENCE figure")),
        CONTEXT,
        f"messages {contents}",
    )


@requirement(CONTEXT, "context-assembly/multi-source-edges/processing-order")
def test_several_context_sources_keep_their_order(implementation: Implementation) -> None:
    """Two context sources of one edge appear in the order the edge lists them, both before the primary."""
    request = linear_tree(["PRIMARY", "ANSWER"])
    request["tree"]["nodes"] += [node("c0", "REF-one", "human"), node("c1", "REF-two", "human")]
    request["tree"]["edges"] = [edge("n0", "n1", extra=[("c0", "context"), ("c1", "context")])]
    text = "\u0000".join(c for _, c in pairs(assemble(implementation, request).result(CONTEXT)))
    require(
        0 <= text.find("REF-one") < text.find("REF-two") < text.find("PRIMARY"),
        "context-assembly/multi-source-edges/processing-order",
        repr(text),
    )


@requirement(FITS, "context-assembly/guarantees/truncated-flag", "context-assembly/guarantees/dropped-message-count")
@given(lengths=st.lists(st.integers(1, 400), min_size=1, max_size=10), spare=st.integers(0, 50))
@example(lengths=[40] * 6, spare=0)  # fits exactly: no room left for a truncation marker, none needed
def test_nothing_is_truncated_when_it_fits(implementation: Implementation, lengths: list[int], spare: int) -> None:
    """Context whose estimate fits the budget comes back whole, with truncated false and nothing dropped."""
    texts = [f"{i:03d}" + "w" * length for i, length in enumerate(lengths)]
    _, high = estimate_readings(texts)
    declared = implementation.features("context-assembly")
    optional = {"rollingWindow": "rolling_window", "stopAtLimit": "stop_at_limit"}
    for strategy in ["truncateMiddle", *(name for name, feature in optional.items() if feature in declared)]:
        request = linear_tree(texts, limit=high + spare + 7, settings={"tokenBuffer": 7, "truncationStrategy": strategy})
        result = assemble(implementation, request).result(FITS)
        require([c for _, c in pairs(result)] == texts, FITS, f"{strategy}: messages changed though the context fits")
        require(
            result["truncated"] is False,
            "context-assembly/guarantees/truncated-flag",
            f"{strategy}: truncated {result['truncated']}",
        )
        require(
            result["droppedMessageCount"] == 0,
            "context-assembly/guarantees/dropped-message-count",
            f"{strategy}: {result['droppedMessageCount']}",
        )
