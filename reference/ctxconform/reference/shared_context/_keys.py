"""Key naming rules of shared context (spec section 4.3)."""

from __future__ import annotations

import re

from ctxconform.reference.exceptions import SpecError
from ctxconform.reference.shared_context._tokens import MAX_KEY_LENGTH

__all__ = ["check_key"]

# ASCII ranges only: `\d` or str.isalnum() would admit other scripts' letters and digits.
_KEY = re.compile(r"[a-z0-9_]+")


def check_key(key: object) -> str:
    """Return the key when it is a valid shared-context key, else raise INVALID_KEY."""
    if not isinstance(key, str):
        raise SpecError("INVALID_KEY", f"key must be a string, got {type(key).__name__}")
    if len(key) > MAX_KEY_LENGTH:
        raise SpecError("INVALID_KEY", f"key is {len(key)} characters long; the maximum is {MAX_KEY_LENGTH}")
    if _KEY.fullmatch(key) is None:
        raise SpecError("INVALID_KEY", f"key {key!r} must match [a-z0-9_]+ (lowercase letters, digits, underscores)")
    return key
