"""Mutants of the context-assembly reference."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ctxconform.reference._implementation import ContextAssemblyHandler, Reference
from ctxconform.reference.context_assembly import DEFAULT_MINIMUM_RECENT, DEFAULT_STRATEGY, DEFAULT_TOKEN_BUFFER, MARKER
from ctxconform.reference.context_assembly._assemble import Assembler
from ctxconform.reference.context_assembly._tree import Step, content_text
from ctxconform.reference.context_assembly._truncate import _MARKER_TOKENS, Fitted, Piece, _middle
from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.mutants._catalogue import Mutant, mutant

__all__ = ["MUTANTS"]

MUTANTS: list[Mutant] = []

Json = dict[str, Any]


class _Handler(ContextAssemblyHandler):
    def call(self, op: str, args: Json, context: Json) -> Json:
        return self.mutate(args, super().call(op, args, context)) if op == "assemble" else super().call(op, args, context)

    def mutate(self, args: Json, result: Json) -> Json:
        raise NotImplementedError


class _TruncatesSystem(_Handler):
    def mutate(self, args: Json, result: Json) -> Json:  # noqa: ARG002 - the result alone is mutated
        if result.get("truncated") and result.get("systemContext"):
            result["systemContext"] = result["systemContext"][: max(1, len(result["systemContext"]) // 2)]
        return result


class _TreeFirst(_Handler):
    def mutate(self, args: Json, result: Json) -> Json:
        agent = ((args.get("agent") or {}).get("configuration") or {}).get("systemPrompt", "").strip()
        tree = (args["tree"].get("systemContext") or "").strip()
        system = result.get("systemContext", "")
        if agent and tree and system.startswith(f"{agent}\n\n{tree}"):
            result["systemContext"] = f"{tree}\n\n{agent}" + system[len(agent) + len(tree) + 2 :]
        return result


class _KeepsAnnotations(_Handler):
    def call(self, op: str, args: Json, context: Json) -> Json:
        if op == "assemble" and isinstance(args, dict) and isinstance(args.get("tree"), dict):
            edges = args["tree"].get("edges")
            if isinstance(edges, list):
                args = {**args, "tree": {**args["tree"], "edges": [_continuation(e) for e in edges]}}
        return ContextAssemblyHandler.call(self, op, args, context)


def _continuation(edge: object) -> object:
    return {**edge, "edgeType": "continuation"} if isinstance(edge, dict) else edge


def _with(handler: ContextAssemblyHandler) -> Reference:
    return Reference(context_assembly=lambda: handler)


@mutant("context-assembly/guarantees/system-context-never-truncated", catalogue=MUTANTS)
def truncates_system_context() -> Reference:
    """The reference, except that a truncated result also loses half of its system context."""
    return _with(_TruncatesSystem())


@mutant("context-assembly/system-context-combination/agent-before-tree", catalogue=MUTANTS)
def tree_context_first() -> Reference:
    """The reference, except that tree-level system context comes before the agent's."""
    return _with(_TreeFirst())


@mutant(
    "context-assembly/exclusion-filtering/annotation-edge-excluded",
    "context-assembly/dialogue-mode/filter-excluded",
    "context-assembly/buffer-mode/filter-excluded",
    catalogue=MUTANTS,
)
def keeps_annotation_nodes() -> Reference:
    """The reference, except that nodes reached through annotation edges stay in the context."""
    return _with(_KeepsAnnotations())


_ROLES = {"human": "user", "model": "assistant"}


def _three_per_token(text: str) -> int:
    return -(-len(text) // 3)


# --- Mutants of one assembly step (a variant of the reference's Assembler) ------------------------------------------


@dataclass
class _Assembling(ContextAssemblyHandler):
    assembler: Assembler = field(default_factory=Assembler)

    def call(self, op: str, args: Json, context: Json) -> Json:
        return self.assembler.run(args) if op == "assemble" else super().call(op, args, context)


def _using(assembler: Assembler) -> Reference:
    return Reference(context_assembly=lambda: _Assembling(assembler=assembler))


def _with_nodes(request: Json, change: Callable[[Json], Json]) -> Json:
    tree = request["tree"]
    return {**request, "tree": {**tree, "nodes": [change(node) for node in tree["nodes"]]}}


def _metadata(node: Json, change: Callable[[Json], Json]) -> Json:
    metadata = node.get("metadata")
    return {**node, "metadata": change(metadata)} if isinstance(metadata, dict) else node


class _AgentPromptMisread(Assembler):
    def system(self, request: Json, steps: list[Step]) -> str:
        misread = {"configuration": {"systemPrompt": (request.get("agent") or {}).get("systemPrompt")}}
        return super().system({**request, "agent": misread}, steps)


class _TreeContextMisread(Assembler):
    def system(self, request: Json, steps: list[Step]) -> str:
        tree = request["tree"]
        return super().system({**request, "tree": {**tree, "systemContext": tree.get("systemPrompt")}}, steps)


class _SystemAsMessageToo(Assembler):
    def result(self, fitted: Fitted, system: str, *, buffer_mode: bool) -> Json:
        result = super().result(fitted, system, buffer_mode=buffer_mode)
        if system and not buffer_mode:
            result["messages"].insert(0, {"role": "user", "content": system})
        return result


class _StripsContent(Assembler):
    def messages(self, steps: list[Step]) -> list[Piece]:
        return [Piece(piece.role, piece.text.strip()) for piece in super().messages(steps)]


class _InstructionsNeedABase(Assembler):
    def system(self, request: Json, steps: list[Step]) -> str:
        return super().system(request, steps) if super().system(request, []) else ""


class _InstructionsReversed(Assembler):
    def system(self, request: Json, steps: list[Step]) -> str:
        return super().system(request, [step._replace(instructions=step.instructions[::-1]) for step in steps])


class _IgnoresExcludedFlag(Assembler):
    def assemble(self, request: Json) -> Json:
        strip = partial(_metadata, change=lambda m: {k: v for k, v in m.items() if k != "excluded" or v is not True})
        return super().assemble(_with_nodes(request, strip))


class _PrunedYieldsToExcluded(Assembler):
    def assemble(self, request: Json) -> Json:
        # metadata.get("excluded", metadata.get("pruned")): an explicit excluded false hides the pruned flag.
        strip = partial(_metadata, change=lambda m: {k: v for k, v in m.items() if k != "pruned" or "excluded" not in m})
        return super().assemble(_with_nodes(request, strip))


class _NoDroppedCountWhenWhole(Assembler):
    def result(self, fitted: Fitted, system: str, *, buffer_mode: bool) -> Json:
        result = super().result(fitted, system, buffer_mode=buffer_mode)
        if not result["droppedMessageCount"]:
            del result["droppedMessageCount"]
        return result


class _WalksBackwards(Assembler):
    def messages(self, steps: list[Step]) -> list[Piece]:
        return super().messages(steps[::-1])


class _StopsAtExcluded(Assembler):
    def messages(self, steps: list[Step]) -> list[Piece]:
        first = next((index for index, step in enumerate(steps) if step.excluded), len(steps))
        return super().messages(steps[:first])


class _DialogueObeysBufferFlag(Assembler):
    def includes_system(self, tree: Json, *, buffer_mode: bool) -> bool:
        return bool(tree.get("bufferModeSystemContext", not buffer_mode))


class _RolesAlternate(Assembler):
    def messages(self, steps: list[Step]) -> list[Piece]:
        roles = ("user", "assistant")
        return [Piece(roles[index % 2], piece.text) for index, piece in enumerate(super().messages(steps))]


class _NoMerging(Assembler):
    def messages(self, steps: list[Step]) -> list[Piece]:
        pieces: list[Piece] = []
        for index, step in enumerate(steps):
            following = steps[index + 1] if index + 1 < len(steps) else None
            context = following.context if following is not None and not following.excluded else ()
            if not step.excluded:
                pieces += [Piece(_ROLES[node["authorType"]], content_text(node.get("content"))) for node in (*context, step.node)]
        return pieces


class _TruncatesWithinMarkerRoom(Assembler):
    def fit(self, pieces: list[Piece], room: int, settings: Json) -> Fitted:
        # The check reserves the marker's tokens even when nothing would be removed.
        costs = [self.estimate(piece.text) for piece in pieces]
        if sum(costs) <= room < sum(costs) + _MARKER_TOKENS and len(pieces) > 1:
            return _middle(pieces, costs, room, settings.get("minimumRecentNodes", DEFAULT_MINIMUM_RECENT))
        return super().fit(pieces, room, settings)


class _LabelsBufferSpeakers(Assembler):
    def segments(self, steps: list[Step], working_buffer: str) -> list[Piece]:
        labels = {"human": "Human: ", "model": "Model: "}
        labelled = [step._replace(node={**step.node, "content": labels[step.node["authorType"]] + _text(step)}) for step in steps]
        return super().segments(labelled, working_buffer)


class _BufferSystemOnByDefault(Assembler):
    def includes_system(self, tree: Json, *, buffer_mode: bool) -> bool:
        return not buffer_mode or bool(tree.get("bufferModeSystemContext", True))


class _BufferSystemWithoutAgent(Assembler):
    def system(self, request: Json, steps: list[Step]) -> str:
        buffer_mode = request["tree"].get("mode") == "buffer"
        return super().system({**request, "agent": None} if buffer_mode else request, steps)


class _BufferWalksBackwards(Assembler):
    def segments(self, steps: list[Step], working_buffer: str) -> list[Piece]:
        return super().segments(steps[::-1], working_buffer)


class _BufferKeepsAnnotations(Assembler):
    def segments(self, steps: list[Step], working_buffer: str) -> list[Piece]:
        return super().segments([step._replace(excluded=_flagged(step.node)) for step in steps], working_buffer)


class _BufferMergesLikeDialogue(Assembler):
    def segments(self, steps: list[Step], working_buffer: str) -> list[Piece]:
        merged = [Piece("text", piece.text) for piece in self.messages(steps)]
        return [*merged, Piece("text", working_buffer)] if working_buffer else merged


class _StripsWorkingBuffer(Assembler):
    def segments(self, steps: list[Step], working_buffer: str) -> list[Piece]:
        return super().segments(steps, working_buffer.strip())


class _TruncatesAtTheBudget(Assembler):
    def fit(self, pieces: list[Piece], room: int, settings: Json) -> Fitted:
        # `<` for `<=`: an estimate equal to the budget is handled as one over it.
        total = sum(self.estimate(piece.text) for piece in pieces)
        return super().fit(pieces, room - 1 if total == room else room, settings)


class _DefaultsToRollingWindow(Assembler):
    def fit(self, pieces: list[Piece], room: int, settings: Json) -> Fitted:
        return super().fit(pieces, room, {"truncationStrategy": "rollingWindow", **settings})


class _FillsBeginningFirst(Assembler):
    reserved: int | None = 1  # None: the minimumRecentNodes setting is ignored, 4 are reserved

    def fit(self, pieces: list[Piece], room: int, settings: Json) -> Fitted:
        if settings.get("truncationStrategy", DEFAULT_STRATEGY) != DEFAULT_STRATEGY:
            return super().fit(pieces, room, settings)
        costs = [self.estimate(piece.text) for piece in pieces]
        if sum(costs) <= room:
            return Fitted(pieces, 0)
        return _beginning_first(pieces, costs, room, DEFAULT_MINIMUM_RECENT if self.reserved is None else self.reserved)


class _IgnoresMinimumRecent(_FillsBeginningFirst):
    reserved = None


class _NoMarker(Assembler):
    def fit(self, pieces: list[Piece], room: int, settings: Json) -> Fitted:
        fitted = super().fit(pieces, room, settings)
        return Fitted([piece for piece in fitted.pieces if piece.text != MARKER], fitted.dropped)


class _RollingOneTooMany(Assembler):
    def fit(self, pieces: list[Piece], room: int, settings: Json) -> Fitted:
        if settings.get("truncationStrategy") != "rollingWindow":
            return super().fit(pieces, room, settings)
        costs = [self.estimate(piece.text) for piece in pieces]
        if sum(costs) <= room:
            return Fitted(pieces, 0)
        start, used = len(pieces) - 1, costs[-1]
        while start > 0 and used <= room:  # checks what is used, not what adding the next would use
            start -= 1
            used += costs[start]
        return Fitted(pieces[start:], start)


class _RollingMayKeepNothing(Assembler):
    def fit(self, pieces: list[Piece], room: int, settings: Json) -> Fitted:
        if settings.get("truncationStrategy") != "rollingWindow":
            return super().fit(pieces, room, settings)
        costs = [self.estimate(piece.text) for piece in pieces]
        start, used = len(pieces), 0
        while start > 0 and used + costs[start - 1] <= room:
            start -= 1
            used += costs[start]
        return Fitted(pieces[start:], start)


class _StopAtLimitKeepsAll(Assembler):
    def fit(self, pieces: list[Piece], room: int, settings: Json) -> Fitted:
        if settings.get("truncationStrategy") == "stopAtLimit":
            return Fitted(pieces, 0)
        return super().fit(pieces, room, settings)


class _StopAtLimitCountsExcluded(Assembler):
    def assemble(self, request: Json) -> Json:
        if self.settings(request).get("truncationStrategy") == "stopAtLimit":
            try:
                super().assemble(_unfiltered(request))
            except SpecError as error:
                if error.code == "contextExceedsLimit":
                    raise
        return super().assemble(request)


class _NoSystemLengthCheck(Assembler):
    def check_system(self, system: str, budget: int) -> None:
        pass


class _FlagsOnlyMarkedTruncation(Assembler):
    def result(self, fitted: Fitted, system: str, *, buffer_mode: bool) -> Json:
        result = super().result(fitted, system, buffer_mode=buffer_mode)
        result["truncated"] = any(piece.text == MARKER for piece in fitted.pieces)
        return result


class _ThreeCharactersPerToken(Assembler):
    estimate = staticmethod(_three_per_token)


class _NoDefaultResponseBuffer(Assembler):
    def budget(self, request: Json, settings: Json) -> int:
        return super().budget(request, {"tokenBuffer": 0, **settings})


class _MisspelledRollingWindow(Assembler):
    def fit(self, pieces: list[Piece], room: int, settings: Json) -> Fitted:
        # The name is compared as "rolling_window", so rollingWindow falls through to the default.
        if settings.get("truncationStrategy") == "rollingWindow":
            settings = {**settings, "truncationStrategy": DEFAULT_STRATEGY}
        return super().fit(pieces, room, settings)


class _ZeroTokenBufferIsUnset(Assembler):
    def budget(self, request: Json, settings: Json) -> int:
        return super().budget(request, {**settings, "tokenBuffer": settings.get("tokenBuffer") or DEFAULT_TOKEN_BUFFER})


class _TreeSettingsReplaceApp(Assembler):
    def settings(self, request: Json) -> Json:
        chosen: Json = request["tree"].get("settings") or request.get("settings") or {}
        return chosen


def _text(step: Step) -> str:
    return content_text(step.node.get("content"))


def _flagged(node: Json) -> bool:
    metadata = node.get("metadata") or {}
    return bool(metadata.get("excluded") or metadata.get("pruned"))


def _unfiltered(request: Json) -> Json:
    cleared = partial(_metadata, change=lambda m: {k: v for k, v in m.items() if k not in ("excluded", "pruned")})
    tree = _with_nodes(request, cleared)["tree"]
    edges = [_continuation(edge) for edge in tree["edges"]]
    return {**request, "tree": {**tree, "edges": edges}}


def _beginning_first(pieces: list[Piece], costs: list[int], budget: int, reserved: int) -> Fitted:
    tail_start = max(1, len(pieces) - max(1, reserved)) if len(pieces) > 1 else 0
    used = sum(costs[tail_start:]) + _MARKER_TOKENS
    head_end = 0
    while head_end < tail_start and used + costs[head_end] <= budget:  # grow the kept beginning first
        used += costs[head_end]
        head_end += 1
    while tail_start > head_end and used + costs[tail_start - 1] <= budget:
        tail_start -= 1
        used += costs[tail_start]
    dropped = tail_start - head_end
    if dropped == 0:
        return Fitted(pieces, 0)
    return Fitted([*pieces[:head_end], Piece("user", MARKER), *pieces[tail_start:]], dropped)


@mutant("context-assembly/system-context-combination/agent-level-applies", catalogue=MUTANTS)
def agent_prompt_read_from_agent() -> Reference:
    """The reference, except that the agent-level prompt is read from agent.systemPrompt, not agent.configuration."""
    return _using(_AgentPromptMisread())


@mutant("context-assembly/system-context-combination/tree-level-applies", catalogue=MUTANTS)
def tree_context_read_as_system_prompt() -> Reference:
    """The reference, except that the tree-level text is read from tree.systemPrompt, not tree.systemContext."""
    return _using(_TreeContextMisread())


@mutant("context-assembly/provider-handling/dedicated-field", catalogue=MUTANTS)
def system_context_also_first_message() -> Reference:
    """The reference, except that the system context is also sent as a first user message."""
    return _using(_SystemAsMessageToo())


@mutant("context-assembly/multi-source-edges/primary-main-content", catalogue=MUTANTS)
def message_content_stripped() -> Reference:
    """The reference, except that each message's content is stripped of surrounding whitespace."""
    return _using(_StripsContent())


@mutant("context-assembly/multi-source-edges/instruction-appended-to-system", catalogue=MUTANTS)
def instructions_need_a_system_context() -> Reference:
    """The reference, except that instruction sources are appended only when an agent or tree system context exists."""
    return _using(_InstructionsNeedABase())


@mutant("context-assembly/multi-source-edges/processing-order", catalogue=MUTANTS)
def instruction_sources_reversed() -> Reference:
    """The reference, except that the instruction sources of an edge are appended in reverse order."""
    return _using(_InstructionsReversed())


@mutant(
    "context-assembly/exclusion-filtering/excluded-flag",
    "context-assembly/dialogue-mode/filter-excluded",
    "context-assembly/buffer-mode/filter-excluded",
    "context-assembly/truncation/stop-at-limit-user-remedies",
    catalogue=MUTANTS,
)
def excluded_flag_ignored() -> Reference:
    """The reference, except that metadata.excluded is ignored (only pruned and annotation edges exclude)."""
    return _using(_IgnoresExcludedFlag())


@mutant("context-assembly/exclusion-filtering/pruned-flag", catalogue=MUTANTS)
def pruned_flag_overridden_by_excluded_false() -> Reference:
    """The reference, except that a pruned node whose metadata.excluded is false stays in the context."""
    return _using(_PrunedYieldsToExcluded())


@mutant("context-assembly/dialogue-mode/messages-array", catalogue=MUTANTS)
def dropped_count_left_out_when_zero() -> Reference:
    """The reference, except that droppedMessageCount is left out of the result when nothing was dropped."""
    return _using(_NoDroppedCountWhenWhole())


@mutant(
    "context-assembly/dialogue-mode/traverse-root-to-current",
    "context-assembly/truncation/middle-keeps-recent",
    "context-assembly/user-preferences/minimum-recent-nodes",
    "context-assembly/truncation/rolling-window-keeps-recent",
    "context-assembly/user-preferences/minimum-recent-nodes-scope",
    "context-assembly/multi-source-edges/context-before-primary",
    catalogue=MUTANTS,
)
def dialogue_path_walked_backwards() -> Reference:
    """The reference, except that dialogue messages run from the current position back to the root."""
    return _using(_WalksBackwards())


@mutant("context-assembly/dialogue-mode/filter-excluded", catalogue=MUTANTS)
def nodes_after_an_excluded_node_dropped() -> Reference:
    """The reference, except that dialogue assembly stops at the first excluded node, dropping the nodes after it."""
    return _using(_StopsAtExcluded())


@mutant("context-assembly/dialogue-mode/system-context-included-by-default", catalogue=MUTANTS)
def dialogue_obeys_buffer_system_flag() -> Reference:
    """The reference, except that dialogue mode leaves the system context out when bufferModeSystemContext is false."""
    return _using(_DialogueObeysBufferFlag())


@mutant("context-assembly/dialogue-mode/author-type-roles", catalogue=MUTANTS)
def roles_alternate_from_user() -> Reference:
    """The reference, except that message roles alternate from user by position instead of following authorType."""
    return _using(_RolesAlternate())


@mutant(
    "context-assembly/dialogue-mode/merge-consecutive-same-author",
    "context-assembly/multi-source-edges/context-before-primary",
    catalogue=MUTANTS,
)
def same_author_nodes_not_merged() -> Reference:
    """The reference, except that consecutive same-author nodes stay separate messages."""
    return _using(_NoMerging())


@mutant(
    "context-assembly/dialogue-mode/truncate-only-if-needed", "context-assembly/truncation/stop-at-limit-error", catalogue=MUTANTS
)
def marker_room_reserved_before_truncating() -> Reference:
    """The reference, except that context that fits but leaves no room for a marker is truncated the middle way."""
    return _using(_TruncatesWithinMarkerRoom())


@mutant("context-assembly/buffer-mode/no-role-distinctions", catalogue=MUTANTS)
def buffer_labels_speakers() -> Reference:
    """The reference, except that buffer mode prefixes each node's content with 'Human: ' or 'Model: '."""
    return _using(_LabelsBufferSpeakers())


@mutant("context-assembly/buffer-mode/system-context-excluded-by-default", catalogue=MUTANTS)
def buffer_system_context_on_by_default() -> Reference:
    """The reference, except that buffer mode includes the system context unless bufferModeSystemContext is false."""
    return _using(_BufferSystemOnByDefault())


@mutant("context-assembly/buffer-mode/system-context-enabled", catalogue=MUTANTS)
def buffer_system_context_without_agent() -> Reference:
    """The reference, except that an enabled buffer-mode system context leaves out the agent-level prompt."""
    return _using(_BufferSystemWithoutAgent())


@mutant("context-assembly/buffer-mode/traverse-active-path", catalogue=MUTANTS)
def buffer_path_walked_backwards() -> Reference:
    """The reference, except that the buffer document runs from the current position back to the root."""
    return _using(_BufferWalksBackwards())


@mutant("context-assembly/buffer-mode/filter-excluded", catalogue=MUTANTS)
def buffer_keeps_annotation_nodes() -> Reference:
    """The reference, except that buffer mode keeps nodes reached through annotation edges."""
    return _using(_BufferKeepsAnnotations())


@mutant("context-assembly/buffer-mode/concatenate-content", catalogue=MUTANTS)
def buffer_merges_same_author_runs() -> Reference:
    """The reference, except that buffer mode joins same-author runs with a blank line, as dialogue merging does."""
    return _using(_BufferMergesLikeDialogue())


@mutant("context-assembly/buffer-mode/append-working-buffer", catalogue=MUTANTS)
def working_buffer_stripped() -> Reference:
    """The reference, except that the working buffer is stripped of surrounding whitespace before it is appended."""
    return _using(_StripsWorkingBuffer())


@mutant("context-assembly/truncation/applies-when-exceeds", "context-assembly/truncation/stop-at-limit-error", catalogue=MUTANTS)
def truncates_at_exactly_the_budget() -> Reference:
    """The reference, except that context whose estimate equals the budget is truncated as if it exceeded it."""
    return _using(_TruncatesAtTheBudget())


@mutant("context-assembly/truncation/truncate-middle-default", catalogue=MUTANTS)
def rolling_window_by_default() -> Reference:
    """The reference, except that rollingWindow applies when no truncationStrategy is set."""
    return _using(_DefaultsToRollingWindow())


@mutant(
    "context-assembly/truncation/middle-keeps-recent",
    "context-assembly/user-preferences/minimum-recent-nodes",
    "context-assembly/truncation/recent-nodes-unit",
    "context-assembly/buffer-mode/truncation",
    catalogue=MUTANTS,
)
def middle_fills_beginning_first() -> Reference:
    """The reference, except that truncateMiddle fills the budget from the beginning, reserving only the last message."""
    return _using(_FillsBeginningFirst())


@mutant("context-assembly/truncation/marker-present", "context-assembly/buffer-mode/truncation", catalogue=MUTANTS)
def no_truncation_marker() -> Reference:
    """The reference, except that truncateMiddle puts no marker where messages were removed."""
    return _using(_NoMarker())


@mutant("context-assembly/truncation/rolling-window-keeps-recent", "context-assembly/buffer-mode/truncation", catalogue=MUTANTS)
def rolling_window_keeps_one_too_many() -> Reference:
    """The reference, except that rollingWindow keeps one message more than fits (it checks before adding)."""
    return _using(_RollingOneTooMany())


@mutant("context-assembly/truncation/stop-at-limit-error", "context-assembly/buffer-mode/truncation", catalogue=MUTANTS)
def stop_at_limit_returns_everything() -> Reference:
    """The reference, except that stopAtLimit returns an oversized context whole instead of refusing it."""
    return _using(_StopAtLimitKeepsAll())


@mutant("context-assembly/truncation/stop-at-limit-user-remedies", catalogue=MUTANTS)
def stop_at_limit_counts_excluded_nodes() -> Reference:
    """The reference, except that stopAtLimit measures the path before exclusion, so excluding nodes does not help."""
    return _using(_StopAtLimitCountsExcluded())


@mutant("context-assembly/guarantees/system-context-too-long", catalogue=MUTANTS)
def system_context_length_not_checked() -> Reference:
    """The reference, except that a system context over the limit is not refused."""
    return _using(_NoSystemLengthCheck())


@mutant(
    "context-assembly/guarantees/at-least-one-message",
    "context-assembly/truncation/rolling-window-keeps-recent",
    "context-assembly/user-preferences/minimum-recent-nodes-scope",
    catalogue=MUTANTS,
)
def rolling_window_may_keep_nothing() -> Reference:
    """The reference, except that rollingWindow keeps no message when the most recent one alone does not fit."""
    return _using(_RollingMayKeepNothing())


@mutant("context-assembly/guarantees/truncated-flag", "context-assembly/buffer-mode/truncation", catalogue=MUTANTS)
def truncated_only_with_a_marker() -> Reference:
    """The reference, except that truncated is true only when a marker was inserted, so rollingWindow reports false."""
    return _using(_FlagsOnlyMarkedTruncation())


@mutant(
    "context-assembly/token-estimation/four-chars-per-token",
    "context-assembly/dialogue-mode/truncate-only-if-needed",
    "context-assembly/truncation/rolling-window-unit",
    "context-assembly/truncation/stop-at-limit-error",
    catalogue=MUTANTS,
)
def three_characters_per_token() -> Reference:
    """The reference, except that tokens are estimated at three characters each."""
    return _using(_ThreeCharactersPerToken())


@mutant("context-assembly/token-estimation/response-buffer-reserved", catalogue=MUTANTS)
def no_default_response_buffer() -> Reference:
    """The reference, except that no response buffer is reserved when tokenBuffer is not set."""
    return _using(_NoDefaultResponseBuffer())


@mutant(
    "context-assembly/user-preferences/truncation-strategy",
    "context-assembly/truncation/rolling-window-keeps-recent",
    "context-assembly/truncation/rolling-window-unit",
    catalogue=MUTANTS,
)
def rolling_window_setting_not_recognised() -> Reference:
    """The reference, except that the rollingWindow setting is not recognised and truncateMiddle applies instead."""
    return _using(_MisspelledRollingWindow())


@mutant("context-assembly/user-preferences/minimum-recent-nodes", catalogue=MUTANTS)
def minimum_recent_nodes_ignored() -> Reference:
    """The reference, except that truncateMiddle fills from the beginning and reserves 4 recent nodes, whatever the setting."""
    return _using(_IgnoresMinimumRecent())


@mutant("context-assembly/user-preferences/token-buffer", catalogue=MUTANTS)
def zero_token_buffer_taken_as_unset() -> Reference:
    """The reference, except that a tokenBuffer of 0 is taken as unset, so 1024 tokens are reserved."""
    return _using(_ZeroTokenBufferIsUnset())


@mutant("context-assembly/user-preferences/app-level-or-per-tree", catalogue=MUTANTS)
def tree_settings_replace_app_settings() -> Reference:
    """The reference, except that any tree-level settings replace the app-level ones as a whole."""
    return _using(_TreeSettingsReplaceApp())
