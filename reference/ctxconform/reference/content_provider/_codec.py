"""The serialized provider (spec 5.2, 6.2): {registers: [{name, classification, items}]}, and reading one back."""

from __future__ import annotations

from typing import Any

from ctxconform.reference.content_provider import _args
from ctxconform.reference.content_provider._model import (
    TOOL_CALL_MANIFEST,
    ContentProvider,
    Item,
    Register,
    ToolCall,
    register_key,
)
from ctxconform.reference.exceptions import SpecError

__all__ = ["from_document", "record_from_json", "record_json", "register_json", "to_document"]

Json = dict[str, Any]
_MANIFEST_KEY = register_key(TOOL_CALL_MANIFEST)


def record_json(record: ToolCall) -> Json:
    """A tool call record with the origin's field names."""
    return {
        "toolName": record.tool_name,
        "parametersJson": record.parameters_json,
        "outputJson": record.output_json,
        "toolCallRef": record.tool_call_ref,
    }


def record_from_json(value: object, what: str = "record") -> ToolCall:
    """Read a tool call record; refuse anything but its four string fields."""
    fields = _args.fields(value, what, ("toolName", "parametersJson", "outputJson", "toolCallRef"))
    return ToolCall(
        _args.identifier(fields["toolName"], f"{what}.toolName"),
        _args.text(fields["parametersJson"], f"{what}.parametersJson"),
        _args.text(fields["outputJson"], f"{what}.outputJson"),
        _args.identifier(fields["toolCallRef"], f"{what}.toolCallRef"),
    )


def register_json(register: Register) -> Json:
    """A register as JSON: name, classification, and its items (text, or records in the manifest)."""
    items = [record_json(item) if isinstance(item, ToolCall) else item for item in register.items]
    return {"name": register.name, "classification": register.classification, "items": items}


def to_document(provider: ContentProvider) -> Json:
    """The serialized provider: its registers, in creation order, and nothing else."""
    return {"registers": [register_json(register) for register in provider.registers.values()]}


def from_document(document: object) -> ContentProvider:
    """Read a serialized provider, refusing what a provider cannot hold (checked whole before anything is built)."""
    registers = _args.fields(document, "provider", ("registers",))["registers"]
    if not isinstance(registers, list):
        raise SpecError("INVALID_REQUEST", "provider.registers must be a list of registers")
    provider = ContentProvider()
    for index, entry in enumerate(registers):
        register = _register(entry, f"provider.registers[{index}]")
        if register_key(register.name) in provider.registers:
            raise SpecError("INVALID_REQUEST", f"provider has two registers named {register.name!r} (names ignore case)")
        provider.registers[register_key(register.name)] = register
    manifest = provider.registers.get(_MANIFEST_KEY)
    if manifest is None:
        raise SpecError("MANIFEST_MISSING", f"the provider has no {TOOL_CALL_MANIFEST} register; every provider must include one")
    if manifest.classification != "Consumable":
        raise SpecError("CLASSIFICATION_CONFLICT", f"the {TOOL_CALL_MANIFEST} register must be Consumable")
    return provider


def _register(entry: object, what: str) -> Register:
    fields = _args.fields(entry, what, ("name", "classification", "items"))
    name = _args.register_name(fields["name"], f"{what}.name")
    classification = _args.classification(fields["classification"])
    if not isinstance(fields["items"], list):
        raise SpecError("INVALID_REQUEST", f"{what}.items must be a list of line items")
    manifest = register_key(name) == _MANIFEST_KEY
    items = [_item(item, f"{what}.items[{i}]", manifest=manifest) for i, item in enumerate(fields["items"])]
    return Register(name, classification, items)


def _item(item: object, what: str, *, manifest: bool) -> Item:
    if manifest:
        return record_from_json(item, what)
    if not isinstance(item, str):
        raise SpecError("INVALID_REQUEST", f"{what} must be text: registers hold line items, not {type(item).__name__}s")
    return _args.text(item, what)
