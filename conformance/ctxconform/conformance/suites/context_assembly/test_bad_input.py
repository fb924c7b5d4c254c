"""Bad input: paths off the tree's edges, unknown or repeated nodes, wrong types, missing parts: never a crash."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Final

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ctxconform.conformance.suites.context_assembly import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.context_assembly.client import AssemblyClient, Json, edge, linear_tree
from ctxconform.conformance.testing import Implementation, check_equal, requirement

NOT_A_PATH: Final = R.DIALOGUE_MODE_PATH_NOT_IN_TREE
SHAPE: Final = R.DIALOGUE_MODE_MESSAGES_ARRAY
CODES: Final = ("invalidTree", "INVALID_REQUEST")


def base() -> Json:
    """A valid three-node dialogue."""
    return linear_tree(["Q", "A", "Q2"])


def with_path(path: list[str]) -> Json:
    """The base request with another path."""
    request = base()
    request["path"] = path
    return request


def cyclic() -> Json:
    """A tree with an edge back to the root, and a path that goes round it."""
    request = base()
    request["tree"]["edges"].append(edge("n2", "n0"))
    request["path"] = ["n0", "n1", "n2", "n0"]
    return request


# Each broken path, and the tree's own root-to-current path to its last node (None: no such path to traverse).
PATHS: Final[dict[str, tuple[Callable[[], Json], list[str] | None]]] = {
    "skips-a-node": (lambda: with_path(["n0", "n2"]), ["n0", "n1", "n2"]),
    "backwards": (lambda: with_path(["n2", "n1", "n0"]), ["n0"]),
    "unknown-node": (lambda: with_path(["n0", "n1", "ghost"]), None),
    "unknown-root": (lambda: with_path(["ghost"]), None),
    "repeated-node": (lambda: with_path(["n0", "n1", "n1"]), ["n0", "n1"]),
    "cycle": (cyclic, None),
}


def answer(result: Json) -> Json:
    """What a result says of the path: the system context, the messages (or document) and the truncated flag."""
    return {key: result.get(key) for key in ("systemContext", "messages", "document", "truncated")}


@requirement(NOT_A_PATH)
@pytest.mark.parametrize("case", list(PATHS))
def test_path_that_is_not_a_path(client: AssemblyClient, case: str) -> None:
    """A path off the tree's edges: refused (any code), or assembled as the tree's own path to its last node."""
    build, tree_path = PATHS[case]
    reply = client.send(build(), serves=NOT_A_PATH)
    if not reply.ok or tree_path is None:
        reply.refused(NOT_A_PATH)
        return
    result = reply.expect(NOT_A_PATH)
    own = client.assemble(with_path(tree_path), serves=NOT_A_PATH).result
    check_equal(NOT_A_PATH, answer(result), answer(own), f"the answer (the one for the tree's path {tree_path})")


def malformed() -> dict[str, object]:
    """Arguments that are not a tree and a path."""
    request = base()
    cases: dict[str, object] = {
        "not-an-object": ["tree", "path"],
        "null": None,
        "empty": {},
        "missing-tree": {"path": ["n0"]},
        "missing-path": {"tree": request["tree"]},
        "tree-string": {"tree": "tree", "path": ["n0"]},
        "path-string": {"tree": request["tree"], "path": "n0"},
        "path-empty": {"tree": request["tree"], "path": []},
        "path-of-numbers": {"tree": request["tree"], "path": [0, 1]},
        "path-of-lists": {"tree": request["tree"], "path": [[]]},
    }
    changes: dict[str, Callable[[Json], object]] = {
        "nodes-string": lambda r: r["tree"].__setitem__("nodes", "n0"),
        "node-not-object": lambda r: r["tree"]["nodes"].__setitem__(1, "A"),
        "node-without-id": lambda r: r["tree"]["nodes"][1].pop("id"),
        "bad-author-type": lambda r: r["tree"]["nodes"][1].__setitem__("authorType", "robot"),
        "edges-not-list": lambda r: r["tree"].__setitem__("edges", {"n0": "n1"}),
        "edge-without-sources": lambda r: r["tree"]["edges"][0].pop("sources"),
        "limit-string": lambda r: r.__setitem__("modelContextLimit", "lots"),
        "limit-negative": lambda r: r.__setitem__("modelContextLimit", -5),
        "strategy-unknown": lambda r: r.__setitem__("settings", {"truncationStrategy": "yolo"}),
    }
    for name, change in changes.items():
        changed = copy.deepcopy(request)
        change(changed)
        cases[name] = changed
    return cases


MALFORMED: Final = malformed()
# Cases where a limit-related code is also a fair answer (a negative limit is exceeded by anything).
EXTRA_CODES: Final = {"limit-negative": ("systemContextTooLong", "contextExceedsLimit")}


@requirement(SHAPE)
@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_request_is_refused(client: AssemblyClient, case: str) -> None:
    """Wrong types and missing parts get an error reply, never a crash or a result."""
    reply = client.send(copy.deepcopy(MALFORMED[case]), serves=SHAPE)
    reply.refused(SHAPE, *CODES, *EXTRA_CODES.get(case, ()))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=8,
)


@requirement(SHAPE)
@given(tree=json_values, path=json_values)
@example(tree={}, path=[])
@example(tree={}, path=[[]])
# A valid dialogue among them: its result is checked against the response schema like any other.
@example(tree={"mode": "dialogue", "nodes": [{"id": "q", "authorType": "human", "content": "Hello?"}], "edges": []}, path=["q"])
def test_arbitrary_arguments_never_crash(implementation: Implementation, tree: object, path: object) -> None:
    """Random JSON as tree and path: an error matching error.json (or, for a valid request, a result), never a crash."""
    reply = AssemblyClient(implementation).send({"tree": tree, "path": path}, serves=SHAPE)
    if reply.ok:
        reply.expect(SHAPE)
