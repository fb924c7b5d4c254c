"""The kit's JSON Schemas, loaded once into one registry and validated with jsonschema."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from ctxconform.conformance._data import schemas_dir

__all__ = ["registry", "schema", "schema_errors", "validator"]

_BASE = "https://ctxconform.dev/schemas/"
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


def schema_errors(name: str, instance: object) -> list[str]:
    """Return a readable line per way the instance breaks the schema; empty when it is valid."""
    errors = sorted(validator(name).iter_errors(instance), key=lambda e: list(e.absolute_path))
    return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in errors]
