"""Buffer mode: one document of the path's contents, the working buffer at its end, system context only when enabled."""

from __future__ import annotations

from typing import Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance.suites.context_assembly.client import BUFFER_SHAPE, Json, assemble, edge, linear_tree, node, require

requirement = pytest.mark.requirement

DOCUMENT: Final = BUFFER_SHAPE
ROLES: Final = "context-assembly/buffer-mode/no-role-distinctions"
DEFAULT_OFF: Final = "context-assembly/buffer-mode/system-context-excluded-by-default"
ENABLED: Final = "context-assembly/buffer-mode/system-context-enabled"
PLACEMENT: Final = "context-assembly/buffer-mode/system-context-placement"
TRAVERSE: Final = "context-assembly/buffer-mode/traverse-active-path"
FILTER: Final = "context-assembly/buffer-mode/filter-excluded"
CONCAT: Final = "context-assembly/buffer-mode/concatenate-content"
SEPARATOR: Final = "context-assembly/buffer-mode/concatenation-separator"
WORKING: Final = "context-assembly/buffer-mode/append-working-buffer"
TRUNCATION: Final = "context-assembly/buffer-mode/truncation"
SEPARATORS: Final = ("", "\n", "\n\n")
AGENT: Final = "AGENT-PROMPT-xyz"
TREE: Final = "TREE-CONTEXT-xyz"


def document_of(result: Json) -> str:
    """The document under a reading of single-document-string: its own field, or the one message's content."""
    if "document" in result:
        require(not result.get("messages"), DOCUMENT, f"a document and messages {result.get('messages')}")
        return str(result["document"])
    messages = result.get("messages") or []
    require(len(messages) == 1, DOCUMENT, f"{len(messages)} messages in buffer mode; expected one document")
    return str(messages[0]["content"])


def concatenated(document: str, texts: list[str], working: str = "") -> bool:
    """Whether `document` is `texts` joined, then `working`, under a reading of concatenation-separator."""
    for separator in SEPARATORS:
        body = separator.join(texts)
        if not working and document == body:
            return True
        if working and document in (body + working, body + separator + working):
            return True
    return False


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


@requirement(DOCUMENT, CONCAT, SEPARATOR, ROLES)
def test_contents_are_concatenated(implementation: Implementation) -> None:
    """Human and model contents alike, in path order, no role labels."""
    texts = ["Once upon a time", " there was a crab", " who walked forward."]
    document = document_of(assemble(implementation, buffer_request(texts)).result(DOCUMENT))
    for label in ("user", "assistant", "human", "model", "User:", "Assistant:"):
        require(label.lower() not in document.lower(), ROLES, f"role label {label!r} in {document!r}")
    require(added_text(document, texts) == "", ROLES, f"text added to the contents in {document!r}")
    require(concatenated(document, texts), SEPARATOR, f"document {document!r}")


@requirement(CONCAT, SEPARATOR, ROLES)
@given(
    texts=st.lists(st.text(st.characters(min_codepoint=97, max_codepoint=122), min_size=1, max_size=40), min_size=1, max_size=8),
    authors=st.lists(st.sampled_from(["human", "model"]), min_size=8, max_size=8),
)
def test_generated_contents_concatenate(implementation: Implementation, texts: list[str], authors: list[str]) -> None:
    """Same-author runs are not merged differently: every content once, unchanged, in order."""
    result = assemble(implementation, buffer_request(texts, authors=authors[: len(texts)])).result(DOCUMENT)
    document = document_of(result)
    require(added_text(document, texts) == "", ROLES, f"text added to the contents in {document!r}")
    require(concatenated(document, texts), CONCAT, f"document {document!r} for {texts}")
    require(result["truncated"] is False, CONCAT, "truncated without need")


@requirement(CONCAT, SEPARATOR)
def test_same_author_nodes_join_like_any_others(implementation: Implementation) -> None:
    """Consecutive human nodes are not merged as in dialogue mode: one separator throughout the document."""
    texts = ["Line one.", "Line two.", "Line three.", "A reply."]
    request = buffer_request(texts, authors=["human", "human", "human", "model"])
    document = document_of(assemble(implementation, request).result(CONCAT))
    require(concatenated(document, texts), CONCAT, f"document {document!r}")


@requirement(DEFAULT_OFF)
@pytest.mark.parametrize("flag", [None, False])
def test_system_context_off_by_default(implementation: Implementation, flag: bool | None) -> None:
    """Without bufferModeSystemContext (or false), no system text anywhere."""
    request = buffer_request(["Text."], agent=AGENT, system=TREE)
    if flag is not None:
        request["tree"]["bufferModeSystemContext"] = flag
    result = assemble(implementation, request).result(DEFAULT_OFF)
    shown = repr(result)
    require(AGENT not in shown and TREE not in shown, DEFAULT_OFF, f"system text in {shown[:300]}")


@requirement(ENABLED, PLACEMENT)
def test_system_context_when_enabled(implementation: Implementation) -> None:
    """With bufferModeSystemContext true: prepended to the document, or in systemContext with the document unchanged."""
    request = buffer_request(["Text one.", "Text two."], agent=AGENT, system=TREE)
    request["tree"]["bufferModeSystemContext"] = True
    result = assemble(implementation, request).result(ENABLED)
    document = document_of(result)
    system = result.get("systemContext")
    in_field = (
        isinstance(system, str) and AGENT in system and TREE in system and concatenated(document, ["Text one.", "Text two."])
    )
    prepended = False
    for separator in ("\n", "\n\n"):
        for combined in (f"{AGENT}\n\n{TREE}", f"{AGENT}\n{TREE}"):
            if document.startswith(combined + separator):
                prepended = concatenated(document[len(combined + separator) :], ["Text one.", "Text two."])
    require(AGENT in repr(result) and TREE in repr(result), ENABLED, "system context missing")
    require(in_field or prepended, PLACEMENT, f"document {document!r}, systemContext {system!r}")


@requirement(TRAVERSE)
def test_only_the_active_path(implementation: Implementation) -> None:
    """Other branches never appear in the document."""
    request = buffer_request(["Root.", "Branch A."])
    request["tree"]["nodes"].append(node("b", "Branch B.", "model"))
    request["tree"]["edges"].append(edge("n0", "b"))
    request["path"] = ["n0", "b"]
    document = document_of(assemble(implementation, request).result(TRAVERSE))
    require(concatenated(document, ["Root.", "Branch B."]), TRAVERSE, f"document {document!r}")


@requirement(FILTER)
@pytest.mark.parametrize("how", ["excluded", "pruned", "annotation"])
def test_excluded_nodes_contribute_nothing(implementation: Implementation, how: str) -> None:
    """Excluded, pruned and annotation-reached nodes add no text."""
    request = buffer_request(["Kept one.", "HIDDEN text.", "Kept two."])
    if how == "annotation":
        request["tree"]["edges"][0]["edgeType"] = "annotation"
    else:
        request["tree"]["nodes"][1]["metadata"] = {how: True}
    document = document_of(assemble(implementation, request).result(FILTER))
    require("HIDDEN" not in document, FILTER, f"document {document!r}")
    if how != "annotation":
        require(concatenated(document, ["Kept one.", "Kept two."]), FILTER, f"document {document!r}")


@requirement(WORKING)
@pytest.mark.parametrize("working", ["", " and then", "\nNew line draft"])
def test_working_buffer_is_appended(implementation: Implementation, working: str) -> None:
    """The working buffer ends the document, unchanged; an empty one adds nothing."""
    request = buffer_request(["First part.", "Second part."])
    request["workingBuffer"] = working
    document = document_of(assemble(implementation, request).result(WORKING))
    require(concatenated(document, ["First part.", "Second part."], working), WORKING, f"document {document!r}")
    require(document.endswith(working), WORKING, f"document {document!r}")


@requirement(TRUNCATION)
@pytest.mark.parametrize("strategy", ["truncateMiddle", "rollingWindow"])
def test_oversized_document_keeps_its_end(implementation: Implementation, strategy: str) -> None:
    """Over the budget: truncated, the end (last node and working buffer) kept, a marker under truncateMiddle."""
    if strategy == "rollingWindow" and "rolling_window" not in implementation.features("context-assembly"):
        pytest.skip("rolling_window not declared")
    texts = [f"<{i}>" + "p" * 397 for i in range(8)]  # 100 tokens each
    request = buffer_request(texts, limit=450, settings={"tokenBuffer": 0, "truncationStrategy": strategy})
    request["workingBuffer"] = " draft"
    result = assemble(implementation, request).result(TRUNCATION)
    document = document_of(result)
    require(result["truncated"] is True, TRUNCATION, "not truncated")
    require(
        document.endswith(texts[-1] + " draft") or (document.endswith(" draft") and texts[-1] in document),
        TRUNCATION,
        f"end lost: {document[-80:]!r}",
    )
    require(texts[3] not in document, TRUNCATION, "a middle node kept in a document over the budget")
    if strategy == "truncateMiddle":
        rest = document.replace(" draft", "")
        for text in texts:
            rest = rest.replace(text, "")
        require(rest.strip("p\n"), "context-assembly/truncation/marker-present", f"no marker in {document[:120]!r}...")


@requirement(TRUNCATION)
def test_document_that_fits_is_whole(implementation: Implementation) -> None:
    """A document within the budget is returned whole under every strategy."""
    texts = [f"<{i}>" + "p" * 97 for i in range(4)]
    request = buffer_request(texts, limit=200, settings={"tokenBuffer": 0})
    result = assemble(implementation, request).result(TRUNCATION)
    require(result["truncated"] is False and concatenated(document_of(result), texts), TRUNCATION, "fitting document changed")


@requirement(TRUNCATION, "context-assembly/truncation/stop-at-limit-error")
def test_stop_at_limit_refuses_oversized_document(implementation: Implementation) -> None:
    """Under stopAtLimit, refuses an oversized document with contextExceedsLimit."""
    texts = [f"<{i}>" + "p" * 397 for i in range(4)]
    request = buffer_request(texts, limit=300, settings={"tokenBuffer": 0, "truncationStrategy": "stopAtLimit"})
    if not {"stop_at_limit", "buffer_mode"} <= implementation.features("context-assembly"):
        pytest.skip("stop_at_limit and buffer_mode not both declared")
    assemble(implementation, request).refused(TRUNCATION, "contextExceedsLimit")


@requirement(ENABLED)
def test_enabled_system_context_too_long(implementation: Implementation) -> None:
    """Buffer mode with the system context enabled: one over the limit is refused with systemContextTooLong."""
    request = buffer_request(["Text."], system="T" * 2000, limit=300, settings={"tokenBuffer": 0})
    request["tree"]["bufferModeSystemContext"] = True
    assemble(implementation, request).refused("context-assembly/guarantees/system-context-too-long", "systemContextTooLong")
