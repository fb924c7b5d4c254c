"""Mutants of section 6.2, Persistence Interface."""

from __future__ import annotations

import json
from pathlib import Path

from ctxconform.reference.content_provider import (
    TOOL_CALL_MANIFEST,
    ContentProvider,
    ContentProviderFactory,
    ContentProviderHandler,
    ContentProviders,
    ProviderStore,
    from_document,
    open_handler,
    to_document,
)
from ctxconform.reference.exceptions import SpecError

from ._base import CATALOGUE, Json

_LIMIT = 256


class _CachingStore:
    """A store that keeps the saved provider object itself, in front of the real store."""

    def __init__(self, store: ProviderStore) -> None:
        self.store = store
        self.saved: dict[str, ContentProvider] = {}

    def save(self, session_id: str, provider: ContentProvider) -> None:
        self.store.save(session_id, provider)
        self.saved[session_id] = provider

    def load(self, session_id: str) -> ContentProvider | None:
        return self.saved[session_id] if session_id in self.saved else self.store.load(session_id)

    def close(self) -> None:
        self.store.close()


@CATALOGUE.mutant("content-provider/6.2/persist-and-rehydrate")
class PersistedProviderIsShared(ContentProviders):
    """The reference, except that a persisted provider is cached by reference, so later changes reach the saved one."""

    def __init__(self, store: ProviderStore) -> None:
        super().__init__(_CachingStore(store))


@CATALOGUE.mutant("content-provider/6.2/durable-across-restart")
def persists_in_memory_only() -> ContentProviderFactory:
    """The reference, except that persisted providers are kept in memory, lost when the implementation restarts."""

    def in_memory(state_dir: Path, store_url: str | None, synchronous: str) -> ContentProviderHandler:  # noqa: ARG001 - the URL is what it ignores
        return open_handler(state_dir, "memory:", synchronous)

    return ContentProviderFactory(open=in_memory)


def encode(provider: ContentProvider) -> str:
    """The provider as JSON text."""
    return json.dumps(to_document(provider))


def decode(text: str) -> ContentProvider:
    """A provider read back from JSON text."""
    return from_document(json.loads(text))


class _PathJoinedStore:
    """Each session a JSON file named by its id joined to the state folder, a leading slash stripped."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, session_id: str) -> Path:
        return self.folder / f"{session_id.lstrip('/')}.json"

    def save(self, session_id: str, provider: ContentProvider) -> None:
        path = self._path(session_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(encode(provider), encoding="utf-8")

    def load(self, session_id: str) -> ContentProvider | None:
        path = self._path(session_id)
        return decode(path.read_text(encoding="utf-8")) if path.is_file() else None

    def close(self) -> None:
        pass


@CATALOGUE.mutant("content-provider/6.2/persist-and-rehydrate", edge="identifiers")
def provider_files_named_by_session_id() -> ContentProviderFactory:
    """The reference, except that a session is saved in a file named by its id joined to the state folder ('./x' is 'x')."""

    def path_joined(state_dir: Path, store_url: str | None, synchronous: str) -> ContentProviderHandler:  # noqa: ARG001 - files of its own
        return ContentProviderHandler(ContentProviders(_PathJoinedStore(state_dir)))

    return ContentProviderFactory(open=path_joined)


class _OneFileStore:
    """Every session in one JSON file, read when the process starts and written whole on every save."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.documents: dict[str, str] = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}

    def save(self, session_id: str, provider: ContentProvider) -> None:
        self.documents[session_id] = encode(provider)
        self.path.write_text(json.dumps(self.documents), encoding="utf-8")

    def load(self, session_id: str) -> ContentProvider | None:
        text = self.documents.get(session_id)
        return None if text is None else decode(text)

    def close(self) -> None:
        pass


@CATALOGUE.mutant("content-provider/6.2/persist-and-rehydrate", edge="two-writers")
def sessions_in_one_file_per_process() -> ContentProviderFactory:
    """The reference, except that all sessions are one JSON file each process reads at start and rewrites whole."""

    def one_file(state_dir: Path, store_url: str | None, synchronous: str) -> ContentProviderHandler:  # noqa: ARG001 - one file of its own
        return ContentProviderHandler(ContentProviders(_OneFileStore(state_dir / "sessions.json")))

    return ContentProviderFactory(open=one_file)


@CATALOGUE.mutant("content-provider/6.2/persist-and-rehydrate", edge="boundaries")
class SessionIdLimitOffByOne(ContentProviderHandler):
    """The reference, except that a session id of exactly 256 characters is refused as too long."""

    def call(self, op: str, args: Json, context: Json) -> Json:
        """Refuse a session id of 256 characters or more, then carry out the operation."""
        session_id = args.get("sessionId") if isinstance(args, dict) else None
        if isinstance(session_id, str) and len(session_id) >= _LIMIT:
            raise SpecError("INVALID_REQUEST", f"sessionId must be shorter than {_LIMIT} characters")
        return super().call(op, args, context)


@CATALOGUE.mutant(
    "content-provider/5.2/registers-only-containment",
    "content-provider/4.2/stable-name",
    "content-provider/5.2/composed-solely-of-registers",
    edge="stored-records",
)
class RehydrateCoercesRegisterFields(ContentProviderHandler):
    """The reference, except that rehydrate reads a register's name with str() and its items with list().

    An entry with no items at all is so taken as an empty register: an entry holding no collection of line items is
    no Register (4.2), and a provider holding it is not composed solely of Registers (5.2).
    """

    def call(self, op: str, args: Json, context: Json) -> Json:
        """Coerce the fields of a serialized provider's registers, then carry out the operation."""
        document = args.get("provider") if op == "rehydrate" and isinstance(args, dict) else None
        if isinstance(document, dict) and isinstance(document.get("registers"), list):
            registers = [_coerced(entry) for entry in document["registers"]]
            args = {**args, "provider": {**document, "registers": registers}}
        return super().call(op, args, context)


def _coerced(entry: object) -> object:
    if not isinstance(entry, dict) or entry.get("name") == TOOL_CALL_MANIFEST:
        return entry
    items = entry.get("items")
    return {**entry, "name": str(entry.get("name")), "items": [str(item) for item in list(items or [])]}
