"""Composing a request (spec 4.3): Session items into the instructions lane, Consumable items into input items."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ctxconform.reference.content_provider._codec import record_json
from ctxconform.reference.content_provider._model import ContentProvider, Item, Register, ToolCall

__all__ = ["ComposedRequest", "compose"]

Json = dict[str, Any]


@dataclass(frozen=True)
class ComposedRequest:
    """The two lanes of one LLM request, and how many leading items of each Consumable register it carries."""

    instructions: str
    input: tuple[Json, ...]
    carries: Mapping[str, int]

    def to_json(self) -> Json:
        """The request as the compose operation answers it."""
        return {"instructions": self.instructions, "input": list(self.input)}


def compose(provider: ContentProvider) -> ComposedRequest:
    """Lay the provider out as a request: registers in creation order, each register's items in order."""
    sections, items, carries = [], [], {}
    for key, register in provider.registers.items():
        if register.classification == "Session":
            if register.items:
                sections.append(_section(register))
        elif register.items:
            items += [_input_item(register, item) for item in register.items]
            carries[key] = len(register.items)
    return ComposedRequest("\n\n".join(sections), tuple(items), carries)


def _section(register: Register) -> str:
    return f"## {register.name}\n" + "\n".join(str(item) for item in register.items)


def _input_item(register: Register, item: Item) -> Json:
    if isinstance(item, ToolCall):
        return {"type": "tool_call", "register": register.name, "record": record_json(item)}
    return {"type": "text", "register": register.name, "text": item}
