"""The spec-diff data model: change kinds, a change, a diff, a version of the specs, and the value helpers they share."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ABSENT",
    "CHANGE_KINDS",
    "SPEC_DIFF_SCHEMA_ID",
    "Change",
    "ChangeKind",
    "Place",
    "SpecDiff",
    "SpecTree",
    "canonical",
    "same",
    "short",
    "spec_diff_schema",
]

ChangeKind = Literal["breaking", "non-breaking", "info"]
CHANGE_KINDS: Final[tuple[ChangeKind, ...]] = ("breaking", "non-breaking", "info")
SPEC_DIFF_SCHEMA_ID: Final = "https://ctxconform.dev/schemas/report/spec-diff.schema.json"
_FROZEN = ConfigDict(frozen=True, extra="forbid")
_SHORT: Final = 80
ABSENT: Final[Any] = object()


class Change(BaseModel):
    """One difference between the old and the new specs, classified."""

    model_config = _FROZEN
    kind: ChangeKind = Field(
        description="breaking: a valid old message may now be refused; non-breaking: only more is accepted; info: no effect"
    )
    spec: str = Field(description="the spec id, such as shared-context")
    where: str = Field(description="schema file and JSON pointer (write.request.json#/properties/key), or a requirement id")
    what: str = Field(description="a stable code of the change, such as property-removed")
    message: str = Field(description="the change in a sentence, with the old and the new values")


class SpecDiff(BaseModel):
    """Every change from one version of the specs to another, in a stable order, with counts per kind."""

    model_config = ConfigDict(frozen=True, extra="forbid", json_schema_extra={"$id": SPEC_DIFF_SCHEMA_ID})
    diff_version: Literal[1] = 1
    old: str = Field(description="the old version as given: a folder, or a git ref with its commit")
    new: str = Field(description="the new version as given: a folder, or a git ref with its commit")
    counts: dict[ChangeKind, int] = Field(description="change kind -> how many changes")
    changes: list[Change] = Field(description="sorted by spec, where, what and message")

    def fails(self, threshold: ChangeKind) -> bool:
        """Whether any change is of kind `threshold` or more severe (breaking > non-breaking > info)."""
        limit = CHANGE_KINDS.index(threshold)
        return any(CHANGE_KINDS.index(change.kind) <= limit for change in self.changes)


class SpecTree(BaseModel):
    """One version of the specs as read: every spec's schema files and its requirement registry."""

    model_config = _FROZEN
    label: str = Field(description="the folder or git ref read, as given")
    schemas: dict[str, dict[str, Any]] = Field(description="spec -> schema file name -> its JSON")
    registries: dict[str, dict[str, Any]] = Field(description="spec -> its registry TOML document")

    @property
    def specs(self) -> frozenset[str]:
        """Every spec with schemas or a registry in this version."""
        return frozenset(self.schemas) | frozenset(self.registries)


@dataclass(frozen=True)
class Place:
    """A place in a schema file: the spec, the file and a JSON pointer."""

    spec: str
    file: str
    pointer: str = ""

    def child(self, *tokens: str | int) -> Place:
        """Return the place `tokens` further down, each token escaped for a JSON pointer."""
        escaped = (str(token).replace("~", "~0").replace("/", "~1") for token in tokens)
        return Place(self.spec, self.file, self.pointer + "".join(f"/{token}" for token in escaped))

    def change(self, kind: ChangeKind, what: str, message: str) -> Change:
        """Return a change of this place's spec, with this place's file and pointer as its `where`."""
        return Change(kind=kind, spec=self.spec, where=f"{self.file}#{self.pointer}", what=what, message=message)


def spec_diff_schema() -> dict[str, Any]:
    """Return the JSON Schema (2020-12) of the spec-diff JSON output, as committed in schemas/report/."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **SpecDiff.model_json_schema()}


# --- values --------------------------------------------------------------------------------------------------------


def canonical(value: Any) -> str:
    """Return `value` as canonical JSON text: keys sorted, non-ASCII kept, anything else as its str()."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def same(a: Any, b: Any) -> bool:
    """Whether two JSON values are equal as JSON text, so that true and 1 (equal in Python) stay different."""
    return canonical(a) == canonical(b)


def short(value: Any) -> str:
    """Return a value for a message: "absent" for ABSENT, else its canonical JSON cut to 80 characters."""
    text = "absent" if value is ABSENT else canonical(value)
    return text if len(text) <= _SHORT else text[: _SHORT - 1] + "…"
