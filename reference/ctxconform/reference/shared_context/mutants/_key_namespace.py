"""Mutants that break section 2.4 of shared-context, Key Namespace."""

from __future__ import annotations

import re

from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.shared_context import SharedContext, check_key
from ctxconform.reference.shared_context.mutants._base import CATALOGUE


@CATALOGUE.mutant(
    "shared-context/2.4/ad-hoc-keys-permitted",
    "shared-context/4.3/key-pattern",
    "shared-context/4.3/key-max-length",
    name="keys_must_start_with_a_letter",
)
class KeysMustStartWithALetter(SharedContext):
    """The reference, except that keys starting with a digit or an underscore are refused."""

    def check_key(self, key: object) -> str:
        if isinstance(key, str) and re.match(r"[0-9_]", key):
            raise SpecError("INVALID_KEY", f"key {key!r} must start with a letter")
        return check_key(key)
