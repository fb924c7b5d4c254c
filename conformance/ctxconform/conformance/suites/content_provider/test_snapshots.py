"""Snapshot tests: the scripted executions of fixtures/content-provider, normalized and compared with the golden snapshots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import pytest
from syrupy.assertion import SnapshotAssertion

from ctxconform.conformance._data import fixtures_dir
from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance._schemas import schema_errors
from ctxconform.conformance.exceptions import RequirementFailure
from ctxconform.conformance.suites.content_provider.client import CODES, SEPARATE, SPEC, Execution, appears_in_order, key, new_id

requirement = pytest.mark.requirement
Json = dict[str, Any]

SESSION_KEPT: Final = "content-provider/4.3/session-not-cleared"
KEPT: Final = "content-provider/4.3/consumable-kept-until-delivered"
CLEARED: Final = "content-provider/4.3/consumable-cleared-after-delivery"
SCRIPTS: Final = sorted((fixtures_dir() / SPEC).glob("*.json"))
# What a difference in a step's answer breaks, by operation (a step may name another).
BY_OP: Final = {
    "create_provider": "content-provider/4.4/manifest-required",
    "get_provider": "content-provider/4.2/ordered-line-items",
    "add_register": "content-provider/4.2/classified",
    "append_item": "content-provider/4.2/items-accumulate",
    "record_tool_call": "content-provider/4.4/manifest-records",
    "compose": "content-provider/4.3/consumable-in-input-items",
    "mark_delivered": "content-provider/4.3/consumable-cleared-after-delivery",
    "mark_failed": "content-provider/4.3/consumable-kept-until-delivered",
    "begin_trace": "content-provider/7.3/order-implies-invocation-order",
    "add_trace_step": "content-provider/7.4/steps-capture-diagnostics",
    "end_trace": "content-provider/7.3/token-totals",
    "get_traces": "content-provider/7.3/list-of-traces",
    "persist": "content-provider/6.2/persist-and-rehydrate",
    "rehydrate": "content-provider/6.2/persist-and-rehydrate",
    "end_execution": "content-provider/5.1/one-provider-per-execution",
}


class Script:
    """One fixture's run: placeholders bound to fresh ids, answers normalized."""

    def __init__(self, implementation: Implementation) -> None:
        self.implementation = implementation
        self.ids: dict[str, str] = {}

    def bind(self, args: Json) -> Json:
        """The step's arguments with `$placeholders` of executionId and sessionId replaced by this run's ids."""
        bound = dict(args)
        for field in ("executionId", "sessionId"):
            if isinstance(bound.get(field), str) and bound[field].startswith("$"):
                bound[field] = self.ids.setdefault(bound[field], new_id(bound[field][1:]))
        return bound

    def unbind(self, value: object) -> object:
        """An answer with this run's ids turned back into their placeholders."""
        names = {real: placeholder for placeholder, real in self.ids.items()}
        return names.get(value, value) if isinstance(value, str) else value

    def answer(self, step: Json) -> object:
        """Run one step and return its normalized answer."""
        args = self.bind(step["args"])
        provider = self._provider(args) if step["op"] == "compose" else {}
        outcome = Execution(self.implementation, args["executionId"]).send(step["op"], args)
        token = (step.get("readings") or {}).get("ok" if outcome.ok else str(outcome.code))
        if token is not None:
            return token
        if not outcome.ok:
            return {"error": outcome.code if outcome.code in CODES else "<refused>"}
        return self.normalize(step["op"], outcome.result(), provider)

    def _provider(self, args: Json) -> dict[str, Json]:
        # The Session and Consumable items a composed request must carry are the provider's just before it.
        reply = Execution(self.implementation, args["executionId"]).call("get_provider")
        return {key(r["name"]): r for r in reply.result()["provider"]["registers"]} if reply.ok else {}

    def normalize(self, op: str, result: Json, provider: dict[str, Json]) -> object:
        """The comparable form of a result."""
        if op == "compose":
            return lanes(result, provider)
        if op == "get_traces":
            return [essentials(trace) for trace in result["traces"]]
        if op == "end_trace":
            return essentials(result)
        out = {name: self.unbind(value) for name, value in result.items()}
        if "provider" in out:
            out["provider"] = sorted(result["provider"]["registers"], key=lambda r: key(r["name"]))
        return out


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


def check_fixture(script: Path, steps: list[Json]) -> None:
    """Every step not marked invalid follows its request schema (a fixture bug otherwise)."""
    for index, step in enumerate(steps):
        errors = [] if step.get("invalid") else schema_errors(f"{SPEC}/{step['op']}.request.json", step["args"])
        assert not errors, f"{script.name} step {index} ({step['op']}) breaks the request schema: {errors}"


def parts(step: Json, answer: object, previous: str) -> list[tuple[str, object, str]]:
    """An answer's parts, each with the requirement a difference in it breaks (a step's own requirement wins)."""
    named = step.get("requirement")
    if isinstance(answer, dict) and isinstance(answer.get("provider"), list):
        registers = answer["provider"]
        consumables = CLEARED if previous == "mark_delivered" else KEPT
        found: list[tuple[str, object, str]] = [
            ("answer", {k: v for k, v in answer.items() if k != "provider"}, BY_OP[step["op"]])
        ]
        found.append(("registers", [r["name"] for r in registers], "content-provider/4.2/multiple-registers"))
        found += [(key(r["name"]), r, SESSION_KEPT if r["classification"] == "Session" else consumables) for r in registers]
    elif step["op"] == "compose" and isinstance(answer, dict) and "instructions" in answer:
        found = [
            ("instructions", answer["instructions"], "content-provider/4.3/session-in-instructions"),
            ("consumables_in_instructions", answer["consumables_in_instructions"], SEPARATE),
            ("input", answer["input"], BY_OP["compose"]),
        ]
    else:
        found = [("answer", answer, BY_OP[step["op"]])]
    return [(name, value, named or rid) for name, value, rid in found]


@requirement(*sorted(set(BY_OP.values())))
@requirement(SESSION_KEPT, KEPT, CLEARED, SEPARATE, "content-provider/4.2/multiple-registers")
@requirement("content-provider/5.1/one-provider-per-execution", "content-provider/4.3/session-in-instructions")
@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_scripted_execution_matches_the_golden_snapshot(
    script: Path, implementation: Implementation, snapshot: SnapshotAssertion
) -> None:
    """A scripted execution's answers, normalized where the registry allows readings, match the golden snapshots step by step."""
    steps = json.loads(script.read_text(encoding="utf-8"))["steps"]
    check_fixture(script, steps)
    run, compared, previous = Script(implementation), [], ""
    for index, step in enumerate(steps):
        compared += [
            (f"{index:02d}-{step['op']}-{name}", value, rid) for name, value, rid in parts(step, run.answer(step), previous)
        ]
        previous = step["op"]
    # Every part is compared (syrupy records each); the first that differs names the requirement it breaks.
    differing = [(name, value, rid) for name, value, rid in compared if snapshot(name=name) != value]
    if differing:
        name, value, rid = differing[0]
        raise RequirementFailure(
            rid, f"{script.stem}: {', '.join(d[0] for d in differing[:8])} differ; {name} is {str(value)[:400]}"
        )
