"""Snapshot tests: the scripted executions of fixtures/content-provider, normalized and compared with the golden snapshots."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from syrupy.assertion import SnapshotAssertion

from ctxconform.conformance.suites.content_provider.client import SPEC, Execution, appears_in_order, key, new_id
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
# execution that has one, and the two codes a text item offered to the ToolCallManifest may be refused with.
ANOTHER_PROVIDER: Final = "<refused or no-op>"
RECORDS_ONLY: Final = "<refused: records only>"
FOLDER: Final = fixtures_dir() / SPEC
TRACE_PARTS: Final = ("steps", "tokens", "summary")  # compared one by one, after the invocations listed
ABSENT: Final = "<absent>"  # a field a trace does not carry (an open trace's tokens and summary)


class Run:
    """One replay of a script: placeholders bound to fresh ids, the executions that hold a provider, answers normalized."""

    def __init__(self, implementation: Implementation) -> None:
        self.implementation = implementation
        self.ids: dict[str, str] = {}
        self.live: set[str] = set()

    def bind(self, args: Json) -> Json:
        """The step's arguments with `$placeholders` of executionId and sessionId replaced by this run's ids."""
        bound = dict(args)
        for name in ("executionId", "sessionId"):
            if isinstance(bound.get(name), str) and bound[name].startswith("$"):
                bound[name] = self.ids.setdefault(bound[name], new_id(bound[name][1:]))
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
            yield from self.parts(step.op, outcome.result, provider)

    def _reading(self, op: str, args: Json) -> Callable[[Checked], str | None]:
        if op in ("create_provider", "rehydrate") and args["executionId"] in self.live:
            return lambda outcome: ANOTHER_PROVIDER if outcome.ok or outcome.code == "PROVIDER_EXISTS" else None
        if op == "append_item" and isinstance(args.get("register"), str) and key(args["register"]) == "toolcallmanifest":
            return lambda outcome: RECORDS_ONLY if outcome.code in ("MANIFEST_RECORDS_ONLY", "INVALID_REQUEST") else None
        return lambda _outcome: None

    def _track(self, op: str, execution_id: str, outcome: Checked) -> None:
        if op in ("create_provider", "rehydrate") and outcome.ok:
            self.live.add(execution_id)
        elif op == "end_execution" and outcome.ok:
            self.live.discard(execution_id)

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
            yield GoldenPart(name="answer", value={n: self.unbind(v) for n, v in result.items() if n != "provider"})
            yield GoldenPart(name="registers", value=[r["name"] for r in registers])
            for register in registers:
                yield GoldenPart(name=key(register["name"]), value=register)
        else:
            yield GoldenPart(name="answer", value={name: self.unbind(value) for name, value in result.items()})


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
            leaked += [text for text in texts if text in result["instructions"]]
    grouped: dict[str, list[object]] = {}
    for item in result["input"]:
        grouped.setdefault(item["register"], []).append(item.get("text", item.get("record")))
    return {"instructions": instructions, "consumables_in_instructions": leaked, "input": dict(sorted(grouped.items()))}


def _found(text: str, items: list[str]) -> list[str]:
    return [item for n, item in enumerate(items) if appears_in_order(text, items[: n + 1])]


def essentials(trace: Json) -> Json:
    """The fields of a trace the document defines."""
    return {name: trace[name] for name in ("invocation", "ended", "tokens", "summary", "steps") if name in trace}


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
