"""Mutants that break section 3.1 of shared-context, list_keys."""

from __future__ import annotations

from ctxconform.reference.shared_context import Entry
from ctxconform.reference.shared_context.mutants._base import CATALOGUE, Json, Reshaped


@CATALOGUE.mutant("shared-context/3.1/request-and-response-shape")
class ListKeysWithoutWrittenAt(Reshaped):
    """The reference, except that list_keys items leave out written_at."""

    action = "list_keys"

    def reshape(self, sid: str, result: Json) -> Json:  # noqa: ARG002 - the items alone change
        return {**result, "keys": [{k: v for k, v in item.items() if k != "written_at"} for item in result["keys"]]}


@CATALOGUE.mutant("shared-context/3.1/returns-all-keys")
class ListKeysShowsCreationMetadata(Reshaped):
    """The reference, except that list_keys shows the written_by, written_at and version of a key's first write."""

    action = "list_keys"

    def reshape(self, sid: str, result: Json) -> Json:
        with self.store.transaction() as tx:
            first = {item["key"]: tx.history(sid, item["key"])[0] for item in result["keys"]}
        return {**result, "keys": [{**item, **self.created(first[item["key"]])} for item in result["keys"]]}

    @staticmethod
    def created(entry: Entry) -> Json:
        """The metadata of the version a list_keys item was created with."""
        return {"written_by": entry.written_by, "written_at": entry.written_at, "version": entry.version}


@CATALOGUE.mutant("shared-context/3.1/no-values")
class ListKeysPreviewsValues(Reshaped):
    """The reference, except that list_keys items carry a preview of the value's first 40 characters."""

    action = "list_keys"

    def reshape(self, sid: str, result: Json) -> Json:
        with self.store.transaction() as tx:
            values = {item["key"]: getattr(tx.entry(sid, item["key"]), "value", "") for item in result["keys"]}
        return {**result, "keys": [{**item, "preview": values[item["key"]][:40]} for item in result["keys"]]}


@CATALOGUE.mutant(
    "shared-context/3.1/value-size-tokens-field",
    "shared-context/3.1/request-and-response-shape",
    "shared-context/8.2/approximate-token-count",
)
class ValueSizeTokensAsFloat(Reshaped):
    """The reference, except that value_size_tokens is len(value) / 4 as a float."""

    action = "list_keys"

    def reshape(self, sid: str, result: Json) -> Json:
        with self.store.transaction() as tx:
            sizes = {item["key"]: len(getattr(tx.entry(sid, item["key"]), "value", "")) / 4 for item in result["keys"]}
        return {**result, "keys": [{**item, "value_size_tokens": sizes[item["key"]]} for item in result["keys"]]}
