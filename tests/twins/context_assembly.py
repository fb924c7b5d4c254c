"""A permissive twin of context-assembly: the Loom assembler written from the spec text, taking every liberty it allows.

Written apart from the reference: it reads the spec's words, and where they leave a choice it takes the reading the
reference does not (each one listed in LIBERTIES with the sentence, or the registry reading, that allows it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from twins._protocol import Json, Liberty, Refusal
from twins._protocol import Twin as _Twin

__all__ = ["LIBERTIES", "Twin"]

ROLES: Final = {"human": "user", "model": "assistant"}
STRATEGIES: Final = ("truncateMiddle", "rollingWindow", "stopAtLimit")
DEFAULT_RECENT: Final = 4
DEFAULT_TOKEN_BUFFER: Final = 1024
MERGE_JOIN: Final = " "
SYSTEM_JOIN: Final = "\n"
SYSTEM_END: Final = "\n"
BUFFER_JOIN: Final = " "
PREFIX_JOIN: Final = "\n"
MARKER: Final = "[…]"

LIBERTIES: tuple[Liberty, ...] = (
    Liberty(
        what="A model limit is required: a call without modelContextLimit is refused (INVALID_REQUEST), never defaulted.",
        allowed_by="truncation/model-limit-default, reading 2 ('A model limit is required: a call without one is refused "
        "with a spec error'); the document relies on 'the model's limit' and gives it no default.",
    ),
    Liberty(
        what="The active path is read from the tree: the given path's last id is the current position, and the path to it "
        "is walked back through incoming edges to the root (the rest of the given path only breaks ties between edges). "
        "A path off the tree's edges (a skipped, repeated or reversed node) is assembled as that path, not refused.",
        allowed_by="'Traverse the active path from root to current position' (dialogue-mode/path-not-in-tree, reading 2): "
        "the document never says a path that disagrees with the tree is refused, nor with which code.",
    ),
    Liberty(
        what="An unknown current position and edges that run in a cycle are refused with codes of the twin's own "
        "(unknownNode, cyclicPath); malformed nodes and edges with invalidTree, other malformed arguments with "
        "INVALID_REQUEST.",
        allowed_by="The document names no error for a broken tree or path ('returns an error' is said only of stopAtLimit "
        "and of a system context over the limit), so it fixes no code for one.",
    ),
    Liberty(
        what="System texts are never trimmed: the agent-level and tree-level texts and instruction sources are joined by "
        "one newline as given, and the combined system context ends with a newline; a system text made only of "
        "whitespace still 'exists' and is returned as it is.",
        allowed_by="'When both exist, Agent-level comes first, then Tree-level.' says nothing of trimming or of the join "
        "(system-context-combination/combined-text-format, reading 2: 'each intact (trimmed or not), separated by a "
        "non-empty separator made only of whitespace'; no-system-context, reading 2).",
    ),
    Liberty(
        what="With no system text at all, systemContext is present and null (dialogue and buffer mode alike).",
        allowed_by="system-context-combination/no-system-context, reading 2 ('systemContext is present and is the empty "
        "string (or null)').",
    ),
    Liberty(
        what="Dialogue messages carry each node's text as prose: surrounding whitespace trimmed, CRLF line breaks as LF.",
        allowed_by="'Becomes the main message content' fixes no bytes (multi-source-edges/primary-content-whitespace, "
        "reading 2); a buffer document, 'continuous text', keeps every character.",
    ),
    Liberty(
        what="Merged same-author nodes are joined by a single space.",
        allowed_by="'Merge consecutive same-author nodes into single messages' names no separator "
        "(dialogue-mode/merge-separator, reading 2: 'another separator made only of whitespace').",
    ),
    Liberty(
        what="A context source's content goes into the primary source's own message, before it, joined as merged nodes "
        "are, whatever the context node's author.",
        allowed_by="multi-source-edges/context-before-primary, reading 1 ('put into the same message as the primary "
        "content, before it, joined as merged messages are').",
    ),
    Liberty(
        what="Several sources of one role on an edge are taken in reverse list order.",
        allowed_by="'they are processed in order: Instruction → Context → Primary' orders roles, not the sources of one "
        "role (multi-source-edges/order-within-role, reading 2).",
    ),
    Liberty(
        what="Only the instruction sources of the edge into the current position are appended to the system context.",
        allowed_by="dialogue-mode/instruction-sources-scope, reading 2; the table calls instructions 'Per-generation "
        "directives'.",
    ),
    Liberty(
        what="A node reached through an annotation edge is excluded even with metadata.excluded false.",
        allowed_by="exclusion-filtering/annotation-explicit-inclusion, reading 2 (no in-band way to include it).",
    ),
    Liberty(
        what="Every node after an annotation edge on the path (the annotation branch) is excluded too.",
        allowed_by="'Node is reached via an `annotation` edge' (exclusion-filtering/annotation-branch, reading 2: any edge "
        "on the way from the root).",
    ),
    Liberty(
        what="Non-text content becomes '[Image]', '[Image: <name>]' or '[Audio]'; mixed parts are joined by a space.",
        allowed_by="dialogue-mode/non-text-content, reading 2 ('another bracketed placeholder that names its type (such "
        "as '[image]' or '[Image: crab.jpg]')').",
    ),
    Liberty(
        what="Buffer mode returns its document as the content of the one message of messages (role assistant), with no "
        "document field.",
        allowed_by="buffer-mode/single-document-string, reading 2 ('messages array holds exactly one message whose "
        "content is the whole document').",
    ),
    Liberty(
        what="An enabled buffer-mode system context is prepended to the document followed by a newline; systemContext is null.",
        allowed_by="buffer-mode/system-context-placement, reading 1 ('prepended to the document ... followed by a "
        "non-empty separator made only of whitespace').",
    ),
    Liberty(
        what="Buffer-mode contents are joined by a single space, the working buffer after another; context sources come "
        "before their primary there too.",
        allowed_by="buffer-mode/concatenation-separator, reading 2 ('a separator made only of whitespace'); 'Included "
        "before primary as reference' (Edge Source Roles) names no mode.",
    ),
    Liberty(
        what="Buffer-mode truncation cuts the body at a character position: the kept document is the system prefix, the "
        "marker and a suffix filling the budget (the last node and the working buffer whole, or a refusal).",
        allowed_by="buffer-mode/truncation, reading 2 ('Truncation cuts the text at character positions').",
    ),
    Liberty(
        what="Tokens are estimated as ceil(total characters / 4) over the system context and every content together.",
        allowed_by="token-estimation/rounding-and-granularity, reading 2.",
    ),
    Liberty(
        what="systemContextTooLong only when the system context exceeds the model limit itself; between the budget and the "
        "limit the call is refused with contextExceedsLimit.",
        allowed_by="guarantees/system-alone-budget, reading 2, with truncation/recent-nodes-exceed-limit, reading 1.",
    ),
    Liberty(
        what="Under stopAtLimit a system context over the budget (or the limit) is refused with contextExceedsLimit.",
        allowed_by="guarantees/system-too-long-under-stop-at-limit, reading 2 ('the strategy's own error').",
    ),
    Liberty(
        what="truncateMiddle keeps the system context as 'the beginning': it removes the oldest messages and marks the "
        "start of the messages.",
        allowed_by="truncation/middle-removes-from-middle, reading 2 ('The beginning is the system context').",
    ),
    Liberty(
        what="minimumRecentNodes counts path nodes: the messages holding the last N nodes are kept.",
        allowed_by="truncation/recent-nodes-unit, reading 1.",
    ),
    Liberty(
        what="When the system context and the recent nodes do not fit, the call is refused with contextExceedsLimit.",
        allowed_by="truncation/recent-nodes-exceed-limit, reading 1.",
    ),
    Liberty(
        what="The truncation marker is '[…]', written at the start of the first kept message (not a message of its own).",
        allowed_by="truncation/marker-form, reading 2; 'A truncation marker indicates where content was removed' fixes no "
        "wording.",
    ),
    Liberty(
        what="The marker's own tokens are not counted against the budget.",
        allowed_by="truncation/marker-budget, reading 2.",
    ),
    Liberty(
        what="rollingWindow fills the budget by cutting the oldest kept message, keeping its end (down to one character).",
        allowed_by="truncation/rolling-window-unit, reading 2 ('The oldest kept message may be cut, keeping its end').",
    ),
    Liberty(
        what="rollingWindow marks where content went with the truncation marker too.",
        allowed_by="truncation/rolling-window-keeps-recent: 'The document gives rollingWindow no marker: the suite neither "
        "requires nor forbids one'; 'Truncation is transparent via output flags'.",
    ),
    Liberty(
        what="minimumRecentNodes applies under rollingWindow too.",
        allowed_by="user-preferences/minimum-recent-nodes-scope, reading 2.",
    ),
    Liberty(
        what="A path whose every node is excluded gives an empty result (no message; in buffer mode one empty document), "
        "not a refusal.",
        allowed_by="guarantees/nothing-left-after-filtering, reading 2.",
    ),
    Liberty(
        what="droppedMessageCount counts the path nodes whose content is wholly missing (a cut node is not dropped).",
        allowed_by="guarantees/dropped-message-count, reading 2.",
    ),
    Liberty(
        what="droppedMessageCount is left out (dialogue mode) or null (buffer mode) when nothing was dropped.",
        allowed_by="'Truncation is transparent via output flags': the document names no droppedMessageCount field, and with "
        "nothing dropped the truncated flag says it all (guarantees/dropped-message-count: absent or null reads as 0).",
    ),
    Liberty(
        what="Results carry extra fields (mode, estimatedTokens; each dialogue message its nodeIds).",
        allowed_by="The document does not close the shape of a completion request (the Overview: 'transforms a path ... "
        "into a completion request').",
    ),
    Liberty(
        what="A tree without a mode is read as dialogue.",
        allowed_by="The document gives neither mode as required in a request; the kit's request schema requires one, so "
        "the suite never sends a tree without it.",
    ),
)


def ceil4(length: int) -> int:
    """ceil(length / 4)."""
    return -(-length // 4)


@dataclass
class Message:
    """One message before truncation: its role, the texts joined into it and the path nodes it holds."""

    role: str
    texts: list[str]
    nodes: list[str] = field(default_factory=list)

    @property
    def content(self) -> str:
        """The message's text."""
        return MERGE_JOIN.join(self.texts)


@dataclass(frozen=True)
class Step:
    """A node on the derived path: its incoming edge (None for the root), whether it is hidden, whether that edge annotates.

    Every node from an annotation edge on is on an annotation branch, and hidden.
    """

    node: Json
    edge: Json | None
    hidden: bool
    annotated: bool = False


def _refuse(code: str, message: str) -> Refusal:
    return Refusal(code, message)


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _text_of(content: object) -> str:
    """A node's content as text; non-text parts become bracketed placeholders naming their type."""
    if isinstance(content, str):
        return content
    if not isinstance(content, dict):
        raise _refuse("invalidTree", "a node's content is neither text nor a typed content object")
    kind = content.get("type")
    if kind == "text":
        text = content.get("text", "")
        if not isinstance(text, str):  # str(None) is "None", which is not the node's content
            raise _refuse("invalidTree", "a text content's text is not a string")
        return text
    if kind == "mixed":
        parts = content.get("parts")
        return " ".join(_text_of(part) for part in parts) if isinstance(parts, list) else ""
    label = str(kind).capitalize() if kind else "Content"
    name = content.get("name")
    return f"[{label}: {name}]" if isinstance(name, str) and name else f"[{label}]"


class Request:
    """An assemble request, validated."""

    def __init__(self, args: object) -> None:
        if not isinstance(args, dict):
            raise _refuse("INVALID_REQUEST", "the request is an object with a tree and a path")
        tree, path = args.get("tree"), args.get("path")
        if not isinstance(tree, dict):
            raise _refuse("INVALID_REQUEST", "tree must be an object")
        if not isinstance(path, list) or not path or not all(isinstance(p, str) and p for p in path):
            raise _refuse("INVALID_REQUEST", "path must be a non-empty list of node ids")
        mode = tree.get("mode", "dialogue")
        if mode not in ("dialogue", "buffer"):
            raise _refuse("INVALID_REQUEST", "tree.mode is dialogue or buffer")
        self.tree: Json = tree
        self.path: list[str] = path
        self.buffer = mode == "buffer"
        self.nodes = self._nodes(tree.get("nodes"))
        self.edges = self._edges(tree.get("edges"))
        self.settings = self._settings(args.get("settings"), tree.get("settings"))
        limit = args.get("modelContextLimit")
        if limit is None:
            raise _refuse("INVALID_REQUEST", "modelContextLimit is required: the budget is the model's limit")
        if not _integer(limit) or limit < 1:
            raise _refuse("INVALID_REQUEST", "modelContextLimit must be a positive integer")
        self.limit: int = limit
        working = args.get("workingBuffer", "")
        agent = args.get("agent")
        if not isinstance(working, str) or (agent is not None and not isinstance(agent, dict)):
            raise _refuse("INVALID_REQUEST", "workingBuffer is a string and agent an object")
        self.working: str = working
        configuration = (agent or {}).get("configuration")
        prompt = configuration.get("systemPrompt") if isinstance(configuration, dict) else None
        self.agent_prompt = prompt if isinstance(prompt, str) else ""
        system = tree.get("systemContext")
        self.tree_system = system if isinstance(system, str) else ""

    @staticmethod
    def _nodes(nodes: object) -> dict[str, Json]:
        if not isinstance(nodes, list):
            raise _refuse("invalidTree", "tree.nodes must be a list")
        found: dict[str, Json] = {}
        for node in nodes:
            author = node.get("authorType") if isinstance(node, dict) else None
            if not isinstance(node, dict) or not isinstance(node.get("id"), str) or author not in tuple(ROLES):
                raise _refuse("invalidTree", "each node has a string id and an authorType of human or model")
            _text_of(node.get("content", ""))
            metadata = node.get("metadata")
            if metadata is not None and not isinstance(metadata, dict):
                raise _refuse("invalidTree", "node metadata is an object")
            found.setdefault(node["id"], node)
        return found

    @staticmethod
    def _edges(edges: object) -> list[Json]:
        if not isinstance(edges, list):
            raise _refuse("invalidTree", "tree.edges must be a list")
        for edge in edges:
            sources = edge.get("sources") if isinstance(edge, dict) else None
            if not isinstance(edge, dict) or not isinstance(edge.get("target"), str) or not isinstance(sources, list):
                raise _refuse("invalidTree", "each edge has a target and a list of sources")
            if not sources or not all(isinstance(s, dict) and isinstance(s.get("nodeId"), str) for s in sources):
                raise _refuse("invalidTree", "each edge source names a node")
        return edges

    @staticmethod
    def _settings(app: object, tree: object) -> Json:
        merged: Json = {}
        for level in (app, tree):
            if level is None:
                continue
            if not isinstance(level, dict):
                raise _refuse("INVALID_REQUEST", "settings must be an object")
            if level.get("truncationStrategy", STRATEGIES[0]) not in STRATEGIES:
                raise _refuse("INVALID_REQUEST", f"truncationStrategy is one of {', '.join(STRATEGIES)}")
            for name in ("minimumRecentNodes", "tokenBuffer"):
                if name in level and (not _integer(level[name]) or level[name] < 0):
                    raise _refuse("INVALID_REQUEST", f"{name} must be a non-negative integer")
            merged.update(level)
        return merged

    @property
    def strategy(self) -> str:
        """The truncation strategy (the tree's over the app's, truncateMiddle by default)."""
        return str(self.settings.get("truncationStrategy", "truncateMiddle"))

    @property
    def budget(self) -> int:
        """The model limit minus the response buffer."""
        return self.limit - int(self.settings.get("tokenBuffer", DEFAULT_TOKEN_BUFFER))

    @property
    def recent(self) -> int:
        """How many recent nodes are always kept (at least one: the guarantee)."""
        return max(1, int(self.settings.get("minimumRecentNodes", DEFAULT_RECENT)))


def _primary(edge: Json) -> str:
    sources = edge["sources"]
    chosen = next((s for s in sources if s.get("role", "primary") == "primary"), sources[-1])
    return str(chosen["nodeId"])


def _hidden(node: Json) -> bool:
    metadata = node.get("metadata") or {}
    return metadata.get("excluded") is True or metadata.get("pruned") is True


def derive_path(request: Request) -> list[Step]:
    """The path from the root to the current position (the given path's last id), walked back through the edges."""
    current = request.path[-1]
    if current not in request.nodes:
        raise _refuse("unknownNode", f"the current position {current!r} is not a node of the tree")
    hints = {node_id: request.path[i - 1] for i, node_id in enumerate(request.path) if i}
    chain: list[Step] = []
    seen: set[str] = set()
    node_id: str | None = current
    while node_id is not None:
        if node_id in seen:
            raise _refuse("cyclicPath", f"the edges lead back to {node_id!r}: the tree has no root above the current position")
        seen.add(node_id)
        node = request.nodes.get(node_id)
        if node is None:
            raise _refuse("unknownNode", f"an edge names {node_id!r}, which is not a node of the tree")
        incoming = [e for e in request.edges if e["target"] == node_id]
        hinted = [e for e in incoming if _primary(e) == hints.get(node_id)]
        chosen = hinted or incoming
        edge = chosen[0] if chosen else None
        annotated = edge is not None and edge.get("edgeType") == "annotation"
        chain.append(Step(node, edge, _hidden(node), annotated))
        node_id = _primary(edge) if edge is not None else None
    steps: list[Step] = []
    on_annotation_branch = False
    for step in chain[::-1]:
        on_annotation_branch = on_annotation_branch or step.annotated
        steps.append(Step(step.node, step.edge, step.hidden or on_annotation_branch, step.annotated))
    return steps


def _sources(request: Request, edge: Json | None, role: str) -> list[Json]:
    if edge is None:
        return []
    # Within one role the document fixes no order: the twin takes the edge's list backwards.
    chosen = [request.nodes.get(s["nodeId"]) for s in edge["sources"] if s.get("role", "primary") == role][::-1]
    return [node for node in chosen if node is not None and not _hidden(node)]


def system_text(request: Request, steps: list[Step]) -> str | None:
    """Agent-level, tree-level, then the current edge's instruction sources, each as given, one newline apart."""
    parts = [request.agent_prompt, request.tree_system]
    parts += [_text_of(node.get("content", "")) for node in _sources(request, steps[-1].edge, "instruction")]
    kept = [part for part in parts if part]
    return SYSTEM_JOIN.join(kept) + SYSTEM_END if kept else None


def _message_text(content: object) -> str:
    """A node's text as a dialogue message carries it: line breaks as LF, surrounding whitespace trimmed."""
    return _text_of(content).replace("\r\n", "\n").strip()


def units(request: Request, steps: list[Step]) -> list[tuple[str, str, str]]:
    """(role, text, node id) per visible path node; context sources are put before their primary's text.

    Dialogue messages carry each text trimmed, line breaks as LF; a buffer document keeps every character.
    """
    text_of = _text_of if request.buffer else _message_text
    found: list[tuple[str, str, str]] = []
    for index, step in enumerate(steps):
        if step.hidden:
            continue
        following = steps[index + 1] if index + 1 < len(steps) else None
        context = _sources(request, following.edge, "context") if following is not None and not following.hidden else []
        texts = [text_of(node.get("content", "")) for node in context] + [text_of(step.node.get("content", ""))]
        found.append((ROLES[step.node["authorType"]], MERGE_JOIN.join(texts), str(step.node["id"])))
    return found


def merged(found: list[tuple[str, str, str]]) -> list[Message]:
    """One message per run of same-role nodes."""
    messages: list[Message] = []
    for role, text, node_id in found:
        if messages and messages[-1].role == role:
            messages[-1].texts.append(text)
            messages[-1].nodes.append(node_id)
        else:
            messages.append(Message(role, [text], [node_id]))
    return messages


def check_system(request: Request, system: str | None) -> None:
    """Refuse a system context over the limit (or, between the budget and the limit, as context that cannot fit)."""
    tokens = ceil4(len(system or ""))
    if request.strategy == "stopAtLimit" and tokens > request.budget:
        raise _refuse("contextExceedsLimit", f"the system context alone needs {tokens} tokens; the budget is {request.budget}")
    if tokens > request.limit:
        raise _refuse("systemContextTooLong", f"the system context alone needs {tokens} tokens; the limit is {request.limit}")
    if tokens > request.budget:
        raise _refuse("contextExceedsLimit", f"the system context leaves no room in a budget of {request.budget} tokens")


def _too_big(request: Request, tokens: int) -> Refusal:
    return _refuse("contextExceedsLimit", f"the context needs {tokens} tokens; the budget is {request.budget}")


@dataclass(frozen=True)
class Fitted:
    """Messages fitted to the budget: what is kept, how many path nodes went wholly, the estimate, whether cut."""

    messages: list[Json]
    dropped: int
    tokens: int
    truncated: bool


def fit_messages(request: Request, system: str | None, messages: list[Message]) -> Fitted:
    """The messages fitted to the budget by the strategy the settings name."""
    base = len(system or "")
    total = base + sum(len(m.content) for m in messages)
    as_json = [{"role": m.role, "content": m.content, "nodeIds": list(m.nodes)} for m in messages]
    if ceil4(total) <= request.budget:
        return Fitted(as_json, 0, ceil4(total), truncated=False)
    if request.strategy == "stopAtLimit":
        raise _too_big(request, ceil4(total))
    counted = 0
    start = len(messages)
    while start > 0 and counted < request.recent:
        start -= 1
        counted += len(messages[start].nodes)
    used = base + sum(len(m.content) for m in messages[start:])
    if ceil4(used) > request.budget:
        raise _too_big(request, ceil4(used))
    while start > 0 and ceil4(used + len(messages[start - 1].content)) <= request.budget:
        start -= 1
        used += len(messages[start].content)
    kept = as_json[start:]
    dropped = sum(len(m.nodes) for m in messages[:start])
    if request.strategy == "rollingWindow":
        room = 4 * request.budget - used
        if start > 0 and room > 0:
            cut = messages[start - 1]
            kept = [{"role": cut.role, "content": cut.content[-room:], "nodeIds": list(cut.nodes)}, *kept]
            used += room
            dropped -= len(cut.nodes)
    first = {**kept[0], "content": f"{MARKER}\n{kept[0]['content']}"}
    return Fitted([first, *kept[1:]], dropped, ceil4(used), truncated=True)


def dialogue(request: Request, steps: list[Step]) -> Json:
    """Dialogue mode: the system context in its field, one message per same-author run, truncated to the budget."""
    system = system_text(request, steps)
    check_system(request, system)
    messages = merged(units(request, steps))
    fitted = fit_messages(request, system, messages)
    result: Json = {"mode": "dialogue", "systemContext": system, "messages": fitted.messages, "truncated": fitted.truncated}
    if fitted.dropped:
        result["droppedMessageCount"] = fitted.dropped
    return result | {"estimatedTokens": fitted.tokens}


def buffer(request: Request, steps: list[Step]) -> Json:
    """Buffer mode: one document, the system context prepended only when enabled, cut at characters when too long."""
    system = system_text(request, steps) if request.tree.get("bufferModeSystemContext") is True else None
    check_system(request, system)
    found = units(request, steps)
    pieces = [text for _, text, _ in found] + ([request.working] if request.working else [])
    body = BUFFER_JOIN.join(pieces)
    prefix = f"{system}{PREFIX_JOIN}" if system and body else (system or "")
    document, dropped, truncated = prefix + body, 0, False
    if ceil4(len(document)) > request.budget:
        if request.strategy == "stopAtLimit":
            raise _too_big(request, ceil4(len(document)))
        room = 4 * request.budget - len(prefix)
        end = found[-1][1] + (BUFFER_JOIN + request.working if request.working else "") if found else request.working
        if room < len(end):
            raise _too_big(request, ceil4(len(prefix) + len(end)))
        cut_at = len(body) - room
        offset = 0
        for _, text, _ in found:
            dropped += offset + len(text) <= cut_at
            offset += len(text) + len(BUFFER_JOIN)
        document, truncated = f"{prefix}{MARKER}{BUFFER_JOIN}{body[cut_at:]}", True
    return {
        "mode": "buffer",
        "messages": [{"role": "assistant", "content": document}],
        "systemContext": None,
        "truncated": truncated,
        "droppedMessageCount": dropped or None,
        "estimatedTokens": ceil4(len(document)),
    }


def assemble(args: object) -> Json:
    """Assemble one request."""
    request = Request(args)
    steps = derive_path(request)
    return buffer(request, steps) if request.buffer else dialogue(request, steps)


class Twin(_Twin):
    """context-assembly, every liberty taken."""

    spec: ClassVar[str] = "context-assembly"
    version: ClassVar[str] = "Draft"
    features: ClassVar[tuple[str, ...]] = ("buffer_mode", "rolling_window", "stop_at_limit", "multi_source_edges")

    def call(self, op: str, args: Any, context: Json) -> Json:  # noqa: ARG002 - assembly has no call context
        """Assemble, the one operation."""
        if op != "assemble":
            raise Refusal("UNKNOWN_OP", f"context-assembly has no operation {op!r}")
        return assemble(args)
