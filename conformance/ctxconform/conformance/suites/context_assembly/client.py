"""Context assembly as a test sees it: one client whose requests declare the optional features they need."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ctxconform.conformance.suites.context_assembly import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.testing import (
    Checked,
    Client,
    Implementation,
    Operation,
    Operations,
    needs_feature,
    schema_errors,
)

__all__ = [
    "OPERATIONS",
    "SPEC",
    "AssemblyClient",
    "Json",
    "Split",
    "ceil4",
    "dropped_count",
    "edge",
    "estimate_readings",
    "linear_tree",
    "needed_features",
    "node",
    "split_messages",
    "whitespace_separator",
]

SPEC: Final = "context-assembly"
Json = dict[str, Any]

# An error object that breaks error.json is charged to the operation's requirement: the spec defines no error shape.
OPERATIONS: Final = Operations(
    spec=SPEC,
    table={"assemble": Operation(requirement=R.DIALOGUE_MODE_MESSAGES_ARRAY, schema=f"{SPEC}/assemble.response.json")},
    error_schema=f"{SPEC}/error.json",
)
STRATEGY_FEATURES: Final = {"rollingWindow": "rolling_window", "stopAtLimit": "stop_at_limit"}
# The limit a request carries when its test is not about the limit: truncation/model-limit-default lets an
# implementation require one, so only the test of that requirement leaves it out.
ROOMY_LIMIT: Final = 128_000


def needed_features(request: object) -> list[str]:
    """The optional features a request relies on: buffer mode, an optional strategy named anywhere, mixed-role edges."""
    if not isinstance(request, dict) or not isinstance(request.get("tree"), dict):
        return []
    tree: Json = request["tree"]
    needed = ["buffer_mode"] if tree.get("mode") == "buffer" else []
    strategies = [s.get("truncationStrategy") for s in (request.get("settings"), tree.get("settings")) if isinstance(s, dict)]
    needed += [STRATEGY_FEATURES[s] for s in strategies if isinstance(s, str) and s in STRATEGY_FEATURES]
    edges = tree.get("edges")
    if isinstance(edges, list) and any(_mixed_roles(e) for e in edges):
        needed.append("multi_source_edges")
    return list(dict.fromkeys(needed))


def _mixed_roles(edge_: object) -> bool:
    sources = edge_.get("sources") if isinstance(edge_, dict) else None
    return isinstance(sources, list) and any(isinstance(s, dict) and s.get("role") != "primary" for s in sources)


class AssemblyClient(Client):
    """Calls assemble; a request that relies on an undeclared optional feature skips the test before it is sent."""

    def __init__(self, implementation: Implementation) -> None:
        super().__init__(implementation, OPERATIONS)

    def assemble(self, request: Json, *, serves: str | None = None) -> Checked:
        """Send a request the suite built; one that breaks the request schema is a suite bug."""
        errors = schema_errors(f"{SPEC}/assemble.request.json", request)
        if errors:
            raise RuntimeError(f"the suite built an assemble request that breaks the schema: {'; '.join(errors)}")
        return self.send(request, serves=serves)

    def send(self, args: object, *, serves: str | None = None) -> Checked:
        """Send any arguments, malformed ones too."""
        for feature in needed_features(args):
            needs_feature(SPEC, feature)
        return self.call("assemble", args, serves=serves)


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
    limit: int | None = ROOMY_LIMIT,
    settings: Json | None = None,
    tree_settings: Json | None = None,
) -> Json:
    """A request for a path n0 -> n1 -> ... through continuation edges; authors alternate human/model by default.

    The model limit is 128,000 tokens unless given; None leaves it out (truncation/model-limit-default's own case).
    """
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


def dropped_count(result: Json) -> object:
    """The result's droppedMessageCount, absent or null read as 0 (guarantees/dropped-message-count)."""
    value = result.get("droppedMessageCount")
    return 0 if value is None else value


def whitespace_separator(text: str, parts: Sequence[str]) -> str | None:
    """The separator made only of whitespace (maybe empty) that joins `parts` into `text`, the same throughout; or None."""
    if not parts or not text.startswith(parts[0]):
        return None
    start = len(parts[0])
    end = start
    while end < len(text) and text[end].isspace():
        end += 1
    for stop in range(start, end + 1):
        if text[start:stop].join(parts) == text:
            return text[start:stop]
    return None


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
    cut_texts: list[str] = field(default_factory=list)  # for each of those, the end kept
    # Cut nodes whose end follows marker text in its message: the message may as well be a marker alone, the node
    # removed (a marker ending as a content does, such as with "]").
    ambiguous: list[int] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)


def split_messages(messages: Sequence[Json], contents: Sequence[str], *, allow_cut: bool = False) -> Split:
    """Match each message to one node content; text from no node is a marker (a message, or around a node's content).

    With `allow_cut`, a message may hold the end of a content (rolling-window-unit), after a marker or not; an end that
    several contents share (a cut may keep a single character) is the content just before the next kept one. An end
    after a marker is also noted as `ambiguous`: that message may be a marker alone.
    """
    split = Split()
    choices: dict[int, list[int]] = {}  # position in kept -> the contents a cut end may come from
    after_marker: set[int] = set()  # positions in kept of cut ends that follow marker text in their message
    for message in messages:
        text = str(message.get("content"))
        split.roles.append(str(message.get("role")))
        if text in contents:
            split.kept.append(contents.index(text))
            continue
        inner = [i for i, c in enumerate(contents) if c and c in text]
        if len(inner) == 1:
            _split_around(split, text, inner[0], contents[inner[0]])
            continue
        found = _cut_end(text, contents) if allow_cut else None
        if found is None:
            split.markers.append(len(split.kept))
            split.marker_texts.append(text)
            continue
        marker, end, candidates = found
        if marker:
            split.markers.append(len(split.kept))
            split.marker_texts.append(marker)
            after_marker.add(len(split.kept))
        choices[len(split.kept)] = candidates
        split.kept.append(candidates[0])
        split.cut_texts.append(end)
    for position, candidates in choices.items():
        following = split.kept[position + 1] if position + 1 < len(split.kept) else None
        if following is not None and following - 1 in candidates:
            split.kept[position] = following - 1
        split.cut.append(split.kept[position])
        if position in after_marker:
            split.ambiguous.append(split.kept[position])
    return split


def _shared_end(first: str, second: str) -> int:
    """How many characters the two texts share at their end."""
    length = 0
    while length < min(len(first), len(second)) and first[-1 - length] == second[-1 - length]:
        length += 1
    return length


def _cut_end(text: str, contents: Sequence[str]) -> tuple[str, str, list[int]] | None:
    """(marker, end, candidates): the text as the end of a cut content, maybe after a marker, or None.

    The marker may stand inside the first message after the removal (marker-form); the candidates are the contents the
    end may come from. None when the text is no content's end.
    """
    ends = [i for i, content in enumerate(contents) if text and content.endswith(text)]
    if ends:
        return "", text, ends
    shared = [_shared_end(text, content) for content in contents]
    longest = max(shared, default=0)
    if longest == 0 or not text[:-longest].strip():
        return None
    return text[:-longest], text[-longest:], [i for i, length in enumerate(shared) if length == longest]


def _split_around(split: Split, text: str, index: int, content: str) -> None:
    before, _, after = text.partition(content)
    if before.strip():
        split.markers.append(len(split.kept))
        split.marker_texts.append(before)
    split.kept.append(index)
    if after.strip():
        split.markers.append(len(split.kept))
        split.marker_texts.append(after)
