"""Exclusion over generated trees: branches, excluded, pruned and annotation nodes, both modes, every declared strategy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance.suites.context_assembly.client import SPEC, Json, assemble, edge, node, require

requirement = pytest.mark.requirement

LEAKS: Final = {
    "excluded": "context-assembly/exclusion-filtering/excluded-flag",
    "pruned": "context-assembly/exclusion-filtering/pruned-flag",
    "annotation": "context-assembly/exclusion-filtering/annotation-edge-excluded",
    "side": "context-assembly/dialogue-mode/traverse-root-to-current",
}
ORDER: Final = "context-assembly/dialogue-mode/filter-excluded"
STRATEGY_FEATURES: Final = {"truncateMiddle": None, "rollingWindow": "rolling_window", "stopAtLimit": "stop_at_limit"}


@dataclass(frozen=True)
class Tree:
    """A generated request and, for every text in it, how it is hidden ('' when it is on the path and visible)."""

    request: Json
    hidden: dict[str, str]
    visible: list[str]


@st.composite
def trees(draw: st.DrawFn, mode: str, strategy: str) -> Tree:
    """A path of 1 to 12 nodes, each visible or hidden one way, with side branches off random path nodes."""
    hows = draw(st.lists(st.sampled_from(["", "", "excluded", "pruned", "annotation"]), min_size=1, max_size=12))
    hows[0] = "" if hows[0] == "annotation" else hows[0]  # the root is reached through no edge
    authors = draw(st.lists(st.sampled_from(["human", "model"]), min_size=len(hows), max_size=len(hows)))
    lengths = draw(st.lists(st.integers(0, 120), min_size=len(hows), max_size=len(hows)))
    texts = [f"<{how or 'v'}{i}>" + "x" * length for i, (how, length) in enumerate(zip(hows, lengths, strict=True))]
    nodes = [node(f"n{i}", text, authors[i]) for i, text in enumerate(texts)]
    edges = [edge(f"n{i - 1}", f"n{i}", "annotation" if hows[i] == "annotation" else "continuation") for i in range(1, len(hows))]
    for i, how in enumerate(hows):
        if how in ("excluded", "pruned"):
            nodes[i]["metadata"] = {how: True}
    hidden = {text: how for text, how in zip(texts, hows, strict=True) if how}
    for b in range(draw(st.integers(0, 3))):
        side = f"<side{b}>"
        nodes.append(node(f"s{b}", side, "model"))
        edges.append(edge(f"n{draw(st.integers(0, len(hows) - 1))}", f"s{b}"))
        hidden[side] = "side"
    settings = {"truncationStrategy": strategy, "tokenBuffer": 0}
    request: Json = {"tree": {"mode": mode, "nodes": nodes, "edges": edges}, "path": [f"n{i}" for i in range(len(hows))]}
    request |= {"settings": settings, "modelContextLimit": draw(st.integers(40, 600))}
    return Tree(request, hidden, [text for text in texts if text not in hidden])


def declared(implementation: Implementation, mode: str, strategy: str) -> bool:
    """Whether the implementation declares what the mode and the strategy need."""
    features = implementation.features(SPEC)
    needed = {STRATEGY_FEATURES[strategy], "buffer_mode" if mode == "buffer" else None} - {None}
    return needed <= features


def tag(text: str) -> str:
    """The unique tag a generated text starts with, such as <v3> or <pruned5>."""
    return text.split(">", 1)[0] + ">"


def shown(result: Json) -> str:
    """Everything the result holds, as one text."""
    return "\n".join([str(result.get("document", "")), *(str(m.get("content")) for m in result.get("messages") or [])])


@requirement(*LEAKS.values(), ORDER, "context-assembly/buffer-mode/filter-excluded")
@pytest.mark.parametrize("strategy", list(STRATEGY_FEATURES))
@pytest.mark.parametrize("mode", ["dialogue", "buffer"])
@given(data=st.data())
def test_hidden_content_never_appears_and_visible_content_keeps_its_order(
    implementation: Implementation, mode: str, strategy: str, data: st.DataObject
) -> None:
    """Whatever is truncated, no excluded, pruned, annotation-reached or off-path text appears; kept text is in path order."""
    if not declared(implementation, mode, strategy):
        pytest.skip(f"{mode} mode or {strategy} not declared")
    tree = data.draw(trees(mode, strategy), label="tree")
    outcome = assemble(implementation, tree.request, ORDER)
    if not outcome.ok:
        return  # refusals (over the limit, nothing left) are the business of the truncation and guarantee tests
    text = shown(outcome.result(ORDER))
    for hidden, how in tree.hidden.items():
        require(tag(hidden) not in text, LEAKS[how], f"{how} text {tag(hidden)!r} in the result")
    positions = [text.find(tag(visible)) for visible in tree.visible]
    found = [position for position in positions if position >= 0]
    require(found == sorted(found), ORDER, f"visible nodes out of path order: {positions}")
