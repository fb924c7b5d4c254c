"""Exclusion over generated trees: branches, excluded, pruned and annotation nodes, both modes, every strategy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance.suites.context_assembly import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.context_assembly.client import AssemblyClient, Json, edge, node
from ctxconform.conformance.testing import Implementation, check, requirement

# Which requirement a hidden text breaks when it shows, and which one the order of the visible texts, per mode.
LEAKS: Final = {
    "dialogue": {
        "excluded": R.EXCLUSION_FILTERING_EXCLUDED_FLAG,
        "pruned": R.EXCLUSION_FILTERING_PRUNED_FLAG,
        "annotation": R.EXCLUSION_FILTERING_ANNOTATION_EDGE_EXCLUDED,
        "side": R.DIALOGUE_MODE_TRAVERSE_ROOT_TO_CURRENT,
    },
    "buffer": {
        "excluded": R.BUFFER_MODE_FILTER_EXCLUDED,
        "pruned": R.BUFFER_MODE_FILTER_EXCLUDED,
        "annotation": R.BUFFER_MODE_FILTER_EXCLUDED,
        "side": R.BUFFER_MODE_TRAVERSE_ACTIVE_PATH,
    },
}
ORDER: Final = {"dialogue": R.DIALOGUE_MODE_TRAVERSE_ROOT_TO_CURRENT, "buffer": R.BUFFER_MODE_TRAVERSE_ACTIVE_PATH}
MODES: Final = [
    pytest.param(mode, id=mode, marks=requirement(*dict.fromkeys([*LEAKS[mode].values(), ORDER[mode]]))) for mode in LEAKS
]
# A small response buffer: a tokenBuffer of 0 is user-preferences/token-buffer's own case.
TOKEN_BUFFER: Final = 5
STRATEGIES: Final = ["truncateMiddle", "rollingWindow", "stopAtLimit"]


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
    settings = {"truncationStrategy": strategy, "tokenBuffer": TOKEN_BUFFER}
    request: Json = {"tree": {"mode": mode, "nodes": nodes, "edges": edges}, "path": [f"n{i}" for i in range(len(hows))]}
    request |= {"settings": settings, "modelContextLimit": TOKEN_BUFFER + draw(st.integers(40, 600))}
    return Tree(request, hidden, [text for text in texts if text not in hidden])


def tag(text: str) -> str:
    """The unique tag a generated text starts with, such as <v3> or <pruned5>."""
    return text.split(">", 1)[0] + ">"


def shown(result: Json) -> str:
    """Everything the result holds, as one text."""
    return "\n".join([str(result.get("document", "")), *(str(m.get("content")) for m in result.get("messages") or [])])


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("mode", MODES)
@given(data=st.data())
def test_hidden_content_never_appears_and_visible_content_keeps_its_order(
    implementation: Implementation, mode: str, strategy: str, data: st.DataObject
) -> None:
    """Whatever is truncated, no excluded, pruned, annotation-reached or off-path text appears; kept text is in path order."""
    tree = data.draw(trees(mode, strategy), label="tree")
    reply = AssemblyClient(implementation).assemble(tree.request, serves=ORDER[mode])
    if not reply.ok:
        return  # refusals (over the limit, nothing left) are the business of the truncation and guarantee tests
    text = shown(reply.expect(ORDER[mode]))
    for how, requirement_id in LEAKS[mode].items():
        leaked = [tag(hidden) for hidden, kind in tree.hidden.items() if kind == how and tag(hidden) in text]
        check(requirement_id, not leaked, f"{how} text in the result", sent=tree.request, received=leaked)
    positions = [text.find(tag(visible)) for visible in tree.visible]
    found = [position for position in positions if position >= 0]
    check(ORDER[mode], found == sorted(found), "visible nodes out of path order", sent=tree.request, received=positions)
