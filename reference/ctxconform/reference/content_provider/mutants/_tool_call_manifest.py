"""Mutants of section 4.4, ToolCallManifest Register."""

from __future__ import annotations

import json
from dataclasses import replace

from ctxconform.reference.content_provider import (
    TOOL_CALL_MANIFEST,
    ContentProvider,
    ContentProviderHandler,
    ContentProviders,
    Register,
    ToolCall,
)

from ._base import CATALOGUE, Json


@CATALOGUE.mutant("content-provider/4.4/manifest-required", "content-provider/4.4/manifest-consumable")
class ManifestMadeOnFirstToolCall(ContentProviders):
    """The reference, except that a new provider has no ToolCallManifest until a tool call is recorded."""

    def create(self, execution_id: str, provider: ContentProvider | None = None) -> ContentProvider:
        """Give an execution a provider with no register at all, or one rehydrated."""
        return super().create(execution_id, provider if provider is not None else ContentProvider())

    def record(self, execution_id: str, record: ToolCall) -> Register:
        """Append a tool call record to the manifest, adding the manifest first if need be."""
        manifest = self.provider(execution_id).register(TOOL_CALL_MANIFEST, "Consumable")
        manifest.items.append(record)
        return manifest


@CATALOGUE.mutant("content-provider/4.4/manifest-consumable")
class ManifestIsSessionContext(ContentProviders):
    """The reference, except that a new provider's ToolCallManifest is classified Session."""

    def create(self, execution_id: str, provider: ContentProvider | None = None) -> ContentProvider:
        """Give an execution a provider whose empty manifest is Session context, or one rehydrated."""
        if provider is None:
            provider = ContentProvider()
            provider.register(TOOL_CALL_MANIFEST, "Session")
        return super().create(execution_id, provider)


@CATALOGUE.mutant("content-provider/4.4/manifest-records")
class ToolOutputReserialized(ContentProviders):
    """The reference, except that a tool call's outputJson is parsed and serialized again rather than kept as given."""

    def record(self, execution_id: str, record: ToolCall) -> Register:
        """Append a tool call record whose output is serialized again, when it parses."""
        try:
            output = json.dumps(json.loads(record.output_json))
        except (ValueError, RecursionError):
            output = record.output_json
        return super().record(execution_id, replace(record, output_json=output))


@CATALOGUE.mutant("content-provider/4.4/manifest-records", edge="wrong-types")
class ToolCallFieldsReadWithStr(ContentProviderHandler):
    """The reference, except that a tool call record's fields are read with str(), so null is stored as 'None' and 7 as '7'."""

    def call(self, op: str, args: Json, context: Json) -> Json:
        """Turn every field of a tool call record into a string, then carry out the operation."""
        record = args.get("record") if op == "record_tool_call" and isinstance(args, dict) else None
        if isinstance(record, dict):
            args = {**args, "record": {name: str(value) for name, value in record.items()}}
        return super().call(op, args, context)
