"""Comparing requirement registries: the header, then requirement by requirement (renames, additions, removals, fields)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from ctxconform.conformance.judge._registry import LEVELS
from ctxconform.conformance.specdiff._model import ABSENT, Change, same, short

__all__ = ["registry_changes"]

_FIELD_CODES: Final = {
    "quote": "quote-changed",
    "level": "level-changed",
    "kind": "kind-changed",
    "feature": "feature-changed",
    "section": "section-changed",
}


def registry_changes(spec: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    """Classify every change from the `old` registry document of `spec` to the `new` one, each as info."""
    yield from _registry_header_changes(spec, old, new)
    before, after = _requirements(old), _requirements(new)
    renamed = _renames(before, after)
    for old_id, new_id in renamed.items():
        yield Change(kind="info", spec=spec, where=old_id, what="id-changed", message=f"the requirement {old_id} is now {new_id}")
        yield from _requirement_changes(spec, before[old_id], after[new_id])
    for rid in sorted(before.keys() - after.keys() - renamed.keys()):
        yield _requirement_change(spec, before[rid], "requirement-removed", "removed")
    for rid in sorted(after.keys() - before.keys() - set(renamed.values())):
        yield _requirement_change(spec, after[rid], "requirement-added", "added")
    for rid in sorted(before.keys() & after.keys()):
        yield from _requirement_changes(spec, before[rid], after[rid])


def _registry_header_changes(spec: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    if not old or not new:
        verb = "added" if new else "removed"
        if old or new:
            yield Change(
                kind="info", spec=spec, where=f"{spec}.toml", what=f"registry-{verb}", message=f"the registry was {verb}"
            )
        return
    for key in sorted((old.keys() | new.keys()) - {"requirement"}):
        if key not in old or key not in new or not same(old[key], new[key]):
            message = f"the registry's {key} {short(old.get(key, ABSENT))} → {short(new.get(key, ABSENT))}"
            yield Change(kind="info", spec=spec, where=f"{spec}.toml", what="registry-changed", message=message)


def _requirements(document: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["id"]: entry for entry in document.get("requirement", [])}


def _renames(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, str]:
    """Pair each removed id with an added id of the same quote (whitespace aside): the requirement was renamed."""
    # Built from the last id down, so that of two added ids with one quote the first in order is taken.
    added = {_quote_of(after[rid]): rid for rid in sorted(after.keys() - before.keys(), reverse=True)}
    added.pop("", None)
    renames = {}
    for rid in sorted(before.keys() - after.keys()):
        new_id = added.pop(_quote_of(before[rid]), None)
        if new_id is not None:
            renames[rid] = new_id
    return renames


def _quote_of(entry: Mapping[str, Any]) -> str:
    return " ".join(str(entry.get("quote", "")).split())


def _requirement_change(spec: str, entry: Mapping[str, Any], what: str, verb: str) -> Change:
    message = f"the {entry.get('level', '')} requirement was {verb}: {short(entry.get('quote', ''))}"
    return Change(kind="info", spec=spec, where=entry["id"], what=what, message=message)


def _requirement_changes(spec: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    for key in sorted((old.keys() | new.keys()) - {"id"}):
        before, after = old.get(key, ABSENT), new.get(key, ABSENT)
        if not _same_field(key, before, after):
            message = f"{key} {short(before)} → {short(after)}{_level_direction(key, before, after)}"
            what = _FIELD_CODES.get(key, "requirement-changed")
            yield Change(kind="info", spec=spec, where=new["id"], what=what, message=message)


def _same_field(key: str, before: Any, after: Any) -> bool:
    if before is ABSENT or after is ABSENT:
        return before is after
    # Quotes are compared as the registry checks them: white space collapsed.
    if key == "quote":
        return _quote_of({key: before}) == _quote_of({key: after})
    return same(before, after)


def _level_direction(key: str, before: Any, after: Any) -> str:
    if key != "level" or before not in LEVELS or after not in LEVELS:
        return ""
    return " (raised)" if LEVELS.index(after) < LEVELS.index(before) else " (lowered)"
