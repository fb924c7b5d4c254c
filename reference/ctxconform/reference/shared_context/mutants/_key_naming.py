"""Mutants that break section 4.3 of shared-context, Key Naming."""

from __future__ import annotations

import re

from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.shared_context import MAX_KEY_LENGTH, SharedContext, check_key
from ctxconform.reference.shared_context.mutants._base import CATALOGUE


@CATALOGUE.mutant(
    "shared-context/4.3/key-max-length",
    "shared-context/5/invalid-key-on-write",
)
class AcceptsLongKeys(SharedContext):
    """The reference, except that write accepts keys of up to 80 characters."""

    def check_key(self, key: object) -> str:
        if isinstance(key, str) and re.fullmatch(r"[a-z0-9_]{65,80}", key):
            return key
        if isinstance(key, str) and not key:
            raise SpecError("INVALID_KEY", "empty key")
        return check_key(key)


@CATALOGUE.mutant(
    "shared-context/4.3/key-pattern",
    "shared-context/5/invalid-key-on-write",
)
class UppercaseKeysAccepted(SharedContext):
    """The reference, except that the key pattern is matched case-insensitively."""

    def check_key(self, key: object) -> str:
        if isinstance(key, str) and re.fullmatch(r"[a-z0-9_]{1,64}", key, re.IGNORECASE):
            return key
        return check_key(key)


@CATALOGUE.mutant(
    "shared-context/4.3/no-separators",
    "shared-context/4.3/key-pattern",
    "shared-context/5/invalid-key-on-write",
)
class ColonPrefixedKeysAccepted(SharedContext):
    """The reference, except that keys with one namespace prefix such as inv:findings are accepted."""

    def check_key(self, key: object) -> str:
        if isinstance(key, str) and len(key) <= MAX_KEY_LENGTH and re.fullmatch(r"[a-z0-9_]+:[a-z0-9_]+", key):
            return key
        return check_key(key)


@CATALOGUE.mutant(
    "shared-context/4.3/key-max-length",
    "shared-context/5/invalid-key-on-write",
    "shared-context/2.4/ad-hoc-keys-permitted",
    edge="boundaries",
)
class KeyLengthExclusive(SharedContext):
    """The reference, except that a key must be shorter than 64 characters (`<` where the maximum allows `<=`).

    An ad-hoc key of 64 characters, valid under 4.3, is refused: 2.4 permits it.
    """

    def check_key(self, key: object) -> str:
        if isinstance(key, str) and not len(key) < MAX_KEY_LENGTH:
            raise SpecError("INVALID_KEY", f"key is {len(key)} characters long; the maximum is {MAX_KEY_LENGTH}")
        return check_key(key)
