"""Comparing two versions of the specs: every schema and requirement change, classified breaking, non-breaking or info."""

from __future__ import annotations

import io
import json
import subprocess
import tarfile
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from ctxconform.conformance._registry import LEVELS
from ctxconform.conformance.exceptions import ConfigurationError

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

ChangeKind = Literal["breaking", "non-breaking", "info"]
CHANGE_KINDS: Final[tuple[ChangeKind, ...]] = ("breaking", "non-breaking", "info")
SPEC_DIFF_SCHEMA_ID: Final = "https://ctxconform.dev/schemas/report/spec-diff.schema.json"
_FROZEN = ConfigDict(frozen=True, extra="forbid")
_NOT_SPECS: Final = frozenset({"protocol", "report"})
_REGISTRY_FOLDERS: Final = ("requirements", "conformance/ctxconform/conformance/requirements")
_ERROR_FILE: Final = "error.json"
_REQUEST_SUFFIX: Final = ".request.json"
_ALL_TYPES: Final = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})
_SHORT: Final = 80
_ABSENT: Final[Any] = object()
_GIVE: Final = (
    "give a folder holding schemas/ (a checkout of the kit) or a git ref of {repository} such as HEAD, HEAD~1, main or a sha"
)

Schema = dict[str, Any]


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


def spec_diff_schema() -> dict[str, Any]:
    """Return the JSON Schema (2020-12) of the spec-diff JSON output, as committed in schemas/report/."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **SpecDiff.model_json_schema()}


# --- reading a version ----------------------------------------------------------------------------------------------


def load_tree(text: str, *, repository: Path) -> SpecTree:
    """Read one version of the specs: an existing folder (it wins over a ref of the same name), else a git ref of `repository`."""
    if not text.strip():
        raise ConfigurationError(f"an empty spec source: {_GIVE.format(repository=repository)}")
    if Path(text).is_dir():
        return _tree(text, _folder_files(Path(text)))
    root = _git_root(text, repository)
    commit = _commit(text, root)
    return _tree(f"{text} ({commit[:12]})", _commit_files(text, commit, root))


def _folder_files(folder: Path) -> dict[str, bytes]:
    if not (folder / "schemas").is_dir():
        raise ConfigurationError(f"{folder} has no schemas/ folder: give a checkout of the kit, or a folder holding schemas/")
    paths = [*(folder / "schemas").rglob("*.json"), *(p for root in _REGISTRY_FOLDERS for p in (folder / root).glob("*.toml"))]
    try:
        return {path.relative_to(folder).as_posix(): path.read_bytes() for path in paths if path.is_file()}
    except OSError as error:
        raise ConfigurationError(f"cannot read the specs in {folder}: {error}") from error


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(  # noqa: S603 - fixed program, arguments passed as a list
            ["git", "-C", str(root), *args],  # noqa: S607 - git is found on PATH like any git client
            capture_output=True,
            check=False,
        )
    except OSError as error:
        raise ConfigurationError(f"cannot run git to read a ref: {error}; give a folder instead") from error


def _git_root(text: str, repository: Path) -> Path:
    found = _git(repository, "rev-parse", "--show-toplevel")
    if found.returncode != 0:
        raise ConfigurationError(
            f"{text!r} is not a folder, and {repository} is not a git repository: {_GIVE.format(repository=repository)}"
        )
    return Path(found.stdout.decode().strip())


def _commit(text: str, root: Path) -> str:
    # A leading dash would be read as an option of git rev-parse, not as a ref.
    found = None if text.startswith("-") else _git(root, "rev-parse", "--verify", "--quiet", f"{text}^{{commit}}")
    if found is None or found.returncode != 0:
        raise ConfigurationError(f"{text!r} is neither a folder nor a git ref: {_GIVE.format(repository=root)}")
    return found.stdout.decode().strip()


def _commit_files(text: str, commit: str, root: Path) -> dict[str, bytes]:
    listed = _git(root, "ls-tree", "--name-only", commit, "--", "schemas", *_REGISTRY_FOLDERS).stdout.decode().splitlines()
    if "schemas" not in listed:
        raise ConfigurationError(f"{text!r} ({commit[:12]}) has no schemas/ folder: give a ref of a commit of the kit")
    archive = _git(root, "archive", "--format=tar", commit, "--", *listed)
    if archive.returncode != 0:
        raise ConfigurationError(f"git archive of {text!r} failed: {archive.stderr.decode().strip()}; give a folder instead")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        members = [member for member in tar.getmembers() if member.isfile()]
        return {member.name: _member_bytes(tar, member) for member in members}


def _member_bytes(tar: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    extracted = tar.extractfile(member)
    return extracted.read() if extracted is not None else b""


def _tree(label: str, files: Mapping[str, bytes]) -> SpecTree:
    return SpecTree(label=label, schemas=_schemas_of(label, files), registries=_registries_of(label, files))


def _schemas_of(label: str, files: Mapping[str, bytes]) -> dict[str, dict[str, Any]]:
    schemas: dict[str, dict[str, Any]] = {}
    for path, data in sorted(files.items()):
        top, spec, name = [*path.split("/", 2), "", ""][:3]
        if top == "schemas" and name.endswith(".json") and spec not in _NOT_SPECS:
            schemas.setdefault(spec, {})[name] = _parsed(label, path, data, json.loads)
    return schemas


def _registries_of(label: str, files: Mapping[str, bytes]) -> dict[str, dict[str, Any]]:
    root = next((folder for folder in _REGISTRY_FOLDERS if any(path.startswith(f"{folder}/") for path in files)), None)
    if root is None:
        return {}
    registries = {}
    for path, data in sorted(files.items()):
        name = path.removeprefix(f"{root}/")
        if path.startswith(f"{root}/") and "/" not in name and name.endswith(".toml"):
            registries[name.removesuffix(".toml")] = _registry_document(label, path, data)
    return registries


def _parsed(label: str, path: str, data: bytes, parse: Callable[[str], Any]) -> Any:
    try:
        return parse(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise ConfigurationError(f"{path} in {label} cannot be read: {error}; fix the file or give another version") from error


def _registry_document(label: str, path: str, data: bytes) -> dict[str, Any]:
    document: dict[str, Any] = _parsed(label, path, data, tomllib.loads)
    entries = document.get("requirement", [])
    ids = [entry.get("id") if isinstance(entry, dict) else None for entry in entries] if isinstance(entries, list) else [None]
    if not all(isinstance(rid, str) for rid in ids) or len(set(ids)) != len(ids):
        raise ConfigurationError(f"{path} in {label}: every [[requirement]] needs an id of its own; fix the registry")
    return document


# --- comparing -----------------------------------------------------------------------------------------------------


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
        yield from _files_changes(spec, old.schemas.get(spec, {}), new.schemas.get(spec, {}))
        yield from _registry_changes(spec, old.registries.get(spec, {}), new.registries.get(spec, {}))


@dataclass(frozen=True)
class _Place:
    """A place in a schema file: the spec, the file and a JSON pointer."""

    spec: str
    file: str
    pointer: str = ""

    def child(self, *tokens: str | int) -> _Place:
        escaped = (str(token).replace("~", "~0").replace("/", "~1") for token in tokens)
        return _Place(self.spec, self.file, self.pointer + "".join(f"/{token}" for token in escaped))

    def change(self, kind: ChangeKind, what: str, message: str) -> Change:
        return Change(kind=kind, spec=self.spec, where=f"{self.file}#{self.pointer}", what=what, message=message)


_Handler = Callable[[Schema, Schema, _Place, str], Iterator[Change]]


def _files_changes(spec: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    for name in sorted(old.keys() | new.keys()):
        if name not in new:
            yield _file_presence(_Place(spec, name), "breaking", "removed")
        elif name not in old:
            yield _file_presence(_Place(spec, name), "non-breaking", "added")
        else:
            yield from _file_changes(old[name], new[name], _Place(spec, name))


def _file_presence(at: _Place, kind: ChangeKind, verb: str) -> Change:
    if at.file.endswith(_REQUEST_SUFFIX):
        return at.change(kind, f"op-{verb}", f"the operation {at.file.removesuffix(_REQUEST_SUFFIX)} was {verb} ({at.file})")
    return at.change(kind, f"schema-{verb}", f"the schema {at.file} was {verb}")


def _file_changes(old: Any, new: Any, at: _Place) -> Iterator[Change]:
    old_split, new_split = (_split_codes(old), _split_codes(new)) if at.file == _ERROR_FILE else (None, None)
    if old_split is not None and new_split is not None:
        here = at.child("properties", "code")
        for code in sorted(old_split[0] - new_split[0]):
            yield here.change("breaking", "error-code-removed", f"the error code {code} was removed")
        for code in sorted(new_split[0] - old_split[0]):
            yield here.change("non-breaking", "error-code-added", f"the error code {code} was added")
        old, new = old_split[1], new_split[1]
    yield from _schema_changes(old, new, at)


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


def _schema_changes(old: Any, new: Any, at: _Place) -> Iterator[Change]:
    """Compare two schemas (objects or booleans) found at the same place."""
    if _same(old, new):
        return
    if new is False:
        yield at.change("breaking", "schema-closed", f"{_short(old)} → false: no value is accepted any more")
    elif old is False:
        yield at.change("non-breaking", "schema-opened", f"false → {_short(new)}: values are accepted again")
    elif isinstance(old, dict | bool) and isinstance(new, dict | bool):
        # true accepts what {} accepts; false was handled above.
        yield from _keyword_changes(old if isinstance(old, dict) else {}, new if isinstance(new, dict) else {}, at)
    else:
        yield at.change("info", "keyword-changed", f"{_short(old)} → {_short(new)}")


def _keyword_changes(old: Schema, new: Schema, at: _Place) -> Iterator[Change]:
    for keyword in sorted(old.keys() | new.keys()):
        before, after = old.get(keyword, _ABSENT), new.get(keyword, _ABSENT)
        if before is not _ABSENT and after is not _ABSENT and _same(before, after):
            continue
        handler, shape = _HANDLERS.get(keyword, (_other, _anything))
        yield from (handler if shape(before) and shape(after) else _other)(old, new, at, keyword)


# --- one handler per keyword (or family of keywords) ----------------------------------------------------------------


def _properties(old: Schema, new: Schema, at: _Place, keyword: str) -> Iterator[Change]:
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
        yield from _schema_changes(before[name], after[name], at.child(keyword, name))


def _required(old: Schema, new: Schema, at: _Place, keyword: str) -> Iterator[Change]:
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


def _type(old: Schema, new: Schema, at: _Place, keyword: str) -> Iterator[Change]:
    before, after = _types(old.get(keyword, _ABSENT)), _types(new.get(keyword, _ABSENT))
    lost, gained = before - after, after - before
    message = f"type {_short(old.get(keyword, _ABSENT))} → {_short(new.get(keyword, _ABSENT))}"
    if lost and gained:
        yield at.child(keyword).change("breaking", "type-changed", message)
    elif lost:
        yield at.child(keyword).change("breaking", "type-narrowed", message)
    elif gained:
        yield at.child(keyword).change("non-breaking", "type-widened", message)


def _types(value: Any) -> frozenset[str]:
    names = _ALL_TYPES if value is _ABSENT else frozenset([value] if isinstance(value, str) else value)
    # Every integer is a number, so "number" already admits what "integer" does.
    return names | {"integer"} if "number" in names else names


def _enum(old: Schema, new: Schema, at: _Place, keyword: str) -> Iterator[Change]:
    here = at.child(keyword)
    if keyword not in old:
        yield here.change("breaking", "enum-narrowed", f"an enum was added: only {_short(new[keyword])} is accepted")
    elif keyword not in new:
        yield here.change("non-breaking", "enum-widened", f"the enum {_short(old[keyword])} was removed: any value is accepted")
    else:
        before, after = {_canonical(v): v for v in old[keyword]}, {_canonical(v): v for v in new[keyword]}
        removed = [before[k] for k in sorted(before.keys() - after.keys())]
        added = [after[k] for k in sorted(after.keys() - before.keys())]
        message = f"enum values removed: {_short(removed)}, added: {_short(added)}"
        if removed:
            yield here.change("breaking", "enum-narrowed", message)
        elif added:
            yield here.change("non-breaking", "enum-widened", message)


def _bound(old: Schema, new: Schema, at: _Place, keyword: str) -> Iterator[Change]:
    before, after = old.get(keyword), new.get(keyword)
    if before is not None and after is not None and before == after:
        return
    lower = keyword.startswith(("min", "exclusiveMin"))
    tighter = after is not None and (before is None or (after > before if lower else after < before))
    message = f"{keyword} {_short(old.get(keyword, _ABSENT))} → {_short(new.get(keyword, _ABSENT))}"
    if tighter:
        yield at.child(keyword).change("breaking", "range-narrowed", message)
    else:
        yield at.child(keyword).change("non-breaking", "range-widened", message)


def _constraint(code: str) -> _Handler:
    """Return a handler for a constraint: added or changed is breaking `CODE-changed`, removed is non-breaking `CODE-removed`."""

    def handler(old: Schema, new: Schema, at: _Place, keyword: str) -> Iterator[Change]:
        message = f"{keyword} {_short(old.get(keyword, _ABSENT))} → {_short(new.get(keyword, _ABSENT))}"
        if keyword in new:
            yield at.child(keyword).change("breaking", f"{code}-changed", message)
        else:
            yield at.child(keyword).change("non-breaking", f"{code}-removed", message)

    return handler


def _unique_items(old: Schema, new: Schema, at: _Place, keyword: str) -> Iterator[Change]:
    before, after = old.get(keyword, False), new.get(keyword, False)
    if after and not before:
        yield at.child(keyword).change("breaking", "unique-items-added", "items must now be unique")
    elif before and not after:
        yield at.child(keyword).change("non-breaking", "unique-items-removed", "items need no longer be unique")


def _subschema(old: Schema, new: Schema, at: _Place, keyword: str) -> Iterator[Change]:
    yield from _schema_changes(old.get(keyword, True), new.get(keyword, True), at.child(keyword))


def _keyed(added: tuple[ChangeKind, str], removed: tuple[ChangeKind, str]) -> _Handler:
    """Return a handler for a map of named subschemas ($defs, patternProperties): names added, removed, and compared."""

    def handler(old: Schema, new: Schema, at: _Place, keyword: str) -> Iterator[Change]:
        before, after = old.get(keyword, {}), new.get(keyword, {})
        for name in sorted(before.keys() - after.keys()):
            yield at.child(keyword, name).change(*removed, f"{keyword} {name!r} was removed")
        for name in sorted(after.keys() - before.keys()):
            yield at.child(keyword, name).change(*added, f"{keyword} {name!r} was added")
        for name in sorted(before.keys() & after.keys()):
            yield from _schema_changes(before[name], after[name], at.child(keyword, name))

    return handler


def _branches(added: tuple[ChangeKind, str], removed: tuple[ChangeKind, str], *, by_position: bool = False) -> _Handler:
    """Return a handler for a list of subschemas: equal branches paired first (unless by position), the rest in order."""

    def handler(old: Schema, new: Schema, at: _Place, keyword: str) -> Iterator[Change]:
        before, after = old.get(keyword, []), new.get(keyword, [])
        pairs, gone, came = _positions(before, after) if by_position else _pairs(before, after)
        for i, j in pairs:
            yield from _schema_changes(before[i], after[j], at.child(keyword, j))
        for i in gone:
            yield at.child(keyword, i).change(*removed, f"{keyword} branch {i} {_short(before[i])} was removed")
        for j in came:
            yield at.child(keyword, j).change(*added, f"{keyword} branch {j} {_short(after[j])} was added")

    return handler


_Pairing = tuple[list[tuple[int, int]], list[int], list[int]]


def _pairs(before: list[Any], after: list[Any]) -> _Pairing:
    free, unequal = list(range(len(after))), []
    for i, branch in enumerate(before):
        j = next((j for j in free if _same(branch, after[j])), None)
        if j is None:
            unequal.append(i)
        else:
            free.remove(j)
    paired = list(zip(unequal, free, strict=False))
    return paired, unequal[len(paired) :], free[len(paired) :]


def _positions(before: list[Any], after: list[Any]) -> _Pairing:
    common = min(len(before), len(after))
    return [(i, i) for i in range(common)], list(range(common, len(before))), list(range(common, len(after)))


def _annotation(old: Schema, new: Schema, at: _Place, keyword: str) -> Iterator[Change]:
    message = f"{keyword} {_short(old.get(keyword, _ABSENT))} → {_short(new.get(keyword, _ABSENT))}"
    yield at.child(keyword).change("info", "annotation-changed", message)


def _other(old: Schema, new: Schema, at: _Place, keyword: str) -> Iterator[Change]:
    message = f"{keyword} {_short(old.get(keyword, _ABSENT))} → {_short(new.get(keyword, _ABSENT))}"
    yield at.child(keyword).change("info", "keyword-changed", message)


def _anything(_value: Any) -> bool:
    return True


def _shape(*types: type) -> Callable[[Any], bool]:
    """Return a check that a keyword's value is absent or of one of `types` (booleans are no numbers here)."""
    return lambda value: value is _ABSENT or (isinstance(value, types) and not (isinstance(value, bool) and bool not in types))


def _strings(value: Any) -> bool:
    return value is _ABSENT or (isinstance(value, list) and all(isinstance(v, str) for v in value))


def _type_shape(value: Any) -> bool:
    return value is _ABSENT or isinstance(value, str) or _strings(value)


def _maps(value: Any) -> bool:
    return value is _ABSENT or (isinstance(value, dict) and all(isinstance(v, dict | bool) for v in value.values()))


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


# --- registries ----------------------------------------------------------------------------------------------------

_FIELD_CODES: Final = {
    "quote": "quote-changed",
    "level": "level-changed",
    "kind": "kind-changed",
    "feature": "feature-changed",
    "section": "section-changed",
}


def _registry_changes(spec: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
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
        if key not in old or key not in new or not _same(old[key], new[key]):
            message = f"the registry's {key} {_short(old.get(key, _ABSENT))} → {_short(new.get(key, _ABSENT))}"
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
    message = f"the {entry.get('level', '')} requirement was {verb}: {_short(entry.get('quote', ''))}"
    return Change(kind="info", spec=spec, where=entry["id"], what=what, message=message)


def _requirement_changes(spec: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    for key in sorted((old.keys() | new.keys()) - {"id"}):
        before, after = old.get(key, _ABSENT), new.get(key, _ABSENT)
        if not _same_field(key, before, after):
            message = f"{key} {_short(before)} → {_short(after)}{_level_direction(key, before, after)}"
            what = _FIELD_CODES.get(key, "requirement-changed")
            yield Change(kind="info", spec=spec, where=new["id"], what=what, message=message)


def _same_field(key: str, before: Any, after: Any) -> bool:
    if before is _ABSENT or after is _ABSENT:
        return before is after
    # Quotes are compared as the registry checks them: white space collapsed.
    if key == "quote":
        return _quote_of({key: before}) == _quote_of({key: after})
    return _same(before, after)


def _level_direction(key: str, before: Any, after: Any) -> str:
    if key != "level" or before not in LEVELS or after not in LEVELS:
        return ""
    return " (raised)" if LEVELS.index(after) < LEVELS.index(before) else " (lowered)"


# --- rendering -----------------------------------------------------------------------------------------------------


def render_markdown(diff: SpecDiff) -> str:
    """Render a diff for people: a heading, the counts per kind, then a table per kind ("No changes." when there are none)."""
    lines = [f"# Spec changes: {diff.old} → {diff.new}", ""]
    if not diff.changes:
        return "\n".join([*lines, "No changes.", ""])
    lines += [", ".join(f"{diff.counts.get(kind, 0)} {kind}" for kind in CHANGE_KINDS) + ".", ""]
    for kind in CHANGE_KINDS:
        rows = [_row(change) for change in diff.changes if change.kind == kind]
        if rows:
            lines += [
                f"## {kind.capitalize()} ({len(rows)})",
                "",
                "| spec | where | what | change |",
                "|---|---|---|---|",
                *rows,
                "",
            ]
    return "\n".join(lines)


def _row(change: Change) -> str:
    cells = (change.spec, f"`{change.where}`", f"`{change.what}`", change.message)
    return "| " + " | ".join(cell.replace("|", "\\|").replace("\n", " ") for cell in cells) + " |"


# --- values --------------------------------------------------------------------------------------------------------


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _same(a: Any, b: Any) -> bool:
    # Compared as JSON text, so that true and 1 (equal in Python) stay different.
    return _canonical(a) == _canonical(b)


def _short(value: Any) -> str:
    text = "absent" if value is _ABSENT else _canonical(value)
    return text if len(text) <= _SHORT else text[: _SHORT - 1] + "…"


if __name__ == "__main__":
    print(json.dumps(spec_diff_schema(), indent=2))
