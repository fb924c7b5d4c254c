"""System context: agent-level then tree-level, in the dedicated field, with instruction sources appended."""

from __future__ import annotations

from typing import Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance.suites.context_assembly.client import Json, assemble, edge, linear_tree, node, require

requirement = pytest.mark.requirement

AGENT: Final = "You are a careful archivist of the loom."
TREE: Final = "This tree collects notes about tidal pools."
COMBINED: Final = "context-assembly/system-context-combination/combined-text-format"
NONE: Final = "context-assembly/system-context-combination/no-system-context"
INSTRUCTION: Final = "context-assembly/multi-source-edges/instruction-appended-to-system"


def joined(system: str, first: str, second: str) -> bool:
    """Whether `system` is `first` then `second` under a reading of combined-text-format."""
    if system == f"{first.strip()}\n\n{second.strip()}":
        return True
    for head in {first, first.strip()}:
        for tail in {second, second.strip()}:
            if system.startswith(head) and system.endswith(tail) and len(system) > len(head) + len(tail):
                separator = system[len(head) : len(system) - len(tail)]
                if not separator.strip():
                    return True
    return False


def system_of(result: Json) -> str | None:
    """The result's systemContext (None when absent)."""
    value = result.get("systemContext")
    return None if value is None else str(value)


@requirement(
    "context-assembly/system-context-combination/agent-level-applies",
    "context-assembly/dialogue-mode/system-context-included-by-default",
)
def test_agent_prompt_alone_is_the_system_context(implementation: Implementation) -> None:
    """With only an agent prompt, it is the whole system context (trimmed)."""
    request = linear_tree(["Hello there."], agent=f"  {AGENT}\n")
    result = assemble(implementation, request).result("context-assembly/system-context-combination/agent-level-applies")
    require(
        system_of(result) in (AGENT, f"  {AGENT}\n"),
        "context-assembly/system-context-combination/agent-level-applies",
        f"systemContext {system_of(result)!r}; expected {AGENT!r}",
    )


@requirement("context-assembly/system-context-combination/tree-level-applies")
def test_tree_system_context_alone_is_the_system_context(implementation: Implementation) -> None:
    """With only a tree-level text, it is the whole system context (trimmed), with or without an agent object."""
    for request in (linear_tree(["Hello."], system=f"\n{TREE}  "), linear_tree(["Hello."], system=TREE, agent="")):
        result = assemble(implementation, request).result("context-assembly/system-context-combination/tree-level-applies")
        require(
            system_of(result) in (TREE, f"\n{TREE}  "),
            "context-assembly/system-context-combination/tree-level-applies",
            f"systemContext {system_of(result)!r}; expected {TREE!r}",
        )


@requirement(
    "context-assembly/system-context-combination/agent-before-tree",
    "context-assembly/system-context-combination/agent-level-applies",
    "context-assembly/system-context-combination/tree-level-applies",
    COMBINED,
)
def test_agent_text_comes_before_tree_text(implementation: Implementation) -> None:
    """Both present: agent-level first, tree-level second, each once, joined by whitespace."""
    request = linear_tree(["Hello."], agent=AGENT, system=TREE)
    system = system_of(assemble(implementation, request).result("context-assembly/system-context-combination/agent-before-tree"))
    require(system is not None, "context-assembly/system-context-combination/agent-before-tree", "no systemContext")
    assert system is not None
    require(
        system.count(AGENT) == 1 and system.count(TREE) == 1 and system.index(AGENT) < system.index(TREE),
        "context-assembly/system-context-combination/agent-before-tree",
        f"systemContext {system!r}",
    )
    require(joined(system, AGENT, TREE), COMBINED, f"systemContext {system!r} is not agent, whitespace, tree")


printable = st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=60)
padding = st.sampled_from(["", " ", "\n", "  \n\t"])


@requirement(
    "context-assembly/system-context-combination/agent-before-tree",
    COMBINED,
)
@given(agent=printable, tree=printable, pads=st.tuples(padding, padding, padding, padding))
def test_generated_system_texts_combine_in_order(
    implementation: Implementation, agent: str, tree: str, pads: tuple[str, str, str, str]
) -> None:
    """Any two non-blank texts, padded with whitespace, combine as agent then tree."""
    request = linear_tree(["Hi."], agent=f"{pads[0]}{agent}{pads[1]}", system=f"{pads[2]}{tree}{pads[3]}")
    system = system_of(assemble(implementation, request).result("context-assembly/system-context-combination/agent-before-tree"))
    require(
        system is not None and joined(system, f"{pads[0]}{agent}{pads[1]}", f"{pads[2]}{tree}{pads[3]}"),
        COMBINED,
        f"systemContext {system!r} for agent {agent!r} and tree {tree!r}",
    )


@requirement(NONE)
@pytest.mark.parametrize(
    ("agent", "tree"),
    [(None, None), ("", ""), ("   \n", None), (None, "\t\n "), ("  ", "   ")],
    ids=["absent", "empty", "agent-blank", "tree-blank", "both-blank"],
)
def test_no_system_context(implementation: Implementation, agent: str | None, tree: str | None) -> None:
    """With neither text, systemContext is absent (or empty) and no message is added."""
    request = linear_tree(["One.", "Two."], agent=agent, system=tree)
    result = assemble(implementation, request).result(NONE)
    require(result.get("systemContext") in (None, ""), NONE, f"systemContext {result.get('systemContext')!r}")
    require(
        result["messages"] == [{"role": "user", "content": "One."}, {"role": "assistant", "content": "Two."}]
        or [(m["role"], m["content"]) for m in result["messages"]] == [("user", "One."), ("assistant", "Two.")],
        NONE,
        f"messages {result['messages']}",
    )


@requirement(
    "context-assembly/provider-handling/dedicated-field", "context-assembly/dialogue-mode/system-context-included-by-default"
)
def test_system_context_is_not_also_a_message(implementation: Implementation) -> None:
    """The combined context goes in systemContext and in no message; bufferModeSystemContext false has no effect."""
    request = linear_tree(["Question?", "Answer."], agent=AGENT, system=TREE)
    request["tree"]["bufferModeSystemContext"] = False
    result = assemble(implementation, request).result("context-assembly/provider-handling/dedicated-field")
    require(system_of(result), "context-assembly/dialogue-mode/system-context-included-by-default", "no systemContext")
    for message in result["messages"]:
        require(
            AGENT not in message["content"] and TREE not in message["content"],
            "context-assembly/provider-handling/dedicated-field",
            f"message {message} holds the system text",
        )
    require(len(result["messages"]) == 2, "context-assembly/provider-handling/dedicated-field", f"messages {result['messages']}")


def instruction_tree(*, agent: str | None = AGENT, system: str | None = TREE) -> Json:
    """n0 (human) -> n1 (model) through an edge with an instruction source i0 (and a context source c0 on none)."""
    request = linear_tree(["Tell me about crabs.", "Crabs walk sideways."], agent=agent, system=system)
    request["tree"]["nodes"].append(node("i0", "Answer in one sentence.", "human"))
    request["tree"]["edges"] = [edge("n0", "n1", extra=[("i0", "instruction")])]
    return request


@requirement(INSTRUCTION, "context-assembly/multi-source-edges/processing-order")
def test_instruction_source_is_appended_to_system_context(implementation: Implementation) -> None:
    """An instruction source goes after the agent and tree texts, and into no message."""
    result = assemble(implementation, instruction_tree()).result(INSTRUCTION)
    system = system_of(result) or ""
    require(
        system.count("Answer in one sentence.") == 1 and system.endswith("Answer in one sentence."),
        INSTRUCTION,
        f"systemContext {system!r}",
    )
    require(
        system.index(AGENT) < system.index(TREE) < system.index("Answer in one sentence."),
        INSTRUCTION,
        f"systemContext {system!r}",
    )
    require(
        joined(system.removesuffix("Answer in one sentence."), AGENT, TREE)
        or joined(system, f"{AGENT}\n\n{TREE}", "Answer in one sentence."),
        INSTRUCTION,
        f"systemContext {system!r}",
    )
    for message in result["messages"]:
        require("Answer in one sentence." not in message["content"], INSTRUCTION, f"message {message} holds the instruction")
    require(
        [m["content"] for m in result["messages"]] == ["Tell me about crabs.", "Crabs walk sideways."],
        INSTRUCTION,
        f"messages {result['messages']}",
    )


@requirement(INSTRUCTION)
def test_instruction_source_alone_is_the_system_context(implementation: Implementation) -> None:
    """With no agent or tree text, the instruction source still makes a system context."""
    result = assemble(implementation, instruction_tree(agent=None, system=None)).result(INSTRUCTION)
    require(system_of(result) == "Answer in one sentence.", INSTRUCTION, f"systemContext {system_of(result)!r}")


@requirement("context-assembly/multi-source-edges/processing-order")
def test_several_instruction_sources_keep_their_order(implementation: Implementation) -> None:
    """Two instruction sources on one edge appear in the order the edge lists them."""
    request = instruction_tree(agent=None, system=None)
    request["tree"]["nodes"].append(node("i1", "Use plain words.", "human"))
    request["tree"]["edges"] = [edge("n0", "n1", extra=[("i0", "instruction"), ("i1", "instruction")])]
    system = system_of(assemble(implementation, request).result("context-assembly/multi-source-edges/processing-order")) or ""
    require(
        0 <= system.find("Answer in one sentence.") < system.find("Use plain words."),
        "context-assembly/multi-source-edges/processing-order",
        f"systemContext {system!r}",
    )


@requirement("context-assembly/dialogue-mode/instruction-sources-scope")
def test_instruction_on_the_last_edge_is_appended(implementation: Implementation) -> None:
    """Instructions on the edge into the current position are appended under both readings; earlier ones per a reading."""
    request = linear_tree(["A?", "B.", "C?"])
    request["tree"]["nodes"] += [node("i0", "Early directive.", "human"), node("i1", "Late directive.", "human")]
    request["tree"]["edges"] = [edge("n0", "n1", extra=[("i0", "instruction")]), edge("n1", "n2", extra=[("i1", "instruction")])]
    system = system_of(assemble(implementation, request).result("context-assembly/dialogue-mode/instruction-sources-scope")) or ""
    scope = "context-assembly/dialogue-mode/instruction-sources-scope"
    require(system.endswith("Late directive."), scope, f"systemContext {system!r}")
    require(
        system == "Late directive."
        or (system.startswith("Early directive.") and not system[len("Early directive.") : -len("Late directive.")].strip()),
        scope,
        f"systemContext {system!r}: neither every path edge's instructions nor only the last edge's",
    )
