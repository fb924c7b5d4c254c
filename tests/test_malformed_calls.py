"""Generated malformed calls against the reference, in-process, over stdio and over MCP: refused, never broken.

Each call breaks its operation's request schema (wrong types, missing fields, extra fields alongside another fault,
values that are not objects, unknown operations), sometimes with huge strings, deep nesting or lone surrogates.
The reply must be an error (a spec error or a protocol error code), never ERRORED, a crash, a timeout or a protocol
violation, and what the implementation holds must be unchanged.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxconform.conformance import Implementation, connect, parse_adapter
from ctxconform.conformance.judge._data import schemas_dir
from ctxconform.conformance.judge._schemas import validator
from ctxconform.conformance.judge._specs import start_options

Json = dict[str, Any]
STDIO = f"stdio:{sys.executable} -m ctxconform.reference.stdio"
MCP = f"mcp+stdio:{sys.executable} -m ctxconform.reference.mcp"
MCP_HTTP = f"mcp+http+serve:{sys.executable} -m ctxconform.reference.mcp --http"
SCOPE = {"session_id": "seeded", "participant": "orchestrator"}


def request_schemas(spec: str) -> dict[str, str]:
    """Each operation of a spec and the name of its request schema."""
    found = {p.name.removesuffix(".request.json"): f"{spec}/{p.name}" for p in (schemas_dir() / spec).glob("*.request.json")}
    if spec == "shared-context":  # the tool's actions share one request schema; the lifecycle ops have their own
        found = {op: found[op] for op in ("create_session", "archive_session", "delete_session")}
        found["shared_context"] = f"{spec}/request.json"
    return found


def malformed(name: str, args: object) -> bool:
    """Whether `args` breaks the schema in some way other than extra properties alone (which a spec may ignore)."""
    errors = list(validator(name).iter_errors(args))
    return bool(errors) and any(e.validator != "additionalProperties" for e in errors)


def nested(depth: int) -> object:
    """A value nested `depth` lists and objects deep."""
    value: object = "bottom"
    for level in range(depth):
        value = [value] if level % 2 else {"v": value}
    return value


ODD_TEXT = ["", " ", "\x00", "../../etc/passwd", "é" * 300]
HUGE = 1_000_000


def huge_text(size: int) -> str:
    """`size` x's: built when drawn, so hypothesis never prints a megabyte when it describes the strategy."""
    return "x" * size


LONE_SURROGATES = ["\ud800", "a\udfffb"]


def odd_values(max_depth: int, *, surrogates: bool) -> st.SearchStrategy[object]:
    """Values no request field takes whole: wrong types, odd text, huge text, deep nesting."""
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=False),
        st.sampled_from(ODD_TEXT + (LONE_SURROGATES if surrogates else [])),
        st.just(HUGE).map(huge_text),
        st.integers(50, max_depth).map(nested),
        st.lists(st.integers(), max_size=3),
        st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
    )


def calls(spec: str, *, mcp: bool) -> st.SearchStrategy[tuple[str, object]]:
    """(op, args) pairs whose args break the op's request schema, or calls of operations the spec lacks.

    The MCP SDK's server drops, without an answer, a message nested deeper than about 200 levels (its JSON parser's
    limit) or holding a lone surrogate: over MCP the calls stay within those.
    """
    schemas = request_schemas(spec)
    odd = odd_values(150 if mcp else 400, surrogates=not mcp)

    def for_op(op: str) -> st.SearchStrategy[tuple[str, object]]:
        schema = validator(schemas[op]).schema
        fields = list(schema.get("properties", {}) if isinstance(schema, dict) else {}) or ["x"]
        keys = [*fields, "unexpected", *([] if mcp else LONE_SURROGATES[:1])]
        mapping = st.dictionaries(st.sampled_from(keys), odd, max_size=len(fields) + 1)
        return st.tuples(st.just(op), st.one_of(mapping, odd)).filter(lambda call: malformed(schemas[op], call[1]))

    names = st.text(st.characters(exclude_categories=["Cs"]) if mcp else st.characters(), min_size=1, max_size=20)
    unknown = st.tuples(names.filter(lambda op: op not in schemas), odd)
    return st.one_of(*(for_op(op) for op in sorted(schemas)), unknown)


# --- what each spec holds, seeded before and observed around every malformed call ------------------------------


def seed_shared_context(implementation: Implementation) -> Callable[[], object]:
    """One session with one key; observed through list_keys and read."""
    implementation.call("shared-context", "create_session", {"session_id": "seeded"}).result  # noqa: B018
    implementation.call("shared-context", "shared_context", {"action": "write", "key": "k", "value": "v"}, SCOPE)

    def observe() -> object:
        listing = implementation.call("shared-context", "shared_context", {"action": "list_keys"}, SCOPE).result
        return listing, implementation.call("shared-context", "shared_context", {"action": "read", "key": "k"}, SCOPE).result

    return observe


def seed_content_provider(implementation: Implementation) -> Callable[[], object]:
    """One execution with a Session register holding an item; observed through get_provider and get_traces."""
    seeded = {"executionId": "seeded"}
    implementation.call("content-provider", "create_provider", seeded)
    implementation.call("content-provider", "add_register", {**seeded, "name": "Notes", "classification": "Session"})
    implementation.call("content-provider", "append_item", {**seeded, "register": "Notes", "text": "kept"})
    return lambda: [implementation.call("content-provider", op, seeded).result for op in ("get_provider", "get_traces")]


def seed_context_snapshot(implementation: Implementation) -> Callable[[], object]:
    """One draft snapshot with an item; observed through get_snapshot."""
    created = implementation.call(
        "context-snapshot", "create_snapshot", {"created_by": {"kind": "agent", "id": "a"}, "selection_strategy": "explicit"}
    ).result
    snapshot = {"snapshot_id": created["snapshot"]["object_id"]}
    implementation.call("context-snapshot", "add_item", {**snapshot, "kind": "snippet", "path": "p", "content": {"text": "t"}})
    return lambda: implementation.call("context-snapshot", "get_snapshot", snapshot).result


def seed_read_context(implementation: Implementation) -> Callable[[], object]:
    """One workspace on disk; observed through read_context (reading changes no file)."""
    workspace = Path(implementation.options["read-context"]["workspace_root"]) / "img"
    workspace.mkdir(parents=True, exist_ok=True)
    (workspace / "notes.md").write_text("some notes\n", encoding="utf-8")
    return lambda: (implementation.call("read-context", "read_context", {"image_id": "img"}).result, sorted(workspace.iterdir()))


SEEDS: dict[str, Callable[[Implementation], Callable[[], object]]] = {
    "shared-context": seed_shared_context,
    "content-provider": seed_content_provider,
    "context-snapshot": seed_context_snapshot,
    "read-context": seed_read_context,
    "context-assembly": lambda _implementation: lambda: "assemble holds nothing between calls",
}
CASES = [(spec, adapter) for spec in SEEDS for adapter in ("reference", STDIO)]
CASES += [("read-context", MCP), ("shared-context", MCP_HTTP)]


@pytest.fixture(scope="module", params=CASES, ids=[f"{spec}-{adapter.split(':')[0]}" for spec, adapter in CASES])
def seeded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any, Any]]:
    """A started reference over one transport, holding a spec's seed; yields (spec, implementation, observe)."""
    spec, adapter = request.param
    state_dir = tmp_path_factory.mktemp("state")
    implementation = connect(parse_adapter(adapter), state_dir, timeout=30, options=start_options(state_dir))
    implementation.start()
    try:
        yield spec, implementation, SEEDS[spec](implementation)
    finally:
        implementation.stop()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_a_malformed_call_is_refused_and_changes_nothing(seeded: tuple[str, Implementation, Any], data: st.DataObject) -> None:
    """Every transport answers a malformed call with an error code, and the spec's state stays as it was."""
    spec, implementation, observe = seeded
    op, args = data.draw(calls(spec, mcp=implementation.adapter.startswith("mcp")), label="call")
    before = observe()
    reply = implementation.call(spec, op, args, SCOPE if spec == "shared-context" else None)
    assert not reply.ok, f"{op} accepted {str(args)[:300]}"
    assert reply.code, f"{op}: an error without a code"
    assert observe() == before, f"the refused {op} changed what the implementation holds"
