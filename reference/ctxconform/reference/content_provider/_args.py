"""Checking operation arguments: every malformed value is refused with a spec error before anything changes."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Final

from ctxconform.reference.content_provider._model import CLASSIFICATIONS, Classification
from ctxconform.reference.exceptions import SpecError

__all__ = ["MAX_IDENTIFIER", "classification", "count", "fields", "identifier", "json_object", "register_name", "text"]

Json = dict[str, Any]

MAX_IDENTIFIER: Final = 256
_SHOWN: Final = 60


def shown(value: object) -> str:
    """A value as an error message may quote it: escaped (repr), and cut short."""
    text = repr(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "...'"


def fields(args: object, op: str, required: Iterable[str], optional: Iterable[str] = ()) -> Json:
    """The arguments as an object with every required field and no unknown one."""
    if not isinstance(args, dict):
        raise SpecError("INVALID_REQUEST", f"{op} takes an object of arguments, not {type(args).__name__}")
    needed, allowed = set(required), set(required) | set(optional)
    extra = sorted(set(args) - allowed)
    if extra:
        unknown = ", ".join(map(shown, extra))
        raise SpecError("INVALID_REQUEST", f"{op} takes no field(s) {unknown}; it takes {', '.join(sorted(allowed))}")
    missing = sorted(needed - set(args))
    if missing:
        raise SpecError("INVALID_REQUEST", f"{op} needs the field(s) {', '.join(missing)}")
    return args


def text(value: object, what: str) -> str:
    """A string of valid Unicode (no unpaired surrogates), kept exactly as given."""
    if not isinstance(value, str):
        raise SpecError("INVALID_REQUEST", f"{what} must be a string, not {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise SpecError("INVALID_REQUEST", f"{what} holds an unpaired surrogate at {error.start}; send valid Unicode") from None
    return value


def identifier(value: object, what: str) -> str:
    """A non-blank string of at most 256 characters."""
    checked = text(value, what)
    if not checked.strip() or len(checked) > MAX_IDENTIFIER:
        raise SpecError("INVALID_REQUEST", f"{what} must be a non-blank string of at most {MAX_IDENTIFIER} characters")
    return checked


def register_name(value: object, what: str = "name") -> str:
    """A register name: BLANK_NAME when empty or only whitespace."""
    checked = text(value, what)
    if not checked.strip():
        raise SpecError("BLANK_NAME", f"{what} {shown(checked)} is blank; give the register a name")
    return identifier(checked, what)


def classification(value: object) -> Classification:
    """One of the two classifications, spelled exactly."""
    if value not in CLASSIFICATIONS:
        raise SpecError("UNKNOWN_CLASSIFICATION", f"classification {shown(value)} is not one of {', '.join(CLASSIFICATIONS)}")
    return value


def count(value: object, what: str) -> int:
    """A non-negative integer that fits 64 bits (not a boolean)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
        raise SpecError("INVALID_REQUEST", f"{what} must be a whole number from 0 to 2**63 - 1, not {shown(value)}")
    return value


def json_object(value: object, what: str) -> Json:
    """A JSON object of valid Unicode, nested no deeper than JSON parsers manage."""
    if not isinstance(value, dict):
        raise SpecError("INVALID_REQUEST", f"{what} must be an object, not {type(value).__name__}")
    try:
        json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (UnicodeEncodeError, RecursionError, ValueError, TypeError) as error:
        message = f"{what} is not valid JSON ({type(error).__name__}); send valid Unicode, less deeply nested"
        raise SpecError("INVALID_REQUEST", message) from None
    return value
