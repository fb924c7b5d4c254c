"""Snapshot tests: the scripted executions of fixtures/content-provider, normalized and compared with the golden snapshots."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from syrupy.assertion import SnapshotAssertion

from ctxconform.conformance.suites.content_provider.client import (
    MANIFEST,
    SPEC,
    Execution,
    appears_in_order,
    as_given,
    documented,
    found_in,
    key,
    names_are_exact,
    new_id,
    register_view,
    trace_view,
)
from ctxconform.conformance.suites.content_provider.client import registers as by_key
from ctxconform.conformance.testing import (
    Checked,
    GoldenPart,
    GoldenScript,
    GoldenStep,
    Implementation,
    fixtures_dir,
    golden_params,
    load_script,
    replay_script,
    schema_errors,
)

Json = dict[str, Any]

# Every code error.json allows; another code is recorded as a bare refusal.
CODES: Final = frozenset(
    {
        "UNKNOWN_CLASSIFICATION",
        "CLASSIFICATION_CONFLICT",
        "BLANK_NAME",
        "MANIFEST_MISSING",
        "MANIFEST_RECORDS_ONLY",
        "PROVIDER_EXISTS",
        "PROVIDER_NOT_FOUND",
        "REGISTER_NOT_FOUND",
        "NO_PENDING_REQUEST",
        "TRACE_OPEN",
        "NO_OPEN_TRACE",
        "SESSION_NOT_FOUND",
        "INVALID_REQUEST",
        "UNKNOWN_OP",
    }
)
# Answers the registry accepts as equivalent, recorded as one token: 5.1's two readings of creating a provider for an
# execution that has one, 7.2's of beginning a trace while one is open, 4.3's of a delivery report with nothing
# pending; the two codes a text item offered to the ToolCallManifest may be refused with; 6.2's two readings of a
# session never saved and 4.4's of a serialized provider without a ToolCallManifest.
ANOTHER_PROVIDER: Final = "<refused or no-op>"
NO_OP: Final = "<refused or no-op>"
RECORDS_ONLY: Final = "<refused: records only>"
NEVER_SAVED: Final = "<refused or a new provider>"
NO_MANIFEST: Final = "<refused or a manifest added>"
EMPTY_MANIFEST: Final = {"name": MANIFEST, "classification": "Consumable", "items": []}
FOLDER: Final = fixtures_dir() / SPEC
TRACE_PARTS: Final = ("steps", "tokens", "summary")  # compared one by one, after the invocations listed
ABSENT: Final = "<absent>"  # a field a trace does not carry (an open trace's tokens and summary)


class Run:
    """One replay of a script: placeholders bound to fresh ids, the executions that hold a provider, answers normalized."""

    def __init__(self, implementation: Implementation) -> None:
        self.implementation = implementation
        self.ids: dict[str, str] = {}
        self.live: set[str] = set()
        self.pending: set[str] = set()  # executions with a composed request not yet reported delivered or failed
        self.open: dict[str, int] = {}  # executions with a trace open, and its invocation
        self.saved: set[str] = set()  # session ids persisted to
        self.given: dict[tuple[str, object], Json] = {}  # the tokens and summary end_trace was given, by invocation
        # Where register names are exact keys (4.2/stable-name's other reading), a script's other spellings of a name
        # would name other registers than the golden run's: each register is then asked for by its first spelling.
        self.spellings: dict[str, str] | None = {key(MANIFEST): MANIFEST} if names_are_exact(implementation) else None

    def bind(self, args: Json) -> Json:
        """The step's arguments with `$placeholders` of executionId and sessionId replaced by this run's ids."""
        bound = dict(args)
        for name in ("executionId", "sessionId"):
            if isinstance(bound.get(name), str) and bound[name].startswith("$"):
                bound[name] = self.ids.setdefault(bound[name], new_id(bound[name][1:]))
        for name in ("name", "register"):
            if self.spellings is not None and isinstance(bound.get(name), str) and bound[name].strip():
                bound[name] = self.spellings.setdefault(key(bound[name]), bound[name])
        return bound

    def unbind(self, value: object) -> object:
        """An answer with this run's ids turned back into their placeholders."""
        names = {real: placeholder for placeholder, real in self.ids.items()}
        return names.get(value, value) if isinstance(value, str) else value

    def answer(self, index: int, step: GoldenStep) -> Iterator[GoldenPart]:  # noqa: ARG002 - the replayer numbers the parts
        """Run one step and cut its normalized answer into parts."""
        args = self.bind(step.args)
        execution = Execution(self.implementation, args["executionId"])
        provider = self._provider(execution) if step.op == "compose" else {}
        reading = self._reading(step.op, args)
        outcome = execution.send(step.op, args)
        self._track(step.op, args["executionId"], outcome)
        token = reading(outcome)
        if token is not None:
            yield GoldenPart(name="answer", value=token)
        elif not outcome.ok:
            yield GoldenPart(name="answer", value={"error": outcome.code if outcome.code in CODES else "<refused>"})
        else:
            yield from self.parts(step.op, self.trimmed(step.op, args, outcome.result), provider)

    def trimmed(self, op: str, args: Json, result: Json) -> Json:
        """A trace's (or the traces') token totals and summary cut down to the fields given to end_trace.

        7.3 lets an implementation add counts and summary fields of its own: they are not recorded.
        """
        execution_id = args["executionId"]
        if op == "end_trace":
            self.given[execution_id, result.get("invocation")] = {"tokens": args["tokens"], "summary": args["summary"]}
            return self._trace_as_given(execution_id, result)
        if op == "get_traces":
            return {**result, "traces": [self._trace_as_given(execution_id, trace) for trace in result["traces"]]}
        return result

    def _trace_as_given(self, execution_id: str, trace: Json) -> Json:
        given = self.given.get((execution_id, trace.get("invocation")))
        if given is None:
            return trace
        view = trace_view(trace)
        return {**view, **{name: as_given(view[name], given[name]) for name in ("tokens", "summary") if name in view}}

    def _reading(self, op: str, args: Json) -> Callable[[Checked], str | None]:
        execution_id = args["executionId"]
        if op in ("create_provider", "rehydrate") and execution_id in self.live:
            return lambda outcome: ANOTHER_PROVIDER if outcome.ok or outcome.code == "PROVIDER_EXISTS" else None
        if op == "append_item" and isinstance(args.get("register"), str) and key(args["register"]) == "toolcallmanifest":
            return lambda outcome: RECORDS_ONLY if outcome.code in ("MANIFEST_RECORDS_ONLY", "INVALID_REQUEST") else None
        if op == "rehydrate":
            return self._rehydrate_reading(args)
        return self._no_op_reading(op, execution_id)

    def _no_op_reading(self, op: str, execution_id: str) -> Callable[[Checked], str | None]:
        if op == "begin_trace" and execution_id in self.open:
            number = self.open[execution_id]
            return lambda outcome: NO_OP if outcome.code == "TRACE_OPEN" or _answers(outcome, "invocation", number) else None
        if op in ("mark_delivered", "mark_failed") and execution_id in self.live and execution_id not in self.pending:
            return lambda outcome: NO_OP if outcome.code == "NO_PENDING_REQUEST" or _answers(outcome, "cleared", 0) else None
        return lambda _outcome: None

    def _rehydrate_reading(self, args: Json) -> Callable[[Checked], str | None]:
        given = args.get("provider")
        if "sessionId" in args and args["sessionId"] not in self.saved:
            fresh = by_key({"registers": [EMPTY_MANIFEST]})
            return lambda outcome: NEVER_SAVED if outcome.code == "SESSION_NOT_FOUND" or _holds(outcome, fresh) else None
        if isinstance(given, dict) and _lacks_manifest(given):
            added = by_key({"registers": [*given["registers"], EMPTY_MANIFEST]})
            return lambda outcome: NO_MANIFEST if outcome.code == "MANIFEST_MISSING" or _holds(outcome, added) else None
        return lambda _outcome: None

    def _track(self, op: str, execution_id: str, outcome: Checked) -> None:
        if op in ("create_provider", "rehydrate") and outcome.ok:
            self.live.add(execution_id)
        elif op == "end_execution" and outcome.ok:
            self.live.discard(execution_id)
            self.open.pop(execution_id, None)
            self.pending.discard(execution_id)
        elif op == "compose" and outcome.ok:
            self.pending.add(execution_id)
        elif op in ("mark_delivered", "mark_failed"):
            self.pending.discard(execution_id)
        elif op == "begin_trace" and outcome.ok and execution_id not in self.open:
            self.open[execution_id] = _answer_field(outcome, "invocation")
        elif op == "end_trace" and outcome.ok:
            self.open.pop(execution_id, None)
        elif op == "persist" and outcome.ok:
            self.saved.add(str(outcome.sent.get("sessionId")) if isinstance(outcome.sent, dict) else "")

    def _provider(self, execution: Execution) -> dict[str, Json]:
        # The Session and Consumable items a composed request must carry are the provider's just before it.
        reply = execution.op("get_provider")
        return {key(r["name"]): r for r in reply.result["provider"]["registers"]} if reply.ok else {}

    def parts(self, op: str, result: Json, provider: dict[str, Json]) -> Iterator[GoldenPart]:
        """The parts of a result: a provider by register, a request by lane, traces by the fields the document defines."""
        if op == "compose":
            for name, value in lanes(result, provider).items():
                yield GoldenPart(name=name, value=value)
        elif op == "get_traces":
            traces = [essentials(trace) for trace in result["traces"]]
            yield GoldenPart(name="count", value=len(traces))
            yield GoldenPart(name="invocations", value=[{k: t.get(k, ABSENT) for k in ("invocation", "ended")} for t in traces])
            for name in TRACE_PARTS:
                yield GoldenPart(name=name, value=[trace.get(name, ABSENT) for trace in traces])
        elif op == "end_trace":
            trace = essentials(result)
            yield GoldenPart(name="trace", value={k: trace.get(k, ABSENT) for k in ("invocation", "ended")})
            for name in TRACE_PARTS:
                yield GoldenPart(name=name, value=trace.get(name, ABSENT))
        elif "provider" in result:
            registers = sorted(result["provider"]["registers"], key=lambda r: key(r["name"]))
            answer = documented(op, result)
            yield GoldenPart(name="answer", value={n: self.unbind(v) for n, v in answer.items() if n != "provider"})
            yield GoldenPart(name="registers", value=[r["name"] for r in registers])
            for register in registers:
                yield GoldenPart(name=key(register["name"]), value=register_view(register))
        else:
            answer = documented(op, result)
            if isinstance(answer.get("register"), dict):
                answer["register"] = register_view(answer["register"])
            yield GoldenPart(name="answer", value={name: self.unbind(value) for name, value in answer.items()})


def _answer_field(outcome: Checked, name: str) -> Any:
    return outcome.raw.get(name) if outcome.ok and isinstance(outcome.raw, dict) else None


def _answers(outcome: Checked, name: str, value: object) -> bool:
    """Whether the call succeeded with `name` equal to `value` (a no-op's answer)."""
    return outcome.ok and _answer_field(outcome, name) == value


def _holds(outcome: Checked, expected: dict[str, Json]) -> bool:
    """Whether the call succeeded answering a provider of exactly these registers (by key)."""
    try:
        return outcome.ok and by_key(outcome.raw["provider"]) == expected
    except (KeyError, TypeError):
        return False


def _lacks_manifest(provider: Json) -> bool:
    """Whether a well-formed serialized provider has no register named ToolCallManifest."""
    found = provider.get("registers")
    if not isinstance(found, list) or not all(isinstance(r, dict) and isinstance(r.get("name"), str) for r in found):
        return False
    return all(register["name"] != MANIFEST for register in found)


def lanes(result: Json, provider: dict[str, Json]) -> Json:
    """A composed request as every accepted reading shares it: Session items found in the instructions, input by register."""
    instructions: dict[str, list[str]] = {}
    leaked = []
    for name in sorted(provider):
        register = provider[name]
        texts = [item for item in register["items"] if isinstance(item, str)]
        if register["classification"] == "Session" and texts:
            instructions[register["name"]] = _found(result["instructions"], texts)
        elif register["classification"] == "Consumable":
            leaked += [text for text in texts if found_in(result["instructions"], text)]
    grouped: dict[str, list[object]] = {}
    for item in result["input"]:
        grouped.setdefault(item["register"], []).append(item.get("text") if item.get("type") == "text" else item.get("record"))
    return {"instructions": instructions, "consumables_in_instructions": leaked, "input": dict(sorted(grouped.items()))}


def _found(text: str, items: list[str]) -> list[str]:
    return [item for n, item in enumerate(items) if appears_in_order(text, items[: n + 1])]


def essentials(trace: Json) -> Json:
    """The fields of a trace the document defines (trace_view: optional counts and an open trace's parts, null or absent)."""
    return trace_view(trace)


def checked_script(path: Path) -> GoldenScript:
    """The script at `path`; every step not marked invalid follows its request schema (a fixture bug otherwise)."""
    script = load_script(path)
    for index, step in enumerate(script.steps):
        errors = [] if step.invalid else schema_errors(f"{SPEC}/{step.op}.request.json", step.args)
        if errors:
            raise RuntimeError(f"{path.name} step {index} ({step.op}) breaks the request schema: {'; '.join(errors)}")
    return script


@pytest.mark.parametrize("script", golden_params(FOLDER))
def test_scripted_execution_matches_the_golden_snapshot(
    script: Path, implementation: Implementation, snapshot: SnapshotAssertion
) -> None:
    """A scripted execution's answers, normalized where the registry allows readings, match the golden snapshots step by step."""
    replay_script(checked_script(script), Run(implementation).answer, snapshot)
