"""Mutants of section 4.2, Registers."""

from __future__ import annotations

from ctxconform.reference.content_provider import Classification, ContentProviders, Register

from ._base import CATALOGUE


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
