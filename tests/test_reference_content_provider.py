"""The content-provider reference itself: rehydrate(persist(p)) = p, a durable SQLite store, atomic operations."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.reference import Reference
from ctxconform.reference.content_provider import (
    TOOL_CALL_MANIFEST,
    ContentProvider,
    ContentProviders,
    MemoryProviderStore,
    SQLiteProviderStore,
    ToolCall,
    from_document,
    open_handler,
    to_document,
)
from ctxconform.reference.exceptions import SpecError

TEXT = st.text(st.characters(codec="utf-8"), max_size=30)
RECORDS = st.builds(ToolCall, TEXT.filter(str.strip), TEXT, TEXT, TEXT.filter(str.strip))
SAVER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from ctxconform.reference.content_provider import ContentProvider, SQLiteProviderStore
    store = SQLiteProviderStore(Path(sys.argv[1]))
    for i in range(int(sys.argv[2])):
        provider = ContentProvider.new()
        provider.register("Notes", "Session").items.extend(f"item {i} {n}" for n in range(i % 7))
        store.save(f"s{i % 40}", provider)
        print(i, flush=True)
    """
)


@st.composite
def providers(draw: st.DrawFn) -> ContentProvider:
    """Providers with up to four registers of either classification, text items and tool call records."""
    provider = ContentProvider.new()
    for n, classification in enumerate(draw(st.lists(st.sampled_from(["Session", "Consumable"]), max_size=4))):
        provider.register(f"Register {n}", classification).items.extend(draw(st.lists(TEXT, max_size=5)))
    provider.manifest.items.extend(draw(st.lists(RECORDS, max_size=3)))
    return provider


def call(handler: Any, op: str, **args: object) -> Any:
    """Call one operation of a content-provider handler."""
    return handler.call(op, args, {})


@given(provider=providers())
def test_a_provider_survives_its_serialized_form(provider: ContentProvider) -> None:
    """from_document(to_document(p)) == p, registers in their order."""
    again = from_document(to_document(provider))
    assert again == provider
    assert list(again.registers) == list(provider.registers)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
@given(provider=providers())
def test_rehydrate_of_persist_is_the_provider(
    kind: str, provider: ContentProvider, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """What a store saves it loads back equal, and a later change to the live provider does not reach the saved copy."""
    store = MemoryProviderStore() if kind == "memory" else SQLiteProviderStore(tmp_path_factory.mktemp("cp") / "p.sqlite3")
    store.save("s", provider)
    expected = from_document(to_document(provider))
    provider.manifest.items.append(ToolCall("late", "{}", "{}", "r"))
    assert store.load("s") == expected
    assert store.load("other") is None
    store.close()


def test_a_reopened_sqlite_store_keeps_every_saved_provider(tmp_path: Path) -> None:
    """Providers saved before the store is closed are all there, equal, when the file is opened again; a save replaces."""
    path = tmp_path / "cp.sqlite3"
    store, saved = SQLiteProviderStore(path), {}
    for i in range(30):
        provider = ContentProvider.new()
        provider.register("Notes", "Session" if i % 2 else "Consumable").items.extend(["é", " x ", "\x00", "🎉"][: i % 5])
        store.save(f"s{i % 20}", provider)
        saved[f"s{i % 20}"] = from_document(to_document(provider))
    store.close()
    reopened = SQLiteProviderStore(path)
    assert {session: reopened.load(session) for session in saved} == saved


def test_acknowledged_saves_survive_kill_9(tmp_path: Path) -> None:
    """Every save acknowledged before SIGKILL can be loaded afterwards, whole (never half-written)."""
    database = tmp_path / "cp.sqlite3"
    child = subprocess.Popen([sys.executable, "-c", SAVER, str(database), "100000"], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    acknowledged = [int(child.stdout.readline()) for _ in range(200)]
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    store = SQLiteProviderStore(database)
    for i in acknowledged[-40:]:
        loaded = store.load(f"s{i % 40}")
        assert loaded is not None
        items = loaded.registers["notes"].items
        assert all(item.startswith("item ") for item in items)
        assert len({item.split()[1] for item in items}) <= 1  # one save's items, never a mix of two


def test_state_survives_a_restart_of_the_reference(tmp_path: Path) -> None:
    """A provider persisted through one Reference is rehydrated by another started on the same state directory."""
    first = Reference()
    first.handle({"type": "start", "protocol": 1, "state_dir": str(tmp_path)})
    handler = first.handlers["content-provider"]
    call(handler, "create_provider", executionId="e1")
    call(handler, "add_register", executionId="e1", name="Notes", classification="Session")
    call(handler, "append_item", executionId="e1", register="notes", text="kept")
    saved = call(handler, "persist", executionId="e1", sessionId="s1")["provider"]
    first.handle({"type": "stop"})
    second = Reference()
    second.handle({"type": "start", "protocol": 1, "state_dir": str(tmp_path)})
    assert call(second.handlers["content-provider"], "rehydrate", executionId="e2", sessionId="s1")["provider"] == saved
    second.close()


def handler_with_state(tmp_path: Path) -> Any:
    """A handler over SQLite with one execution: registers, items, a record, an open trace and a pending request."""
    handler = open_handler(tmp_path)
    call(handler, "create_provider", executionId="e")
    call(handler, "add_register", executionId="e", name="Inbox", classification="Consumable")
    call(handler, "append_item", executionId="e", register="Inbox", text="hello")
    call(handler, "begin_trace", executionId="e")
    call(handler, "compose", executionId="e")
    return handler


def snapshot(handler: Any) -> tuple[object, object]:
    """The execution's provider and traces."""
    return call(handler, "get_provider", executionId="e"), call(handler, "get_traces", executionId="e")


@pytest.mark.parametrize(
    ("op", "args"),
    [
        (
            "rehydrate",
            {
                "executionId": "e2",
                "provider": {
                    "registers": [
                        {"name": TOOL_CALL_MANIFEST, "classification": "Consumable", "items": []},
                        {"name": "X", "classification": "Bad", "items": []},
                    ]
                },
            },
        ),
        (
            "rehydrate",
            {"executionId": "e2", "provider": {"registers": [{"name": "X", "classification": "Session", "items": ["a"]}]}},
        ),
        ("end_trace", {"executionId": "e", "tokens": {"prompt": 1, "completion": 1, "total": -1}, "summary": {}}),
        ("end_trace", {"executionId": "e", "tokens": {"prompt": 1, "completion": 1, "total": 2}, "summary": {"x": "\ud800"}}),
        ("record_tool_call", {"executionId": "e", "record": {"toolName": "t", "parametersJson": "{}", "outputJson": "{}"}}),
        ("append_item", {"executionId": "e", "register": "Inbox", "text": "\udc00"}),
        ("add_register", {"executionId": "e", "name": "Inbox", "classification": "Session"}),
        ("mark_delivered", {"executionId": "e", "extra": 1}),
        ("persist", {"executionId": "e", "sessionId": ""}),
    ],
    ids=[
        "bad-last-register",
        "no-manifest",
        "negative-total",
        "surrogate-summary",
        "record-missing-field",
        "surrogate-text",
        "conflict",
        "extra-field",
        "blank-session",
    ],
)
def test_a_refused_operation_changes_nothing(tmp_path: Path, op: str, args: dict[str, object]) -> None:
    """Every refusal is a SpecError raised before anything changes: no execution half-made, no trace ended, nothing saved."""
    handler = handler_with_state(tmp_path)
    before = snapshot(handler)
    with pytest.raises(SpecError):
        handler.call(op, args, {})
    assert snapshot(handler) == before
    with pytest.raises(SpecError, match="no provider"):
        call(handler, "get_provider", executionId="e2")
    handler.close()


def test_a_save_that_fails_keeps_the_previous_one(tmp_path: Path) -> None:
    """A provider that cannot be serialized raises before the store is touched; the earlier save is still whole."""
    store = SQLiteProviderStore(tmp_path / "cp.sqlite3")
    good = ContentProvider.new()
    good.register("Notes", "Session").items.append("v1")
    store.save("s", good)
    broken = ContentProvider.new()
    broken.register("Notes", "Session").items.append(object())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        store.save("s", broken)
    assert store.load("s") == good


def test_concurrent_callers_lose_no_item(tmp_path: Path) -> None:
    """Eight threads appending through one handler end with every item, each thread's in its own order."""
    handler = open_handler(tmp_path, "memory:")
    call(handler, "create_provider", executionId="e")
    call(handler, "add_register", executionId="e", name="Log", classification="Session")

    def append(worker: int) -> None:
        for n in range(100):
            call(handler, "append_item", executionId="e", register="Log", text=f"{worker}:{n}")

    threads = [threading.Thread(target=append, args=(worker,)) for worker in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    items = call(handler, "get_provider", executionId="e")["provider"]["registers"][1]["items"]
    assert len(items) == 800
    for worker in range(8):
        assert [item for item in items if item.startswith(f"{worker}:")] == [f"{worker}:{n}" for n in range(100)]


def test_a_delivery_clears_only_what_the_request_carried() -> None:
    """The service clears the leading items a composed request counted, so later appends stay pending."""
    service = ContentProviders(MemoryProviderStore())
    provider = service.create("e")
    inbox = provider.register("Inbox", "Consumable")
    inbox.items.extend(["a", "b"])
    assert [item["text"] for item in service.compose("e").input] == ["a", "b"]
    inbox.items.append("c")
    assert service.delivered("e") == 2
    assert inbox.items == ["c"]
    with pytest.raises(SpecError, match="no composed request"):
        service.failed("e")
