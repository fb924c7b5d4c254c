"""Snapshot tests: scripted sessions from fixtures/shared-context, answers compared with the golden snapshots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import pytest
from syrupy.assertion import SnapshotAssertion

from ctxconform.conformance._data import fixtures_dir
from ctxconform.conformance.exceptions import RequirementFailure
from ctxconform.conformance.suites.shared_context.client import Outcome, Session, token_readings

SPEC_CODES: Final = frozenset(
    {"KEY_NOT_FOUND", "VALUE_TOO_LARGE", "STORE_FULL", "INVALID_KEY", "SESSION_NOT_FOUND", "SESSION_ARCHIVED"}
)
# The fields the spec defines per action; anything else an implementation adds is not compared.
FIELDS: Final = {
    "write": ("key", "version", "written_by", "written_at"),
    "read": ("key", "value", "written_by", "written_at", "version"),
    "delete": ("deleted", "previous_version"),
    "list_keys": ("keys", "total_size_tokens"),
}
META: Final = ("key", "written_by", "written_at", "version", "value_size_tokens")
SCRIPTS: Final = sorted((fixtures_dir() / "shared-context").glob("*.json"))


def request_of(step: dict[str, Any]) -> dict[str, Any]:
    """Expand a step's request: {"repeat": {"text", "times"}} stands for a long value."""
    request = dict(step["request"])
    repeat = request.pop("repeat", None)
    if repeat is not None:
        request["value"] = repeat["text"] * repeat["times"]
    return request


class Normalizer:
    """Replaces what may differ between conforming implementations with checked placeholders."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def outcome(self, request: dict[str, Any], outcome: Outcome) -> dict[str, Any]:
        """Return the comparable form of one answer."""
        if not outcome.ok:
            return {"error": outcome.code if outcome.code in SPEC_CODES else "<refused>"}
        result = {k: v for k, v in outcome.result.items() if k in FIELDS.get(request["action"], ())}
        if request.get("action") == "write":
            self.values[request["key"]] = request["value"]
        if request.get("action") == "delete":
            self.values.pop(request["key"], None)
        if "written_at" in result:
            result["written_at"] = "<timestamp>"
        if "keys" in result:
            result = self._listing(result)
        return result

    def _listing(self, result: dict[str, Any]) -> dict[str, Any]:
        keys = []
        for meta in sorted(result["keys"], key=lambda m: str(m["key"])):
            value = self.values.get(meta["key"], "")
            if meta["value_size_tokens"] not in token_readings(len(value)):
                raise RequirementFailure(
                    "shared-context/8.2/approximate-token-count",
                    f"{meta['key']}: {meta['value_size_tokens']} tokens for {len(value)} characters",
                )
            keys.append({**{k: meta[k] for k in META}, "written_at": "<timestamp>", "value_size_tokens": "<len/4>"})
        return {"keys": keys, "total_size_tokens": "<sum>" if "total_size_tokens" in result else "<absent>"}


def replay(session: Session, script: Path) -> list[dict[str, Any]]:
    """Run a script's steps in a session and return the normalized transcript."""
    normalizer, transcript = Normalizer(), []
    for step in json.loads(script.read_text(encoding="utf-8"))["steps"]:
        if "system" in step:
            outcome = session.lifecycle(step["system"])
            transcript.append({"system": step["system"], "answer": {"ok": True} if outcome.ok else {"error": outcome.code}})
            continue
        request = request_of(step)
        answer = normalizer.outcome(request, session.as_participant(step["as"]).tool(request))
        shown = {**request, "value": f"<{len(request['value'])} characters>"} if len(request.get("value", "")) > 200 else request
        transcript.append({"as": step["as"], "request": shown, "answer": answer})
    return transcript


@pytest.mark.requirement(
    "shared-context/3.1/returns-all-keys",
    "shared-context/3.2/returns-value",
    "shared-context/3.3/creates-or-overwrites",
    "shared-context/3.3/version-increments",
    "shared-context/3.4/removes-key",
    "shared-context/4.1/value-size-limit",
    "shared-context/4.2/store-size-limit",
    "shared-context/4.3/key-pattern",
    "shared-context/8.2/approximate-token-count",
    "shared-context/8.4/archive-read-only",
    "shared-context/8.4/delete-session-gone",
)
@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_scripted_session_matches_the_golden_snapshot(script: Path, session: Session, snapshot: SnapshotAssertion) -> None:
    """A scripted session's answers, with timestamps and token readings normalized, match the golden snapshot."""
    assert replay(session, script) == snapshot
