"""The file cabinet (spec sections 4 and 5): a ContentProvider of named, classified registers of line items."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal

from ctxconform.reference.exceptions import SpecError

__all__ = [
    "CLASSIFICATIONS",
    "SPEC_VERSION",
    "TOOL_CALL_MANIFEST",
    "Classification",
    "ContentProvider",
    "Item",
    "Register",
    "ToolCall",
    "register_key",
]

SPEC_VERSION: Final = "2025-12-23"
Classification = Literal["Session", "Consumable"]
CLASSIFICATIONS: Final[tuple[Classification, ...]] = ("Session", "Consumable")
TOOL_CALL_MANIFEST: Final = "ToolCallManifest"


@dataclass(frozen=True)
class ToolCall:
    """One ToolCallManifest record: tool name, call parameters, tool output and tool call reference (4.4)."""

    tool_name: str
    parameters_json: str
    output_json: str
    tool_call_ref: str


Item = str | ToolCall


def register_key(name: str) -> str:
    """The key a register is found by: names compare without regard to case, as in the origin."""
    return name.casefold()


# Registers and providers are mutable on purpose: they are the state holders items accumulate in (4.2, 5.3).
@dataclass
class Register:
    """A named, classified, ordered collection of line items (4.2)."""

    name: str
    classification: Classification
    items: list[Item] = field(default_factory=list)


@dataclass
class ContentProvider:
    """The registers of one agent execution, by key in creation order; the ToolCallManifest is always among them (4.4)."""

    registers: dict[str, Register] = field(default_factory=dict)

    @classmethod
    def new(cls) -> ContentProvider:
        """A provider holding only an empty ToolCallManifest."""
        return cls({register_key(TOOL_CALL_MANIFEST): Register(TOOL_CALL_MANIFEST, "Consumable")})

    @property
    def manifest(self) -> Register:
        """The ToolCallManifest register."""
        return self.registers[register_key(TOOL_CALL_MANIFEST)]

    def find(self, name: str) -> Register | None:
        """The register of that name (in any case), or None."""
        return self.registers.get(register_key(name))

    def register(self, name: str, classification: Classification) -> Register:
        """Get the register of that name, or add an empty one; refuse the name with the other classification."""
        found = self.find(name)
        if found is None:
            found = self.registers[register_key(name)] = Register(name, classification)
        elif found.classification != classification:
            raise SpecError(
                "CLASSIFICATION_CONFLICT",
                f"register {found.name!r} is {found.classification}, not {classification}; use another name",
            )
        return found
