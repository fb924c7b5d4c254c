"""Comparing a spec's schema files: files added or removed, error codes one by one, then each file's schema."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from ctxconform.conformance.specdiff._model import Change, ChangeKind, Place
from ctxconform.conformance.specdiff._schemas import Schema, schema_changes

__all__ = ["files_changes"]

_ERROR_FILE: Final = "error.json"
_REQUEST_SUFFIX: Final = ".request.json"


def files_changes(spec: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    """Classify every change from the `old` schema files of `spec` to the `new` ones (file name -> its JSON)."""
    for name in sorted(old.keys() | new.keys()):
        if name not in new:
            yield _file_presence(Place(spec, name), "breaking", "removed")
        elif name not in old:
            yield _file_presence(Place(spec, name), "non-breaking", "added")
        else:
            yield from _file_changes(old[name], new[name], Place(spec, name))


def _file_presence(at: Place, kind: ChangeKind, verb: str) -> Change:
    if at.file.endswith(_REQUEST_SUFFIX):
        return at.change(kind, f"op-{verb}", f"the operation {at.file.removesuffix(_REQUEST_SUFFIX)} was {verb} ({at.file})")
    return at.change(kind, f"schema-{verb}", f"the schema {at.file} was {verb}")


def _file_changes(old: Any, new: Any, at: Place) -> Iterator[Change]:
    old_split, new_split = (_split_codes(old), _split_codes(new)) if at.file == _ERROR_FILE else (None, None)
    if old_split is not None and new_split is not None:
        here = at.child("properties", "code")
        for code in sorted(old_split[0] - new_split[0]):
            yield here.change("breaking", "error-code-removed", f"the error code {code} was removed")
        for code in sorted(new_split[0] - old_split[0]):
            yield here.change("non-breaking", "error-code-added", f"the error code {code} was added")
        old, new = old_split[1], new_split[1]
    yield from schema_changes(old, new, at)


def _split_codes(schema: Any) -> tuple[frozenset[str], Schema] | None:
    """Return an error schema's codes and the schema without them, or None when its codes are not written so."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    code = properties.get("code") if isinstance(properties, dict) else None
    if not isinstance(code, dict) or not isinstance(properties, dict):
        return None
    for keyword in ("enum", "oneOf", "anyOf", "const"):
        codes = _codes_in(keyword, code[keyword]) if keyword in code else None
        if codes is not None:
            rest = {k: v for k, v in code.items() if k != keyword}
            return codes, {**schema, "properties": {**properties, "code": rest}}
    return None


def _codes_in(keyword: str, value: Any) -> frozenset[str] | None:
    if keyword == "const":
        values = [value]
    elif keyword == "enum":
        values = value if isinstance(value, list) else [None]
    else:
        branches = value if isinstance(value, list) else [None]
        values = [branch.get("const") if isinstance(branch, dict) else None for branch in branches]
    return frozenset(values) if all(isinstance(v, str) for v in values) else None
