"""Buffer mode: one document of the path's contents, the working buffer at its end, system context only when enabled."""

from __future__ import annotations

from typing import Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance.suites.context_assembly import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.context_assembly.client import (
    AssemblyClient,
    Json,
    edge,
    linear_tree,
    node,
    whitespace_separator,
)
from ctxconform.conformance.testing import Implementation, check, requirement

DOCUMENT: Final = R.BUFFER_MODE_SINGLE_DOCUMENT_STRING
ROLES: Final = R.BUFFER_MODE_NO_ROLE_DISTINCTIONS
DEFAULT_OFF: Final = R.BUFFER_MODE_SYSTEM_CONTEXT_EXCLUDED_BY_DEFAULT
ENABLED: Final = R.BUFFER_MODE_SYSTEM_CONTEXT_ENABLED
PLACEMENT: Final = R.BUFFER_MODE_SYSTEM_CONTEXT_PLACEMENT
TRAVERSE: Final = R.BUFFER_MODE_TRAVERSE_ACTIVE_PATH
FILTER: Final = R.BUFFER_MODE_FILTER_EXCLUDED
CONCAT: Final = R.BUFFER_MODE_CONCATENATE_CONTENT
SEPARATOR: Final = R.BUFFER_MODE_CONCATENATION_SEPARATOR
WORKING: Final = R.BUFFER_MODE_APPEND_WORKING_BUFFER
TRUNCATION: Final = R.BUFFER_MODE_TRUNCATION
SYSTEM_LONG: Final = R.GUARANTEES_SYSTEM_CONTEXT_TOO_LONG
LABELS: Final = ("human:", "model:", "user:", "assistant:")
AGENT: Final = "AGENT-PROMPT-xyz"
TREE: Final = "TREE-CONTEXT-xyz"


def document_of(result: Json, texts: list[str]) -> str:
    """The document under a reading of single-document-string: its own field, or the one message's content.

    Two checks come first so that later ones may rely on them: no role labels, and `texts` (those present) in path order.
    """
    if "document" in result:
        check(DOCUMENT, not result.get("messages"), "a document and messages", received=result)
        document = str(result["document"])
    else:
        messages = result.get("messages") or []
        check(DOCUMENT, len(messages) == 1, "not one document in buffer mode", received=result)
        document = str(messages[0]["content"])
    labels = [label for label in LABELS if label in document.lower()]
    check(ROLES, not labels, "role labels in the document", received=document)
    check(TRAVERSE, in_path_order(document, texts), "the contents are not in path order", received=document, expected=texts)
    return document


def in_path_order(document: str, texts: list[str]) -> bool:
    """Whether the texts the document holds come in the given order (texts it lacks are skipped)."""
    position = 0
    for text in filter(None, texts):
        found = document.find(text, position)
        if found < 0 and text in document:
            return False
        position = found + len(text) if found >= 0 else position
    return True


def concatenated(document: str, texts: list[str], working: str = "") -> bool:
    """Whether `document` is `texts` joined, then `working`, under a reading of concatenation-separator."""
    if not working:
        return whitespace_separator(document, texts) is not None
    direct = document.endswith(working) and whitespace_separator(document[: -len(working)], texts) is not None
    return direct or whitespace_separator(document, [*texts, working]) is not None


def prepended(document: str, system: str, texts: list[str]) -> bool:
    """Whether `document` is `system`, a separator made only of whitespace, then `texts` concatenated (placement 1).

    Whitespace ending the system text counts as (part of) the separator.
    """
    system = system.rstrip()
    if not system or not document.startswith(system):
        return False
    rest = document[len(system) :]
    blank = len(rest) - len(rest.lstrip())
    return any(concatenated(rest[size:], texts) for size in range(1, blank + 1))


def added_text(document: str, texts: list[str]) -> str | None:
    """The non-blank text around and between the contents, found in order; None when a content is missing."""
    added, position = [], 0
    for text in texts:
        found = document.find(text, position)
        if found < 0:
            return None
        added.append(document[position:found])
        position = found + len(text)
    added.append(document[position:])
    return "".join(added).strip()


def buffer_request(texts: list[str], **kwargs: object) -> Json:
    """A buffer-mode linear tree."""
    return linear_tree(texts, mode="buffer", **kwargs)  # type: ignore[arg-type]


def document_for(client: AssemblyClient, request: Json, serves: str, texts: list[str]) -> str:
    """The document the implementation assembles for a request that must succeed."""
    return document_of(client.assemble(request, serves=serves).result, texts)


@requirement(DOCUMENT, CONCAT, SEPARATOR, ROLES, TRAVERSE)
def test_contents_are_concatenated(client: AssemblyClient) -> None:
    """Human and model contents alike, in path order, no role labels."""
    texts = ["Once upon a time", " there was a crab", " who walked forward."]
    document = document_for(client, buffer_request(texts), DOCUMENT, texts)
    check(CONCAT, added_text(document, texts) is not None, "a content is missing or out of order", received=document)
    labels = [label for label in ("user", "assistant", "human", "model") if label in document.lower()]
    check(ROLES, not labels and added_text(document, texts) == "", "text added to the contents", received=document)
    check(SEPARATOR, concatenated(document, texts), "the contents are not joined by one separator", received=document)


@requirement(CONCAT, ROLES, DOCUMENT, TRAVERSE)
@given(
    texts=st.lists(st.text(st.characters(min_codepoint=97, max_codepoint=122), min_size=1, max_size=40), min_size=1, max_size=8),
    authors=st.lists(st.sampled_from(["human", "model"]), min_size=8, max_size=8),
)
def test_generated_contents_concatenate(implementation: Implementation, texts: list[str], authors: list[str]) -> None:
    """Same-author runs are not merged differently: every content once, unchanged, in order."""
    request = buffer_request(texts, authors=authors[: len(texts)])
    result = AssemblyClient(implementation).assemble(request, serves=CONCAT).result
    document = document_of(result, texts)
    check(ROLES, added_text(document, texts) == "", "text added to the contents", sent=request, received=document)
    check(CONCAT, concatenated(document, texts), "not the contents concatenated", sent=request, received=document)
    check(CONCAT, result["truncated"] is False, "truncated without need", received=result)


@requirement(CONCAT, DOCUMENT, ROLES, TRAVERSE)
def test_same_author_nodes_join_like_any_others(client: AssemblyClient) -> None:
    """Consecutive human nodes are not merged as in dialogue mode: one separator throughout the document."""
    texts = ["Line one.", "Line two.", "Line three.", "A reply."]
    document = document_for(client, buffer_request(texts, authors=["human", "human", "human", "model"]), CONCAT, texts)
    check(CONCAT, concatenated(document, texts), "not the contents concatenated", received=document)


@requirement(DEFAULT_OFF)
@pytest.mark.parametrize("flag", [None, False])
def test_system_context_off_by_default(client: AssemblyClient, flag: bool | None) -> None:
    """Without bufferModeSystemContext (or false), no system text anywhere."""
    request = buffer_request(["Text."], agent=AGENT, system=TREE)
    if flag is not None:
        request["tree"]["bufferModeSystemContext"] = flag
    shown = repr(client.assemble(request, serves=DEFAULT_OFF).result)
    check(DEFAULT_OFF, AGENT not in shown and TREE not in shown, "system text in the result", received=shown)


@requirement(ENABLED, PLACEMENT, DOCUMENT, ROLES, TRAVERSE)
def test_system_context_when_enabled(client: AssemblyClient) -> None:
    """With bufferModeSystemContext true: prepended to the document, or in systemContext with the document unchanged."""
    request = buffer_request(["Text one.", "Text two."], agent=AGENT, system=TREE)
    # The combined system context is what this implementation makes of agent and tree in dialogue mode (combining
    # them is system-context-combination's business).
    dialogue = {**request, "tree": {**request["tree"], "mode": "dialogue"}}
    combined = str(client.assemble(dialogue, serves=ENABLED).result.get("systemContext") or "")
    request["tree"]["bufferModeSystemContext"] = True
    result = client.assemble(request, serves=ENABLED).result
    shown = "\u0000".join([str(result.get("systemContext") or ""), str(result.get("document") or "")])
    shown += "".join(str(m.get("content")) for m in result.get("messages") or [])
    check(ENABLED, bool(combined) and combined in shown, "the combined system context is missing", received=result)
    document = document_of(result, ["Text one.", "Text two."])
    system = result.get("systemContext")
    body = ["Text one.", "Text two."]
    in_field = isinstance(system, str) and system.strip() == combined.strip() and concatenated(document, body)
    before = prepended(document, combined, body)
    check(PLACEMENT, in_field or before, "the system context is neither prepended nor in its field", received=result)


@requirement(TRAVERSE, DOCUMENT, ROLES)
def test_only_the_active_path(client: AssemblyClient) -> None:
    """Other branches never appear in the document."""
    request = buffer_request(["Root.", "Branch A."])
    request["tree"]["nodes"].append(node("b", "Branch B.", "model"))
    request["tree"]["edges"].append(edge("n0", "b"))
    request["path"] = ["n0", "b"]
    document = document_for(client, request, TRAVERSE, ["Root.", "Branch B."])
    check(TRAVERSE, concatenated(document, ["Root.", "Branch B."]), "not the active path", sent=request, received=document)


@requirement(FILTER, DOCUMENT, ROLES, TRAVERSE)
@pytest.mark.parametrize("how", ["excluded", "pruned", "annotation"])
def test_excluded_nodes_contribute_nothing(client: AssemblyClient, how: str) -> None:
    """Excluded, pruned and annotation-reached nodes add no text."""
    request = buffer_request(["Kept one.", "HIDDEN text.", "Kept two."])
    if how == "annotation":
        request["tree"]["edges"][0]["edgeType"] = "annotation"
    else:
        request["tree"]["nodes"][1]["metadata"] = {how: True}
    document = document_for(client, request, FILTER, ["Kept one.", "Kept two."])
    check(FILTER, "HIDDEN" not in document, f"{how} text in the document", sent=request, received=document)
    if how != "annotation":
        check(FILTER, concatenated(document, ["Kept one.", "Kept two."]), "the other nodes changed", received=document)


@requirement(WORKING, DOCUMENT, ROLES, TRAVERSE)
@pytest.mark.parametrize("working", ["", " and then", "\nNew line draft"])
def test_working_buffer_is_appended(client: AssemblyClient, working: str) -> None:
    """The working buffer ends the document, unchanged; an empty one adds nothing."""
    request = buffer_request(["First part.", "Second part."])
    request["workingBuffer"] = working
    document = document_for(client, request, WORKING, ["First part.", "Second part.", working])
    appended = concatenated(document, ["First part.", "Second part."], working) and document.endswith(working)
    check(WORKING, appended, "the working buffer does not end the document unchanged", sent=request, received=document)


@requirement(TRUNCATION, DOCUMENT, ROLES, TRAVERSE)
@pytest.mark.parametrize("strategy", ["truncateMiddle", "rollingWindow"])
def test_oversized_document_keeps_its_end(client: AssemblyClient, strategy: str) -> None:
    """Over the budget: truncated, the end (last node and working buffer) kept, a marker under truncateMiddle."""
    texts = [f"<{i}>" + "p" * 397 for i in range(8)]  # 100 tokens each
    request = buffer_request(texts, limit=460, settings={"tokenBuffer": 10, "truncationStrategy": strategy})
    request["workingBuffer"] = "[draft]"
    result = client.assemble(request, serves=TRUNCATION).result
    document = document_of(result, [*texts, "[draft]"])
    check(TRUNCATION, result["truncated"] is True, "not truncated", received=result)
    kept_end = document.endswith("[draft]") and texts[-1] in document
    check(TRUNCATION, kept_end, "the end of the document is lost", received=document[-80:])
    check(TRUNCATION, texts[3] not in document, "a middle node kept in a document over the budget", received=document)
    if strategy == "truncateMiddle":
        rest = document.replace("[draft]", "")
        for text in texts:
            rest = rest.replace(text, "")
        check(TRUNCATION, bool(rest.strip("p\n")), "no marker where text was removed", received=document)


@requirement(TRUNCATION, DOCUMENT, ROLES, TRAVERSE)
def test_document_that_fits_is_whole(client: AssemblyClient) -> None:
    """A document within the budget is returned whole."""
    texts = [f"<{i}>" + "p" * 97 for i in range(4)]
    result = client.assemble(buffer_request(texts, limit=210, settings={"tokenBuffer": 10}), serves=TRUNCATION).result
    whole = result["truncated"] is False and concatenated(document_of(result, texts), texts)
    check(TRUNCATION, whole, "a document that fits is changed", received=result)


@requirement(TRUNCATION)
def test_stop_at_limit_refuses_oversized_document(client: AssemblyClient) -> None:
    """Under stopAtLimit, refuses an oversized document with contextExceedsLimit."""
    texts = [f"<{i}>" + "p" * 397 for i in range(4)]
    request = buffer_request(texts, limit=310, settings={"tokenBuffer": 10, "truncationStrategy": "stopAtLimit"})
    client.assemble(request, serves=TRUNCATION).refused(TRUNCATION, "contextExceedsLimit")


@requirement(SYSTEM_LONG)
def test_enabled_system_context_too_long(client: AssemblyClient) -> None:
    """Buffer mode with the system context enabled: one over the limit is refused with systemContextTooLong."""
    # Agent and tree texts each over the limit alone: reading either one is enough to refuse.
    request = buffer_request(["Text."], agent="A" * 2000, system="T" * 2000, limit=310, settings={"tokenBuffer": 10})
    request["tree"]["bufferModeSystemContext"] = True
    client.assemble(request, serves=SYSTEM_LONG).refused(SYSTEM_LONG, "systemContextTooLong")
