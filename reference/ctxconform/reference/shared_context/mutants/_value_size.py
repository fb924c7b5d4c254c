"""Mutants that break section 4.1 of shared-context, Value Size."""

from __future__ import annotations

import sys

from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.shared_context import MAX_VALUE_TOKENS, SharedContext, estimate_tokens
from ctxconform.reference.shared_context.mutants._base import CATALOGUE, Json, as_dict, request_field


@CATALOGUE.mutant("shared-context/4.1/value-size-limit", name="value_limit_is_1024_tokens")
class ValueLimitIs1024Tokens(SharedContext):
    """The reference, except that values of up to 1024 tokens are accepted."""

    max_value_tokens = 1024


@CATALOGUE.mutant(
    "shared-context/4.1/value-size-limit",
    "shared-context/4.1/value-limit-boundary",
    "shared-context/3.3/creates-or-overwrites",
    edge="boundaries",
)
class ValueLimitExclusive(SharedContext):
    """The reference, except that a value must stay under 1000 tokens (`<` where the limit allows `<=`).

    A write of a value of 1000 tokens, which 3.3 says creates or overwrites the key, is refused.
    """

    def value_fits(self, value: str) -> bool:
        return estimate_tokens(value) < self.max_value_tokens


@CATALOGUE.mutant("shared-context/4.1/value-limit-boundary", "shared-context/2.3/value-is-text", edge="boundaries")
class ValueSizeCountedInUtf8Bytes(SharedContext):
    """The reference, except that a value's size is len(value.encode()) // 4, so 4000 accented letters are 2000 tokens."""

    def value_fits(self, value: str) -> bool:
        return len(value.encode()) // 4 <= self.max_value_tokens


@CATALOGUE.mutant("shared-context/4.1/value-limit-boundary", edge="boundaries")
class ValueSizeCountedInUtf16Units(SharedContext):
    """The reference, except that a value's size counts UTF-16 code units (JavaScript's .length): 4000 emoji are 2000 tokens."""

    def value_fits(self, value: str) -> bool:
        return len(value.encode("utf-16-le", "surrogatepass")) // 2 // 4 <= self.max_value_tokens


@CATALOGUE.mutant("shared-context/4.1/value-size-limit", "shared-context/5/value-too-large", edge="degenerate")
class ValueSizeCountedAfterStrip(SharedContext):
    """The reference, except that a value's size is counted on value.strip(), so padding with blanks slips past the limit."""

    def value_fits(self, value: str) -> bool:
        return estimate_tokens(value.strip()) <= self.max_value_tokens


@CATALOGUE.mutant("shared-context/4.1/value-size-limit", "shared-context/2.3/value-is-text", edge="wrong-types")
class ListValuesCountedByLength(SharedContext):
    """The reference, except that a list of strings is taken as a value, counted as len(list) // 4 tokens and stored joined."""

    max_value_tokens = sys.maxsize

    def handle(self, session_id: object, participant: object, request: object) -> Json:
        value = request_field(request, "value")
        if request_field(request, "action") != "write":
            return super().handle(session_id, participant, request)
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            request = {**as_dict(request), "value": "".join(value)}
        if isinstance(value, str | list) and max(1, len(value) // 4) > MAX_VALUE_TOKENS:
            raise SpecError("VALUE_TOO_LARGE", f"value is about {len(value) // 4} tokens; the limit is {MAX_VALUE_TOKENS}")
        return super().handle(session_id, participant, request)
