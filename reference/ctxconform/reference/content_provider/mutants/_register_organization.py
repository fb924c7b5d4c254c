"""Mutants of section 5.2, Register-Based Organization."""

from __future__ import annotations

from ctxconform.reference.content_provider import ContentProviderHandler

from ._base import CATALOGUE, Json


@CATALOGUE.mutant("content-provider/5.2/composed-solely-of-registers")
class RehydrateIgnoresExtraFields(ContentProviderHandler):
    """The reference, except that rehydrate ignores what a serialized provider holds beside its registers."""

    def call(self, op: str, args: Json, context: Json) -> Json:
        """Carry out one operation, rehydrate with the serialized provider's registers only."""
        if op == "rehydrate" and isinstance(args, dict) and isinstance(args.get("provider"), dict):
            args = {**args, "provider": {"registers": args["provider"].get("registers")}}
        return super().call(op, args, context)


@CATALOGUE.mutant("content-provider/5.2/registers-only-containment")
class ListItemAppendedAsItems(ContentProviderHandler):
    """The reference, except that append_item takes a list of texts as several items instead of refusing it."""

    def call(self, op: str, args: Json, context: Json) -> Json:
        """Carry out one operation, append_item of a non-empty list as one append_item per text."""
        if op == "append_item" and isinstance(args, dict) and isinstance(args.get("text"), list) and args["text"]:
            answer: Json = {}
            for text in args["text"]:
                answer = super().call(op, {**args, "text": text}, context)
            return answer
        return super().call(op, args, context)
