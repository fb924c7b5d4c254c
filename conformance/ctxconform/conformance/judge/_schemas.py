"""The kit's JSON Schemas, loaded once into one registry and validated with jsonschema."""

from __future__ import annotations

import json
import os
from functools import cache
from itertools import islice
from typing import Any, Final

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from ctxconform.conformance.judge._data import schemas_dir

jsonschema_rs: Any
try:
    import jsonschema_rs
except ImportError:  # pragma: no cover - the fast path is optional
    jsonschema_rs = None

__all__ = ["MAX_ERRORS", "MAX_ERROR_CHARS", "registry", "schema", "schema_errors", "validator"]

_BASE = "https://ctxconform.dev/schemas/"
# An instance can be 64 MiB, and jsonschema puts its repr in each message: keep a few errors, each clipped at once.
MAX_ERRORS: Final = 20
MAX_ERROR_CHARS: Final = 500
_FORMATS = Draft202012Validator.FORMAT_CHECKER


@cache
def registry() -> Registry[Any]:
    """Return a registry of every schema under `schemas/`, by its `$id`."""
    resources = []
    for path in sorted(schemas_dir().rglob("*.json")):
        contents = json.loads(path.read_text(encoding="utf-8"))
        resources.append((contents["$id"], Resource.from_contents(contents)))
    return Registry().with_resources(resources)


def schema(name: str) -> dict[str, Any]:
    """Return one schema by its path below `schemas/`, such as `protocol/call.json`."""
    contents: dict[str, Any] = registry().contents(_BASE + name)
    return contents


@cache
def validator(name: str) -> Draft202012Validator:
    """Return a validator (formats checked) for one schema by its path below `schemas/`."""
    return Draft202012Validator(schema(name), registry=registry(), format_checker=_FORMATS)


@cache
def _fast_validator(name: str) -> Any:
    # jsonschema-rs answers "is it valid?" ~100x faster; jsonschema stays the judge of every invalid instance.
    if jsonschema_rs is None or os.environ.get("CTXCONFORM_VALIDATOR") == "jsonschema":
        return None
    return jsonschema_rs.Draft202012Validator(schema(name), registry=_fast_registry(), validate_formats=True)


@cache
def _fast_registry() -> Any:
    documents = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(schemas_dir().rglob("*.json"))]
    return jsonschema_rs.Registry([(d["$id"], d) for d in documents])


def schema_errors(name: str, instance: object) -> list[str]:
    """Return a readable line per way the instance breaks the schema (at most MAX_ERRORS); empty when it is valid.

    An instance nested too deep to validate is one error, not a RecursionError.
    """
    fast = _fast_validator(name)
    try:
        if fast is not None and _fast_is_valid(fast, instance):
            return []
        found = [_line(error) for error in islice(validator(name).iter_errors(instance), MAX_ERRORS)]
    except RecursionError:
        return ["(root): nested too deep to validate"]
    return [text for _, text in sorted(found, key=lambda pair: pair[0])]


def _fast_is_valid(fast: Any, instance: object) -> bool:
    try:
        return bool(fast.is_valid(instance))
    except (ValueError, UnicodeError):  # a lone surrogate cannot cross into Rust: jsonschema judges it alone
        return False


def _line(error: Any) -> tuple[list[str], str]:
    path = [str(part) for part in error.absolute_path]
    message = str(error.message)
    if len(message) > MAX_ERROR_CHARS:
        message = f"{message[:MAX_ERROR_CHARS]}... ({len(message) - MAX_ERROR_CHARS} more characters)"
    return path, f"{'/'.join(path) or '(root)'}: {message}"
