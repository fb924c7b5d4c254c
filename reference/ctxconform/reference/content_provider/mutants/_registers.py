"""Mutants of section 4.2, Registers."""

from __future__ import annotations

import unicodedata

from ctxconform.reference.content_provider import Classification, ContentProviderHandler, ContentProviders, Register
from ctxconform.reference.exceptions import SpecError

from ._base import CATALOGUE, Json

_LIMIT = 256


@CATALOGUE.mutant("content-provider/4.2/multiple-registers")
class OneRegisterPerClassification(ContentProviders):
    """The reference, except that a new register replaces the register of the same classification (the manifest aside)."""

    def add_register(self, execution_id: str, name: str, classification: Classification) -> Register:
        """Get a register, or add one in place of every other register of its classification but the manifest."""
        provider = self.provider(execution_id)
        if provider.find(name) is None:
            for key, register in list(provider.registers.items()):
                if register.classification == classification and register is not provider.manifest:
                    del provider.registers[key]
        return super().add_register(execution_id, name, classification)


# Asked for as "toolcallmanifest", the manifest itself is renamed: the mandatory ToolCallManifest is gone too.
@CATALOGUE.mutant("content-provider/4.2/stable-name", "content-provider/4.4/manifest-required")
class RegisterTakesTheLatestSpelling(ContentProviders):
    """The reference, except that asking for a register in another case renames it to that spelling."""

    def add_register(self, execution_id: str, name: str, classification: Classification) -> Register:
        """Get or add a register, renamed to the spelling asked for."""
        found = super().add_register(execution_id, name, classification)
        found.name = name
        return found


@CATALOGUE.mutant(
    "content-provider/4.2/ordered-line-items",
    "content-provider/5.3/state-holders-only",
    "content-provider/4.3/consumable-cleared-after-delivery",
)
class AppendsToTheFront(ContentProviders):
    """The reference, except that an appended item goes before the register's other items."""

    def append(self, execution_id: str, name: str, item: str) -> Register:
        """Put a text item first in its register."""
        register = super().append(execution_id, name, item)
        register.items.insert(0, register.items.pop())
        return register


@CATALOGUE.mutant("content-provider/4.2/classified", "content-provider/4.4/manifest-consumable")
class OtherClassificationIsNoConflict(ContentProviders):
    """The reference, except that asking for a register with the other classification gives it back instead of a conflict."""

    def add_register(self, execution_id: str, name: str, classification: Classification) -> Register:
        """Get the register of that name, whatever its classification, or add one."""
        found = self.provider(execution_id).find(name)
        return found if found is not None else super().add_register(execution_id, name, classification)


@CATALOGUE.mutant("content-provider/4.2/items-accumulate", "content-provider/5.3/state-holders-only")
class RegistersDropDuplicateItems(ContentProviders):
    """The reference, except that an item the register already holds is not appended again."""

    def append(self, execution_id: str, name: str, item: str) -> Register:
        """Append a text item unless the register holds it already."""
        register = self.provider(execution_id).find(name)
        if register is not None and item in register.items:
            return register
        return super().append(execution_id, name, item)


# The names a plain JavaScript object already answers for: `registers[name] ??= new Register()` never stores them.
_OBJECT_PROTOTYPE = frozenset(
    {"__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf", "toLocaleString"}
)


@CATALOGUE.mutant("content-provider/4.2/multiple-registers", edge="identifiers")
class PlainObjectRegisterMap(ContentProviders):
    """The reference, except that registers are kept as in a plain object: `__proto__` or `constructor` are never stored."""

    def add_register(self, execution_id: str, name: str, classification: Classification) -> Register:
        """Get or add a register, unless the name is a member every plain object inherits."""
        if name in _OBJECT_PROTOTYPE:
            self.provider(execution_id)
            return Register(name, classification)
        return super().add_register(execution_id, name, classification)


@CATALOGUE.mutant("content-provider/4.2/multiple-registers", edge="identifiers")
class RegisterNamesNormalized(ContentProviders):
    """The reference, except that register names are keyed in Unicode normal form NFKC ('é' and 'e' + U+0301 are one)."""

    def add_register(self, execution_id: str, name: str, classification: Classification) -> Register:
        """Get or add a register, finding it by the NFKC form of its name."""
        provider = self.provider(execution_id)
        wanted = unicodedata.normalize("NFKC", name).casefold()
        for register in provider.registers.values():
            if unicodedata.normalize("NFKC", register.name).casefold() == wanted:
                return super().add_register(execution_id, register.name, classification)
        return super().add_register(execution_id, name, classification)


@CATALOGUE.mutant("content-provider/4.2/items-accumulate", "content-provider/5.3/state-holders-only", edge="degenerate")
class BlankItemsDropped(ContentProviders):
    """The reference, except that an empty or whitespace-only item is not appended."""

    def append(self, execution_id: str, name: str, item: str) -> Register:
        """Append a text item unless it is blank."""
        register = self.provider(execution_id).find(name)
        if register is not None and not item.strip():
            return register
        return super().append(execution_id, name, item)


@CATALOGUE.mutant("content-provider/4.2/stable-name", edge="boundaries")
class RegisterNameLimitCountsBytes(ContentProviderHandler):
    """The reference, except that a register name's 256-character limit is counted in UTF-8 bytes."""

    def call(self, op: str, args: Json, context: Json) -> Json:
        """Refuse a register name over 256 UTF-8 bytes, then carry out the operation."""
        name = args.get("name") if op == "add_register" and isinstance(args, dict) else None
        if isinstance(name, str) and len(name.encode("utf-8", "surrogatepass")) > _LIMIT:
            raise SpecError("INVALID_REQUEST", f"name must be at most {_LIMIT} bytes")
        return super().call(op, args, context)
