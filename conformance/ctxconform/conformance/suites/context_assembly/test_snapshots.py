"""Golden scripts: the fixture trees of fixtures/context-assembly, answers normalized and compared with their snapshots."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from syrupy.assertion import SnapshotAssertion

from ctxconform.conformance.suites.context_assembly.client import SPEC, AssemblyClient, Json, dropped_count
from ctxconform.conformance.testing import (
    GoldenPart,
    GoldenScript,
    GoldenStep,
    fixtures_dir,
    golden_params,
    load_script,
    replay_script,
)

SCRIPTS: Final = golden_params(fixtures_dir() / SPEC)
# dialogue-mode/non-text-content: any bracketed placeholder naming the type is read as the same token.
PLACEHOLDER: Final = re.compile(r"\[[^\[\]]*\b(image|audio)\b[^\[\]]*\]", re.IGNORECASE)
DEFAULT_MINIMUM_RECENT: Final = 4
LABELS: Final = ("human:", "model:", "user:", "assistant:")
# Parts are compared in this order, so that the first that differs is the most specific one.
PART_ORDER: Final = (
    "labels",
    "excluded",
    "pruned",
    "annotation",
    "nodes",
    "order",
    "default-strategy",
    "system-in-messages",
    "system-as-dialogue",
    "agent-level",
    "tree-level",
    "system-untruncated",
    "system",
    "sequence",
    "messages",
    "flags",
    "recent",
    "truncated",
    "marker",
    "refusal",
)


def known_texts(request: Json) -> dict[str, str]:
    """Every text a token can stand for: each text node's content (mixed content by part) and the working buffer."""
    known = {"workingBuffer": request.get("workingBuffer", "")}
    for node in request["tree"]["nodes"]:
        content = node["content"]
        if isinstance(content, str):
            known[node["id"]] = content
        elif content.get("type") == "mixed":
            known |= {f"{node['id']}/{i}": part["text"] for i, part in enumerate(content["parts"]) if part["type"] == "text"}
    return {key: text for key, text in known.items() if text}


def tokens(text: str, known: dict[str, str]) -> list[str]:
    """The text as the node ids it holds in order, placeholders as [image]/[audio], other text as 'text:...'."""
    spans = [(text.find(content), len(content), key) for key, content in known.items() if content in text]
    spans += [(m.start(), m.end() - m.start(), f"[{m.group(1).lower()}]") for m in PLACEHOLDER.finditer(text)]
    found: list[str] = []
    position = 0
    for start, length, token in sorted(spans):
        if start < position:
            continue
        found += _gap(text[position:start])
        found.append(token)
        position = start + length
    return found + _gap(text[position:])


def _gap(text: str) -> list[str]:
    # Separators are whitespace under every reading (merge-separator, combined-text-format, concatenation-separator).
    words = " ".join(text.split())
    return [f"text:{words}"] if words else []


def normalize(result: Json, request: Json) -> Json:
    """What conforming implementations share under every reading: the system text and each message as tokens."""
    known = known_texts(request)
    system = " ".join(str(result.get("systemContext") or "").split()) or None
    if "document" in result or request["tree"]["mode"] == "buffer":
        text = str(result["document"]) if "document" in result else str(result["messages"][0]["content"])
        document = tokens(text, known)
        if system is None and document and document[0].startswith("text:"):  # system-context-placement: prepended
            system = document.pop(0).removeprefix("text:")
        return {"system": system, "messages": [["document", *document]], "flags": _flags(result)}
    messages = [[message["role"], *tokens(str(message["content"]), known)] for message in result["messages"]]
    return {"system": system, "messages": messages, "flags": _flags(result)}


def _flags(result: Json) -> Json:
    return {"truncated": result["truncated"], "droppedMessageCount": dropped_count(result)}


def hidden_nodes(request: Json) -> dict[str, set[str]]:
    """The nodes the request hides, by how: metadata.excluded, metadata.pruned, reached through an annotation edge."""
    nodes = request["tree"]["nodes"]
    flagged = {how: {n["id"] for n in nodes if (n.get("metadata") or {}).get(how) is True} for how in ("excluded", "pruned")}
    annotated = {e["target"] for e in request["tree"]["edges"] if e.get("edgeType") == "annotation"}
    return {**flagged, "annotation": annotated}


def node_tokens(normalized: Json) -> list[str]:
    """The tokens that stand for node contents (and the working buffer), in order."""
    return [t for message in normalized["messages"] for t in message[1:] if not t.startswith(("text:", "["))]


def text_tokens(normalized: Json) -> list[str]:
    """The text that comes from no node, one entry per gap."""
    return [t.removeprefix("text:") for message in normalized["messages"] for t in message[1:] if t.startswith("text:")]


def whole_parts(normalized: Json) -> dict[str, Any]:
    """The parts of an untruncated answer: system text, the node sequence, its grouping into messages, the flags."""
    sequence = [f"{message[0]}:{token}" for message in normalized["messages"] for token in message[1:]]
    return {
        "system": normalized["system"],
        "sequence": sequence,
        "messages": normalized["messages"],
        "flags": normalized["flags"],
    }


def truncated_parts(normalized: Json, recent: int) -> dict[str, Any]:
    """The parts of a truncated answer fixed under every reading: system, the recent messages, flag and marker."""
    messages = normalized["messages"]
    # marker-form: the marker may stand inside a kept message, so recent messages are compared by their nodes only.
    kept = [[token for token in message if not token.startswith("text:")] for message in messages[-recent:]]
    texts = text_tokens(normalized)
    return {"system": normalized["system"], "recent": kept, "truncated": normalized["flags"]["truncated"], "marker": bool(texts)}


def path_parts(normalized: Json, request: Json, result: Json) -> dict[str, Any]:
    """The parts about the path: hidden nodes that show, which nodes show and in what order, labels, the system text."""
    tokens_ = node_tokens(normalized)
    shown = {token.split("/")[0] for token in tokens_}
    parts: dict[str, Any] = {how: sorted(ids & shown) for how, ids in hidden_nodes(request).items()}
    parts |= {"nodes": sorted(set(tokens_)), "order": tokens_}
    document = str(result.get("document") or "".join(str(m.get("content")) for m in result.get("messages") or []))
    parts["labels"] = [label for label in LABELS if label in document.lower()]
    system = normalized["system"]
    parts["system-in-messages"] = system_in_messages(system, request, result)
    return parts | system_parts(system, request)


def system_in_messages(system: str | None, request: Json, result: Json) -> bool:
    """Whether a dialogue message holds the whole system text (whitespace collapsed), no node's content holding it.

    Read from the messages' text as sent: an instruction source's content is both a node's and part of the system text.
    """
    if not system or request["tree"]["mode"] == "buffer":
        return False
    if any(system in " ".join(text.split()) for text in known_texts(request).values()):
        return False
    return any(system in " ".join(str(m.get("content")).split()) for m in result.get("messages") or [])


def system_parts(system: str | None, request: Json) -> dict[str, Any]:
    """Whether the trimmed agent-level and tree-level texts are in the system text (normalized as it is)."""
    agent = ((request.get("agent") or {}).get("configuration") or {}).get("systemPrompt") or ""
    tree = request["tree"].get("systemContext") or ""
    return {name: " ".join(text.split()) in (system or "") for name, text in (("agent-level", agent), ("tree-level", tree))}


def minimum_recent(request: Json) -> int:
    """The request's minimumRecentNodes (the tree's over the app's), else the spec's default."""
    settings = {**(request.get("settings") or {}), **(request["tree"].get("settings") or {})}
    return int(settings.get("minimumRecentNodes", DEFAULT_MINIMUM_RECENT))


def compared_parts(client: AssemblyClient, script: GoldenScript, step: GoldenStep, names: set[str]) -> dict[str, Any]:
    """Every part this step's answer has (a refusal, or the parts of a whole or a truncated answer)."""
    reply = client.assemble(step.args, serves=script.owner)
    if "refusal" in names:
        return {"refusal": reply.refused(step.owners["refusal"])}
    result = reply.expect(script.owner)
    normalized = normalize(result, step.args)
    truncated = "recent" in names
    parts = truncated_parts(normalized, minimum_recent(step.args)) if truncated else whole_parts(normalized)
    parts |= path_parts(normalized, step.args, result)
    if "default-strategy" in names:
        explicit = {**step.args, "settings": {**(step.args.get("settings") or {}), "truncationStrategy": "truncateMiddle"}}
        parts["default-strategy"] = normalize(client.assemble(explicit, serves=script.owner).result, step.args) == normalized
    if "system-as-dialogue" in names:  # the combined system context of the same tree, assembled in dialogue mode
        dialogue = {key: value for key, value in step.args.items() if key != "workingBuffer"}
        dialogue["tree"] = {**step.args["tree"], "mode": "dialogue"}
        reply = client.assemble(dialogue, serves=step.owner_of("system-as-dialogue", script.owner))
        parts["system-as-dialogue"] = normalize(reply.result, dialogue)["system"] == normalized["system"]
    if "system-untruncated" in names:
        roomy = client.assemble({**step.args, "modelContextLimit": 10**7}, serves=script.owner).result
        parts["system-untruncated"] = normalize(roomy, step.args)["system"] == normalized["system"]
    return parts


def answer_parts(client: AssemblyClient, script: GoldenScript, step: GoldenStep) -> dict[str, Any]:
    """Call one step and cut its normalized answer into the parts the step's owners name, most specific first."""
    names = set(step.owners)
    unknown = names - set(PART_ORDER)
    if unknown:
        raise RuntimeError(f"{script.description!r}: a step's owners name parts the replayer does not know: {sorted(unknown)}")
    parts = compared_parts(client, script, step, names)
    return {name: parts[name] for name in PART_ORDER if name in names}


def answerer(client: AssemblyClient, script: GoldenScript) -> Callable[[int, GoldenStep], Iterator[GoldenPart]]:
    """The replayer's answer function for one script."""

    def answer(_: int, step: GoldenStep) -> Iterator[GoldenPart]:
        for name, value in answer_parts(client, script, step).items():
            yield GoldenPart(name=name, value=value)

    return answer


@pytest.mark.parametrize("path", SCRIPTS)
def test_fixture_tree_matches_the_golden_snapshot(path: Path, client: AssemblyClient, snapshot: SnapshotAssertion) -> None:
    """The answer to a fixture tree, normalized where the registry allows readings, matches the golden snapshots."""
    script = load_script(path)
    replay_script(script, answerer(client, script), snapshot)
