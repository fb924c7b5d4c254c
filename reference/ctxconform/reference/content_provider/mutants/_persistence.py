"""Mutants of section 6.2, Persistence Interface."""

from __future__ import annotations

from pathlib import Path

from ctxconform.reference.content_provider import (
    ContentProvider,
    ContentProviderFactory,
    ContentProviderHandler,
    ContentProviders,
    ProviderStore,
    open_handler,
)

from ._base import CATALOGUE


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

    def in_memory(state_dir: Path, store_url: str | None) -> ContentProviderHandler:  # noqa: ARG001 - the URL is what it ignores
        return open_handler(state_dir, "memory:")

    return ContentProviderFactory(open=in_memory)
