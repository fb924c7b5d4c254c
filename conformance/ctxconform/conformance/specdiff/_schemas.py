"""Comparing two schemas keyword by keyword: one handler per keyword (or family of keywords), each change classified."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Final

from ctxconform.conformance.specdiff._model import ABSENT, Change, ChangeKind, Place, canonical, same, short

__all__ = ["Schema", "schema_changes"]

_ALL_TYPES: Final = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})

Schema = dict[str, Any]


_Handler = Callable[[Schema, Schema, Place, str], Iterator[Change]]


def schema_changes(old: Any, new: Any, at: Place) -> Iterator[Change]:
    """Compare two schemas (objects or booleans) found at the same place."""
    if same(old, new):
        return
    if new is False:
        yield at.change("breaking", "schema-closed", f"{short(old)} → false: no value is accepted any more")
    elif old is False:
        yield at.change("non-breaking", "schema-opened", f"false → {short(new)}: values are accepted again")
    elif isinstance(old, dict | bool) and isinstance(new, dict | bool):
        # true accepts what {} accepts; false was handled above.
        yield from _keyword_changes(old if isinstance(old, dict) else {}, new if isinstance(new, dict) else {}, at)
    else:
        yield at.change("info", "keyword-changed", f"{short(old)} → {short(new)}")


def _keyword_changes(old: Schema, new: Schema, at: Place) -> Iterator[Change]:
    for keyword in sorted(old.keys() | new.keys()):
        before, after = old.get(keyword, ABSENT), new.get(keyword, ABSENT)
        if before is not ABSENT and after is not ABSENT and same(before, after):
            continue
        handler, shape = _HANDLERS.get(keyword, (_other, _anything))
        yield from (handler if shape(before) and shape(after) else _other)(old, new, at, keyword)


# --- one handler per keyword (or family of keywords) ----------------------------------------------------------------


def _properties(old: Schema, new: Schema, at: Place, keyword: str) -> Iterator[Change]:
    before, after = old.get(keyword, {}), new.get(keyword, {})
    required = set(new.get("required", [])) if isinstance(new.get("required"), list) else set()
    for name in sorted(before.keys() - after.keys()):
        yield at.child(keyword, name).change("breaking", "property-removed", f"the property {name!r} was removed")
    for name in sorted(after.keys() - before.keys()):
        if name in required:
            yield at.child(keyword, name).change(
                "breaking", "required-property-added", f"the required property {name!r} was added"
            )
        else:
            yield at.child(keyword, name).change("non-breaking", "property-added", f"the optional property {name!r} was added")
    for name in sorted(before.keys() & after.keys()):
        yield from schema_changes(before[name], after[name], at.child(keyword, name))


def _required(old: Schema, new: Schema, at: Place, keyword: str) -> Iterator[Change]:
    before, after = set(old.get(keyword, [])), set(new.get(keyword, []))
    old_names, new_names = _names(old, "properties"), _names(new, "properties")
    # A property added or removed together with its requirement is reported once, as a property change.
    for name in sorted(after - before - (new_names - old_names)):
        yield at.child(keyword).change("breaking", "required-added", f"the property {name!r} is now required")
    for name in sorted(before - after - (old_names - new_names)):
        yield at.child(keyword).change("non-breaking", "required-removed", f"the property {name!r} is no longer required")


def _names(schema: Schema, keyword: str) -> set[str]:
    value = schema.get(keyword)
    return set(value) if isinstance(value, dict) else set()


def _type(old: Schema, new: Schema, at: Place, keyword: str) -> Iterator[Change]:
    before, after = _types(old.get(keyword, ABSENT)), _types(new.get(keyword, ABSENT))
    lost, gained = before - after, after - before
    message = f"type {short(old.get(keyword, ABSENT))} → {short(new.get(keyword, ABSENT))}"
    if lost and gained:
        yield at.child(keyword).change("breaking", "type-changed", message)
    elif lost:
        yield at.child(keyword).change("breaking", "type-narrowed", message)
    elif gained:
        yield at.child(keyword).change("non-breaking", "type-widened", message)


def _types(value: Any) -> frozenset[str]:
    names = _ALL_TYPES if value is ABSENT else frozenset([value] if isinstance(value, str) else value)
    # Every integer is a number, so "number" already admits what "integer" does.
    return names | {"integer"} if "number" in names else names


def _enum(old: Schema, new: Schema, at: Place, keyword: str) -> Iterator[Change]:
    here = at.child(keyword)
    if keyword not in old:
        yield here.change("breaking", "enum-narrowed", f"an enum was added: only {short(new[keyword])} is accepted")
    elif keyword not in new:
        yield here.change("non-breaking", "enum-widened", f"the enum {short(old[keyword])} was removed: any value is accepted")
    else:
        before, after = {canonical(v): v for v in old[keyword]}, {canonical(v): v for v in new[keyword]}
        removed = [before[k] for k in sorted(before.keys() - after.keys())]
        added = [after[k] for k in sorted(after.keys() - before.keys())]
        message = f"enum values removed: {short(removed)}, added: {short(added)}"
        if removed:
            yield here.change("breaking", "enum-narrowed", message)
        elif added:
            yield here.change("non-breaking", "enum-widened", message)


def _bound(old: Schema, new: Schema, at: Place, keyword: str) -> Iterator[Change]:
    before, after = old.get(keyword), new.get(keyword)
    if before is not None and after is not None and before == after:
        return
    lower = keyword.startswith(("min", "exclusiveMin"))
    tighter = after is not None and (before is None or (after > before if lower else after < before))
    message = f"{keyword} {short(old.get(keyword, ABSENT))} → {short(new.get(keyword, ABSENT))}"
    if tighter:
        yield at.child(keyword).change("breaking", "range-narrowed", message)
    else:
        yield at.child(keyword).change("non-breaking", "range-widened", message)


def _constraint(code: str) -> _Handler:
    """Return a handler for a constraint: added or changed is breaking `CODE-changed`, removed is non-breaking `CODE-removed`."""

    def handler(old: Schema, new: Schema, at: Place, keyword: str) -> Iterator[Change]:
        message = f"{keyword} {short(old.get(keyword, ABSENT))} → {short(new.get(keyword, ABSENT))}"
        if keyword in new:
            yield at.child(keyword).change("breaking", f"{code}-changed", message)
        else:
            yield at.child(keyword).change("non-breaking", f"{code}-removed", message)

    return handler


def _unique_items(old: Schema, new: Schema, at: Place, keyword: str) -> Iterator[Change]:
    before, after = old.get(keyword, False), new.get(keyword, False)
    if after and not before:
        yield at.child(keyword).change("breaking", "unique-items-added", "items must now be unique")
    elif before and not after:
        yield at.child(keyword).change("non-breaking", "unique-items-removed", "items need no longer be unique")


def _subschema(old: Schema, new: Schema, at: Place, keyword: str) -> Iterator[Change]:
    yield from schema_changes(old.get(keyword, True), new.get(keyword, True), at.child(keyword))


def _keyed(added: tuple[ChangeKind, str], removed: tuple[ChangeKind, str]) -> _Handler:
    """Return a handler for a map of named subschemas ($defs, patternProperties): names added, removed, and compared."""

    def handler(old: Schema, new: Schema, at: Place, keyword: str) -> Iterator[Change]:
        before, after = old.get(keyword, {}), new.get(keyword, {})
        for name in sorted(before.keys() - after.keys()):
            yield at.child(keyword, name).change(*removed, f"{keyword} {name!r} was removed")
        for name in sorted(after.keys() - before.keys()):
            yield at.child(keyword, name).change(*added, f"{keyword} {name!r} was added")
        for name in sorted(before.keys() & after.keys()):
            yield from schema_changes(before[name], after[name], at.child(keyword, name))

    return handler


def _branches(added: tuple[ChangeKind, str], removed: tuple[ChangeKind, str], *, by_position: bool = False) -> _Handler:
    """Return a handler for a list of subschemas: equal branches paired first (unless by position), the rest in order."""

    def handler(old: Schema, new: Schema, at: Place, keyword: str) -> Iterator[Change]:
        before, after = old.get(keyword, []), new.get(keyword, [])
        pairs, gone, came = _positions(before, after) if by_position else _pairs(before, after)
        for i, j in pairs:
            yield from schema_changes(before[i], after[j], at.child(keyword, j))
        for i in gone:
            yield at.child(keyword, i).change(*removed, f"{keyword} branch {i} {short(before[i])} was removed")
        for j in came:
            yield at.child(keyword, j).change(*added, f"{keyword} branch {j} {short(after[j])} was added")

    return handler


_Pairing = tuple[list[tuple[int, int]], list[int], list[int]]


def _pairs(before: list[Any], after: list[Any]) -> _Pairing:
    free, unequal = list(range(len(after))), []
    for i, branch in enumerate(before):
        j = next((j for j in free if same(branch, after[j])), None)
        if j is None:
            unequal.append(i)
        else:
            free.remove(j)
    paired = list(zip(unequal, free, strict=False))
    return paired, unequal[len(paired) :], free[len(paired) :]


def _positions(before: list[Any], after: list[Any]) -> _Pairing:
    common = min(len(before), len(after))
    return [(i, i) for i in range(common)], list(range(common, len(before))), list(range(common, len(after)))


def _annotation(old: Schema, new: Schema, at: Place, keyword: str) -> Iterator[Change]:
    message = f"{keyword} {short(old.get(keyword, ABSENT))} → {short(new.get(keyword, ABSENT))}"
    yield at.child(keyword).change("info", "annotation-changed", message)


def _other(old: Schema, new: Schema, at: Place, keyword: str) -> Iterator[Change]:
    message = f"{keyword} {short(old.get(keyword, ABSENT))} → {short(new.get(keyword, ABSENT))}"
    yield at.child(keyword).change("info", "keyword-changed", message)


def _anything(_value: Any) -> bool:
    return True


def _shape(*types: type) -> Callable[[Any], bool]:
    """Return a check that a keyword's value is absent or of one of `types` (booleans are no numbers here)."""
    return lambda value: value is ABSENT or (isinstance(value, types) and not (isinstance(value, bool) and bool not in types))


def _strings(value: Any) -> bool:
    return value is ABSENT or (isinstance(value, list) and all(isinstance(v, str) for v in value))


def _type_shape(value: Any) -> bool:
    return value is ABSENT or isinstance(value, str) or _strings(value)


def _maps(value: Any) -> bool:
    return value is ABSENT or (isinstance(value, dict) and all(isinstance(v, dict | bool) for v in value.values()))


_SUBSCHEMA = (_subschema, _shape(dict, bool))
_NUMBER = (_bound, _shape(int, float))
_ANNOTATION = (_annotation, _anything)
_HANDLERS: Final[dict[str, tuple[_Handler, Callable[[Any], bool]]]] = {
    "properties": (_properties, _maps),
    "required": (_required, _strings),
    "type": (_type, _type_shape),
    "enum": (_enum, _shape(list)),
    "const": (_constraint("const"), _anything),
    "pattern": (_constraint("pattern"), _anything),
    "format": (_constraint("format"), _anything),
    "multipleOf": (_constraint("multiple-of"), _anything),
    "$ref": (_constraint("ref"), _anything),
    "not": (_constraint("not"), _anything),
    "if": (_constraint("condition"), _anything),
    "uniqueItems": (_unique_items, _shape(bool)),
    "patternProperties": (_keyed(("breaking", "pattern-property-added"), ("non-breaking", "pattern-property-removed")), _maps),
    "$defs": (_keyed(("non-breaking", "def-added"), ("breaking", "def-removed")), _maps),
    "oneOf": (_branches(("non-breaking", "branch-added"), ("breaking", "branch-removed")), _shape(list)),
    "anyOf": (_branches(("non-breaking", "branch-added"), ("breaking", "branch-removed")), _shape(list)),
    "allOf": (_branches(("breaking", "all-of-added"), ("non-breaking", "all-of-removed")), _shape(list)),
    "prefixItems": (
        _branches(("breaking", "prefix-item-added"), ("non-breaking", "prefix-item-removed"), by_position=True),
        _shape(list),
    ),
    **dict.fromkeys(
        (
            "additionalProperties",
            "unevaluatedProperties",
            "items",
            "unevaluatedItems",
            "contains",
            "propertyNames",
            "then",
            "else",
        ),
        _SUBSCHEMA,
    ),
    **dict.fromkeys(
        (
            *("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"),
            *("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"),
        ),
        _NUMBER,
    ),
    **dict.fromkeys(
        ("description", "title", "examples", "$comment", "default", "deprecated", "readOnly", "writeOnly"), _ANNOTATION
    ),
}
