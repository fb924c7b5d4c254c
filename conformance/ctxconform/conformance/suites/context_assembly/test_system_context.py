"""System context: agent-level then tree-level, in the dedicated field, with instruction sources appended."""

from __future__ import annotations

from typing import Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance.suites.context_assembly import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.context_assembly.client import AssemblyClient, Json, edge, linear_tree, node
from ctxconform.conformance.testing import Implementation, check, check_equal, requirement

AGENT: Final = "You are a careful archivist of the loom."
TREE: Final = "This tree collects notes about tidal pools."
AGENT_LEVEL: Final = R.SYSTEM_CONTEXT_COMBINATION_AGENT_LEVEL_APPLIES
TREE_LEVEL: Final = R.SYSTEM_CONTEXT_COMBINATION_TREE_LEVEL_APPLIES
BEFORE: Final = R.SYSTEM_CONTEXT_COMBINATION_AGENT_BEFORE_TREE
COMBINED: Final = R.SYSTEM_CONTEXT_COMBINATION_COMBINED_TEXT_FORMAT
NONE: Final = R.SYSTEM_CONTEXT_COMBINATION_NO_SYSTEM_CONTEXT
DEDICATED: Final = R.PROVIDER_HANDLING_DEDICATED_FIELD
BY_DEFAULT: Final = R.DIALOGUE_MODE_SYSTEM_CONTEXT_INCLUDED_BY_DEFAULT
INSTRUCTION: Final = R.MULTI_SOURCE_EDGES_INSTRUCTION_APPENDED_TO_SYSTEM
ORDER: Final = R.MULTI_SOURCE_EDGES_PROCESSING_ORDER
WITHIN_ROLE: Final = R.MULTI_SOURCE_EDGES_ORDER_WITHIN_ROLE
SCOPE: Final = R.DIALOGUE_MODE_INSTRUCTION_SOURCES_SCOPE
DIRECTIVE: Final = "Answer in one sentence."


def joined(system: str, first: str, second: str) -> bool:
    """Whether `system` is `first` then `second` under a reading of combined-text-format.

    Each text trimmed or not, so the whitespace around each is part of the separator; whitespace around the whole is
    not significant (system prose, like message prose: multi-source-edges/primary-content-whitespace).
    """
    text, head, tail = system.strip(), first.strip(), second.strip()
    if not (text.startswith(head) and text.endswith(tail) and len(text) > len(head) + len(tail)):
        return False
    return not text[len(head) : len(text) - len(tail)].strip()


def system_of(result: Json) -> str | None:
    """The result's systemContext (None when absent)."""
    value = result.get("systemContext")
    return None if value is None else str(value)


@requirement(AGENT_LEVEL)
def test_agent_prompt_alone_is_the_system_context(client: AssemblyClient) -> None:
    """With only an agent prompt, it is the whole system context (trimmed or not)."""
    request = linear_tree(["Hello there."], agent=f"  {AGENT}\n")
    system = system_of(client.assemble(request, serves=AGENT_LEVEL).result)
    check_equal(AGENT_LEVEL, (system or "").strip(), AGENT, "the systemContext, its surrounding whitespace aside", sent=request)


@requirement(TREE_LEVEL)
def test_tree_system_context_alone_is_the_system_context(client: AssemblyClient) -> None:
    """With only a tree-level text, it is the whole system context (trimmed or not), with or without an agent object."""
    for request in (linear_tree(["Hello."], system=f"\n{TREE}  "), linear_tree(["Hello."], system=TREE, agent="")):
        system = system_of(client.assemble(request, serves=TREE_LEVEL).result)
        check_equal(TREE_LEVEL, (system or "").strip(), TREE, "the systemContext, its surrounding whitespace aside", sent=request)


@requirement(BEFORE, AGENT_LEVEL, TREE_LEVEL, COMBINED)
def test_agent_text_comes_before_tree_text(client: AssemblyClient) -> None:
    """Both present: agent-level first, tree-level second, each once, joined by whitespace."""
    request = linear_tree(["Hello."], agent=AGENT, system=TREE)
    system = system_of(client.assemble(request, serves=BEFORE).result) or ""
    check(AGENT_LEVEL, AGENT in system, "the agent-level text is missing", sent=request, received=system)
    check(TREE_LEVEL, TREE in system, "the tree-level text is missing", sent=request, received=system)
    once = system.count(AGENT) == 1 and system.count(TREE) == 1
    check(BEFORE, once and system.index(AGENT) < system.index(TREE), "not agent-level then tree-level", received=system)
    check(COMBINED, joined(system, AGENT, TREE), "not agent, whitespace, tree", received=system)


printable = st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=60)
padding = st.sampled_from(["", " ", "\n", "  \n\t"])


@requirement(BEFORE, COMBINED, AGENT_LEVEL, TREE_LEVEL)
@given(agent=printable, tree=printable, pads=st.tuples(padding, padding, padding, padding))
def test_generated_system_texts_combine_in_order(
    implementation: Implementation, agent: str, tree: str, pads: tuple[str, str, str, str]
) -> None:
    """Any two non-blank texts, padded with whitespace, combine as agent then tree."""
    padded_agent, padded_tree = f"{pads[0]}{agent}{pads[1]}", f"{pads[2]}{tree}{pads[3]}"
    client = AssemblyClient(implementation)
    # Each text alone first: the random texts may hold one another, so the combined text cannot tell them apart.
    alone_agent = system_of(client.assemble(linear_tree(["Hi."], agent=padded_agent), serves=AGENT_LEVEL).result) or ""
    check_equal(AGENT_LEVEL, alone_agent.strip(), agent, "the system context of the agent-level text alone")
    alone_tree = system_of(client.assemble(linear_tree(["Hi."], system=padded_tree), serves=TREE_LEVEL).result) or ""
    check_equal(TREE_LEVEL, alone_tree.strip(), tree, "the system context of the tree-level text alone")
    request = linear_tree(["Hi."], agent=padded_agent, system=padded_tree)
    system = system_of(client.assemble(request, serves=BEFORE).result) or ""
    ordered = system.strip().startswith(agent) and system.strip().endswith(tree)
    check(BEFORE, ordered, "not agent-level then tree-level", sent=request, received=system)
    check(COMBINED, joined(system, padded_agent, padded_tree), "not agent, whitespace, tree", sent=request, received=system)


@requirement(NONE)
@pytest.mark.parametrize(
    ("agent", "tree"),
    [(None, None), ("", ""), ("   \n", None), (None, "\t\n "), ("  ", "   ")],
    ids=["absent", "empty", "agent-blank", "tree-blank", "both-blank"],
)
def test_no_system_context(client: AssemblyClient, agent: str | None, tree: str | None) -> None:
    """With neither text, systemContext is absent, null or blank (the whitespace given), and no message is added."""
    request = linear_tree(["One.", "Two."], agent=agent, system=tree)
    result = client.assemble(request, serves=NONE).result
    system = result.get("systemContext")
    blank = system is None or (isinstance(system, str) and not system.strip())
    check(NONE, blank, "a systemContext made of no text", sent=request, received=result, expected=[None, "", "(whitespace)"])
    # No message is added; the order of the others is traverse-root-to-current's business.
    got = sorted((m["role"], m["content"]) for m in result["messages"])
    check_equal(NONE, got, [("assistant", "Two."), ("user", "One.")], "the messages", sent=request)


@requirement(DEDICATED, BY_DEFAULT)
def test_system_context_is_not_also_a_message(client: AssemblyClient) -> None:
    """The combined context goes in systemContext and in no message; bufferModeSystemContext false has no effect."""
    request = linear_tree(["Question?", "Answer."], agent=AGENT, system=TREE)
    request["tree"]["bufferModeSystemContext"] = False
    result = client.assemble(request, serves=DEDICATED).result
    check(BY_DEFAULT, bool(system_of(result)), "no systemContext in dialogue mode", sent=request, received=result)
    leaked = [m for m in result["messages"] if AGENT in m["content"] or TREE in m["content"]]
    check(DEDICATED, not leaked and len(result["messages"]) == 2, "the system text is also a message", received=result)


def instruction_tree(*, agent: str | None = AGENT, system: str | None = TREE) -> Json:
    """n0 (human) -> n1 (model) through an edge with an instruction source i0."""
    request = linear_tree(["Tell me about crabs.", "Crabs walk sideways."], agent=agent, system=system)
    request["tree"]["nodes"].append(node("i0", DIRECTIVE, "human"))
    request["tree"]["edges"] = [edge("n0", "n1", extra=[("i0", "instruction")])]
    return request


@requirement(INSTRUCTION)
def test_instruction_source_is_appended_to_system_context(client: AssemblyClient) -> None:
    """An instruction source goes after the agent and tree texts, and into no message."""
    # How agent and tree texts combine is system-context-combination's business: the base is what this implementation
    # makes of them without the instruction source.
    plain = linear_tree(["Tell me about crabs.", "Crabs walk sideways."], agent=AGENT, system=TREE)
    base = system_of(client.assemble(plain, serves=INSTRUCTION).result) or ""
    result = client.assemble(instruction_tree(), serves=INSTRUCTION).result
    system = system_of(result) or ""
    check(INSTRUCTION, system.count(DIRECTIVE) == 1 and system.strip().endswith(DIRECTIVE), "not appended once", received=system)
    appended = joined(system, base, DIRECTIVE) if base.strip() else system.strip() == DIRECTIVE
    check(INSTRUCTION, appended, "not appended to the system context", received=system, expected=[base, DIRECTIVE])
    # A message holding the whole system context is provider-handling/dedicated-field's business.
    messages = [m["content"] for m in result["messages"] if m["content"] != system]
    check(INSTRUCTION, not any(DIRECTIVE in m for m in messages), "the instruction is also in a message", received=messages)
    nodes = {"Tell me about crabs.", "Crabs walk sideways."}
    check(INSTRUCTION, nodes <= set(messages), "the nodes' messages are lost", received=messages)


@requirement(INSTRUCTION)
def test_instruction_source_alone_is_the_system_context(client: AssemblyClient) -> None:
    """With no agent or tree text, the instruction source still makes a system context."""
    result = client.assemble(instruction_tree(agent=None, system=None), serves=INSTRUCTION).result
    check_equal(INSTRUCTION, (system_of(result) or "").strip(), DIRECTIVE, "the systemContext, its surrounding whitespace aside")


def appended_part(client: AssemblyClient, request: Json, serves: str) -> str:
    """What the instruction sources add to the system context this implementation makes without them."""
    plain = {**request, "tree": {**request["tree"], "edges": [_primary_only(e) for e in request["tree"]["edges"]]}}
    base = system_of(client.assemble(plain, serves=serves).result) or ""
    system = system_of(client.assemble(request, serves=serves).result) or ""
    return system.removeprefix(base).strip() if base.strip() else system.strip()


def _primary_only(edge_: Json) -> Json:
    return {**edge_, "sources": [s for s in edge_["sources"] if s["role"] == "primary"]}


@requirement(ORDER, WITHIN_ROLE)
def test_several_instruction_sources_are_appended(client: AssemblyClient) -> None:
    """Two instruction sources on one edge are both appended, once each (in either order: order-within-role)."""
    # A tree-level text: whether instructions need one is instruction-appended-to-system's business.
    request = instruction_tree(agent=None)
    request["tree"]["nodes"].append(node("i1", "Use plain words.", "human"))
    request["tree"]["edges"] = [edge("n0", "n1", extra=[("i0", "instruction"), ("i1", "instruction")])]
    added = appended_part(client, request, ORDER)
    check(ORDER, DIRECTIVE in added and "Use plain words." in added, "not processed as instructions", received=added)
    once = added.count(DIRECTIVE) == 1 and added.count("Use plain words.") == 1
    check(WITHIN_ROLE, once, "the instruction sources are not there once each", received=added)


@requirement(SCOPE, INSTRUCTION)
def test_instruction_on_the_last_edge_is_appended(client: AssemblyClient) -> None:
    """Instructions on the edge into the current position are appended under both readings; earlier ones per a reading."""
    request = linear_tree(["A?", "B.", "C?"], system=TREE)
    request["tree"]["nodes"] += [node("i0", "Early directive.", "human"), node("i1", "Late directive.", "human")]
    request["tree"]["edges"] = [edge("n0", "n1", extra=[("i0", "instruction")]), edge("n1", "n2", extra=[("i1", "instruction")])]
    added = appended_part(client, request, SCOPE)
    # Which edges' instructions count is this test's question; that they are appended after the tree's text is not.
    appended = "directive." in added and TREE.strip() not in added
    check(INSTRUCTION, appended, "no instruction source follows the tree's system text", received=added)
    check(SCOPE, added.endswith("Late directive."), "the last edge's instruction is not appended", received=added)
    every = added.startswith("Early directive.") and not added[len("Early directive.") : -len("Late directive.")].strip()
    check(SCOPE, added == "Late directive." or every, "neither every edge's instructions nor the last's", received=added)
