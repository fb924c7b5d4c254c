"""The context-assembly reference itself: lookups in any list order, the collector restored, bad input refused."""

from __future__ import annotations

import gc
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.reference.context_assembly import assemble
from ctxconform.reference.context_assembly._finder import Finder
from ctxconform.reference.exceptions import SpecError

Json = dict[str, Any]


def tree_request(length: int, branches: int) -> Json:
    """A dialogue path n0..n(length-1) with `branches` side nodes hanging off it, some of them excluded."""
    nodes = [{"id": f"n{i}", "authorType": "human" if i % 3 else "model", "content": f"turn {i}"} for i in range(length)]
    edges = [
        {"target": f"n{i}", "sources": [{"nodeId": f"n{i - 1}", "role": "primary"}], "edgeType": "continuation"}
        for i in range(1, length)
    ]
    for b in range(branches):
        nodes.append({"id": f"b{b}", "authorType": "model", "content": f"side {b}", "metadata": {"excluded": b % 2 == 0}})
        source = {"nodeId": f"n{b % length}", "role": "primary"}
        edges.append({"target": f"b{b}", "sources": [source], "edgeType": "continuation"})
    nodes[length // 2]["metadata"] = {"pruned": True}
    return {"tree": {"mode": "dialogue", "nodes": nodes, "edges": edges}, "path": [f"n{i}" for i in range(length)]}


@given(length=st.integers(2, 40), branches=st.integers(0, 10), limit=st.integers(20, 400), data=st.data())
def test_the_order_of_the_node_and_edge_lists_does_not_change_the_result(
    length: int, branches: int, limit: int, data: st.DataObject
) -> None:
    """Shuffling the tree's lists (so in-order lookups miss) gives the same result or the same refusal."""
    request = tree_request(length, branches)
    request["modelContextLimit"], request["settings"] = limit, {"tokenBuffer": 0}
    shuffled = {**request, "tree": {**request["tree"]}}
    for name in ("nodes", "edges"):
        shuffled["tree"][name] = data.draw(st.permutations(request["tree"][name]), label=name)
    assert _outcome(shuffled) == _outcome(request)


def _outcome(request: Json) -> object:
    try:
        return assemble(request)
    except SpecError as error:
        return error.code


def test_finder_reads_in_order_then_by_table_and_knows_what_is_missing() -> None:
    """Items are found in list order, out of order through the table, and a missing id is None."""
    items = [{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "a", "late": True}]
    finder = Finder(items, "id")
    assert finder.get("a") is items[0]
    assert finder.get("c") is items[2]
    assert finder.get("b") is items[1]
    assert finder.get("a") is items[0]  # through the table: the first item with the id
    assert finder.get("ghost") is None


@pytest.mark.parametrize("enabled", [True, False])
def test_the_cyclic_collector_is_left_as_it_was(enabled: bool) -> None:
    """Assembly pauses the collector and restores it, whether it succeeds or refuses."""
    (gc.enable if enabled else gc.disable)()
    try:
        assemble(tree_request(3, 0))
        assert gc.isenabled() is enabled
        with pytest.raises(SpecError):
            assemble({"tree": {}, "path": ["nowhere"]})
        assert gc.isenabled() is enabled
    finally:
        gc.enable()


@pytest.mark.parametrize("request_", [None, [], {"tree": "x", "path": ["a"]}, {"tree": {"nodes": [], "edges": []}, "path": []}])
def test_assemble_refuses_a_malformed_request_itself(request_: object) -> None:
    """Called directly, not through a handler, assemble still refuses malformed input with INVALID_REQUEST."""
    with pytest.raises(SpecError) as refused:
        assemble(request_)
    assert refused.value.code == "INVALID_REQUEST"
