"""Comparing two versions of the specs: every schema and requirement change, classified breaking, non-breaking or info."""

from __future__ import annotations

import json
from collections.abc import Iterator

from ctxconform.conformance.specdiff._files import files_changes
from ctxconform.conformance.specdiff._model import (
    CHANGE_KINDS,
    SPEC_DIFF_SCHEMA_ID,
    Change,
    ChangeKind,
    SpecDiff,
    SpecTree,
    spec_diff_schema,
)
from ctxconform.conformance.specdiff._registries import registry_changes
from ctxconform.conformance.specdiff._render import render_markdown
from ctxconform.conformance.specdiff._tree import load_tree

__all__ = [
    "CHANGE_KINDS",
    "SPEC_DIFF_SCHEMA_ID",
    "Change",
    "ChangeKind",
    "SpecDiff",
    "SpecTree",
    "diff_specs",
    "load_tree",
    "render_markdown",
    "spec_diff_schema",
]


def diff_specs(old: SpecTree, new: SpecTree) -> SpecDiff:
    """Classify every change from `old` to `new`: schema files keyword by keyword, registries requirement by requirement."""
    changes = [change for spec in sorted(old.specs | new.specs) for change in _spec_changes(spec, old, new)]
    changes.sort(key=lambda c: (c.spec, c.where, c.what, c.message))
    counts = {kind: sum(change.kind == kind for change in changes) for kind in CHANGE_KINDS}
    return SpecDiff(old=old.label, new=new.label, counts=counts, changes=changes)


def _spec_changes(spec: str, old: SpecTree, new: SpecTree) -> Iterator[Change]:
    if spec not in new.specs:
        yield Change(kind="breaking", spec=spec, where=spec, what="spec-removed", message=f"the spec {spec} was removed")
    elif spec not in old.specs:
        yield Change(kind="non-breaking", spec=spec, where=spec, what="spec-added", message=f"the spec {spec} was added")
    else:
        yield from files_changes(spec, old.schemas.get(spec, {}), new.schemas.get(spec, {}))
        yield from registry_changes(spec, old.registries.get(spec, {}), new.registries.get(spec, {}))


if __name__ == "__main__":
    print(json.dumps(spec_diff_schema(), indent=2))
