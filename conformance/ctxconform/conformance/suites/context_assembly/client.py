"""Context assembly as a test sees it: requests built and checked against the schema, replies checked on reading."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance._outcome import CheckedReply
from ctxconform.conformance._schemas import schema_errors
from ctxconform.conformance.exceptions import RequirementFailure

__all__ = [
    "BUFFER_SHAPE",
    "DIALOGUE_SHAPE",
    "SPEC",
    "Outcome",
    "Split",
    "assemble",
    "ceil4",
    "edge",
    "estimate_readings",
    "linear_tree",
    "node",
    "require",
    "send",
    "split_messages",
]

SPEC: Final = "context-assembly"
DIALOGUE_SHAPE: Final = "context-assembly/dialogue-mode/messages-array"
BUFFER_SHAPE: Final = "context-assembly/buffer-mode/single-document-string"
Json = dict[str, Any]


def require(condition: object, requirement: str, message: str) -> None:
    """Fail `requirement` with `message` unless `condition` holds."""
    if not condition:
        raise RequirementFailure(requirement, message)


@dataclass(frozen=True)
class Outcome(CheckedReply):
    """A reply to assemble: a result checked against the response schema when read, or an error."""

    action: str = "assemble"

    def result(self, requirement: str) -> Json:
        """The result; fails `requirement` when refused, and the shape requirement when malformed."""
        if not self.reply.ok:
            raise RequirementFailure(requirement, f"assemble was refused with {self.reply.error}")
        result = self.reply.result
        errors = schema_errors(f"{SPEC}/assemble.response.json", result)
        if errors:
            shape = BUFFER_SHAPE if isinstance(result, dict) and "document" in result else DIALOGUE_SHAPE
            raise RequirementFailure(shape, f"the result does not match the response schema: {'; '.join(errors[:5])}")
        checked: Json = result
        return checked


def send(implementation: Implementation, args: object, requirement: str) -> Outcome:
    """Call assemble with any arguments (malformed ones too); an error object must match the error schema."""
    reply = implementation.call(SPEC, "assemble", args)
    if not reply.ok:
        errors = schema_errors(f"{SPEC}/error.json", reply.error)
        require(not errors, requirement, f"error object does not match the schema: {'; '.join(errors)}")
    return Outcome(reply)


def assemble(implementation: Implementation, request: Json, requirement: str = DIALOGUE_SHAPE) -> Outcome:
    """Check `request` against the request schema (a suite bug otherwise), then call assemble."""
    errors = schema_errors(f"{SPEC}/assemble.request.json", request)
    assert not errors, f"the suite built a request that breaks the schema: {'; '.join(errors)}"
    return send(implementation, request, requirement)


def node(node_id: str, content: object, author: str = "human", **metadata: bool) -> Json:
    """One node; metadata flags (excluded, pruned, bookmarked) only when given."""
    built: Json = {"id": node_id, "authorType": author, "content": content}
    if metadata:
        built["metadata"] = dict(metadata)
    return built


def edge(source: str, target: str, edge_type: str = "continuation", extra: Sequence[tuple[str, str]] = ()) -> Json:
    """An edge from `source` (primary) to `target`, with extra (nodeId, role) sources listed first."""
    sources = [{"nodeId": node_id, "role": role} for node_id, role in extra]
    sources.append({"nodeId": source, "role": "primary"})
    return {"sources": sources, "target": target, "edgeType": edge_type}


def linear_tree(
    texts: Sequence[object],
    authors: Sequence[str] | None = None,
    *,
    mode: str = "dialogue",
    system: str | None = None,
    agent: str | None = None,
    limit: int | None = None,
    settings: Json | None = None,
    tree_settings: Json | None = None,
) -> Json:
    """A request for a path n0 -> n1 -> ... through continuation edges; authors alternate human/model by default."""
    chosen = list(authors) if authors is not None else ["human" if i % 2 == 0 else "model" for i in range(len(texts))]
    ids = [f"n{i}" for i in range(len(texts))]
    tree: Json = {
        "mode": mode,
        "nodes": [node(ids[i], copy.deepcopy(text), chosen[i]) for i, text in enumerate(texts)],
        "edges": [edge(ids[i - 1], ids[i]) for i in range(1, len(ids))],
    }
    if system is not None:
        tree["systemContext"] = system
    if tree_settings is not None:
        tree["settings"] = tree_settings
    request: Json = {"tree": tree, "path": ids}
    if agent is not None:
        request["agent"] = {"configuration": {"systemPrompt": agent}}
    if limit is not None:
        request["modelContextLimit"] = limit
    if settings is not None:
        request["settings"] = settings
    return request


def ceil4(length: int) -> int:
    """ceil(length / 4)."""
    return -(-length // 4)


def estimate_readings(texts: Iterable[str]) -> tuple[int, int]:
    """(low, high): ceil of the total length / 4, and the sum of ceil(length / 4) per text (token-estimation readings)."""
    lengths = [len(text) for text in texts]
    return ceil4(sum(lengths)), sum(ceil4(length) for length in lengths)


@dataclass
class Split:
    """Messages read back against the node contents they came from (for trees whose nodes do not merge)."""

    kept: list[int] = field(default_factory=list)  # node indices, in message order
    markers: list[int] = field(default_factory=list)  # for each marker text, how many kept nodes precede it
    marker_texts: list[str] = field(default_factory=list)
    cut: list[int] = field(default_factory=list)  # node indices kept only in part (their end)
    roles: list[str] = field(default_factory=list)


def split_messages(messages: Sequence[Json], contents: Sequence[str], *, allow_cut: bool = False) -> Split:
    """Match each message to one node content; text from no node is a marker (a message, or around a node's content)."""
    split = Split()
    for message in messages:
        text = str(message.get("content"))
        split.roles.append(str(message.get("role")))
        if text in contents:
            split.kept.append(contents.index(text))
            continue
        inner = [i for i, c in enumerate(contents) if c and c in text]
        if len(inner) == 1:
            index = inner[0]
            before, _, after = text.partition(contents[index])
            if before.strip():
                split.markers.append(len(split.kept))
                split.marker_texts.append(before)
            split.kept.append(index)
            if after.strip():
                split.markers.append(len(split.kept))
                split.marker_texts.append(after)
            continue
        cut = [i for i, c in enumerate(contents) if allow_cut and text and c.endswith(text)]
        if cut:
            split.kept.append(cut[0])
            split.cut.append(cut[0])
            continue
        split.markers.append(len(split.kept))
        split.marker_texts.append(text)
    return split
