"""Snapshot tests: the fixture trees of fixtures/context-assembly, answers normalized and compared with the golden snapshots."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Final

import pytest
from syrupy.assertion import SnapshotAssertion

from ctxconform.conformance._data import fixtures_dir
from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance.exceptions import RequirementFailure
from ctxconform.conformance.suites.context_assembly.client import SPEC, Json, assemble

requirement = pytest.mark.requirement

FIXTURES: Final = sorted((fixtures_dir() / SPEC).glob("*.json"))
# dialogue-mode/non-text-content: any bracketed placeholder naming the type is read as the same token.
PLACEHOLDER: Final = re.compile(r"\[[^\[\]]*\b(image|audio)\b[^\[\]]*\]", re.IGNORECASE)

SYSTEM: Final = "context-assembly/system-context-combination/agent-before-tree"
INSTRUCTION: Final = "context-assembly/multi-source-edges/instruction-appended-to-system"
CONTEXT: Final = "context-assembly/multi-source-edges/context-before-primary"
TRAVERSE: Final = "context-assembly/dialogue-mode/traverse-root-to-current"
FILTER: Final = "context-assembly/dialogue-mode/filter-excluded"
MERGE: Final = "context-assembly/dialogue-mode/merge-consecutive-same-author"
FITS: Final = "context-assembly/dialogue-mode/truncate-only-if-needed"
BUFFER_OFF: Final = "context-assembly/buffer-mode/system-context-excluded-by-default"
BUFFER_ON: Final = "context-assembly/buffer-mode/system-context-enabled"
CONCAT: Final = "context-assembly/buffer-mode/concatenate-content"
RECENT: Final = "context-assembly/truncation/middle-keeps-recent"
MARKER: Final = "context-assembly/truncation/marker-present"
FLAG: Final = "context-assembly/guarantees/truncated-flag"
STOP: Final = "context-assembly/truncation/stop-at-limit-error"


def load(path: Path) -> Json:
    """A fixture: description, checks (whole, truncated or refused), features and the request."""
    fixture: Json = json.loads(path.read_text(encoding="utf-8"))
    return fixture


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
        text = result["document"] if "document" in result else result["messages"][0]["content"]
        document = tokens(text, known)
        if system is None and document and document[0].startswith("text:"):  # system-context-placement: prepended
            system = document.pop(0).removeprefix("text:")
        return {"system": system, "messages": [["document", *document]], "flags": _flags(result)}
    messages = [[message["role"], *tokens(str(message["content"]), known)] for message in result["messages"]]
    return {"system": system, "messages": messages, "flags": _flags(result)}


def _flags(result: Json) -> Json:
    return {"truncated": result["truncated"], "droppedMessageCount": result["droppedMessageCount"]}


def whole_parts(normalized: Json, fixture: Json) -> list[tuple[str, Any, str]]:
    """The parts of an untruncated answer, each with the requirement a difference in it breaks (a fixture may name others)."""
    tree = fixture["request"]["tree"]
    buffer = tree["mode"] == "buffer"
    system = (BUFFER_ON if tree.get("bufferModeSystemContext") else BUFFER_OFF) if buffer else SYSTEM
    named = {"system": system, "sequence": CONCAT if buffer else TRAVERSE, "messages": CONCAT if buffer else MERGE, "flags": FITS}
    named |= fixture.get("requirements", {})
    sequence = [f"{message[0]}:{token}" for message in normalized["messages"] for token in message[1:]]
    values = {"system": normalized["system"], "sequence": sequence, "messages": normalized["messages"]}
    values["flags"] = normalized["flags"]
    return [(name, values[name], named[name]) for name in values]


def truncated_parts(normalized: Json, fixture: Json) -> list[tuple[str, Any, str]]:
    """The parts of a truncated answer fixed under every reading: system, the recent messages, flag and marker."""
    messages = normalized["messages"]
    texts = [token for message in messages for token in message[1:] if token.startswith("text:")]
    # marker-form: the marker may stand inside a kept message, so recent messages are compared by their nodes only.
    recent = [[token for token in message if not token.startswith("text:")] for message in messages[-fixture["recent"] :]]
    return [
        ("system", normalized["system"], "context-assembly/guarantees/system-context-never-truncated"),
        ("recent", recent, RECENT),
        ("truncated", normalized["flags"]["truncated"], FLAG),
        ("marker", bool(texts), MARKER),
    ]


@requirement(SYSTEM, INSTRUCTION, CONTEXT, TRAVERSE, FILTER, MERGE, FITS, BUFFER_OFF, BUFFER_ON, CONCAT)
@requirement(RECENT, MARKER, FLAG, STOP, "context-assembly/guarantees/system-context-never-truncated")
@pytest.mark.parametrize("path", FIXTURES, ids=[path.stem for path in FIXTURES])
def test_fixture_tree_matches_the_golden_snapshot(
    path: Path, implementation: Implementation, snapshot: SnapshotAssertion
) -> None:
    """The answer to a fixture tree, normalized where the registry allows readings, matches the golden snapshots."""
    fixture = load(path)
    missing = set(fixture["features"]) - implementation.features(SPEC)
    if missing:
        pytest.skip(f"{', '.join(sorted(missing))} not declared")
    outcome = assemble(implementation, fixture["request"])
    if fixture["checks"] == "refused":
        parts = [("refusal", outcome.refused(STOP), STOP)]
    else:
        normalized = normalize(outcome.result(TRAVERSE), fixture["request"])
        parts = (truncated_parts if fixture["checks"] == "truncated" else whole_parts)(normalized, fixture)
    # Every part is compared (syrupy records each); the first that differs names the requirement it breaks.
    differing = [(name, value, rid) for name, value, rid in parts if snapshot(name=name) != value]
    if differing:
        name, value, rid = differing[0]
        raise RequirementFailure(rid, f"{path.stem}: {', '.join(d[0] for d in differing)} differ; {name} is {str(value)[:400]}")
