"""Spec diffs: every class of schema and requirement change classified, sources read from folders and git refs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from ctxconform.conformance.exceptions import ConfigurationError
from ctxconform.conformance.judge._data import schemas_dir
from ctxconform.conformance.specdiff._diff import (
    SPEC_DIFF_SCHEMA_ID,
    Change,
    SpecDiff,
    diff_specs,
    load_tree,
    render_markdown,
    spec_diff_schema,
)
from helpers import ROOT, Cli

SPEC = "shared-context"
Files = dict[str, Any]


def write_tree(folder: Path, files: Files) -> Path:
    """Write files (JSON values, or text for .toml) under `folder` and return it."""
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    (folder / "schemas").mkdir(parents=True, exist_ok=True)
    return folder


def diff_folders(tmp_path: Path, old: Files, new: Files) -> SpecDiff:
    """Diff two folders written from `old` and `new`."""
    before, after = write_tree(tmp_path / "old", old), write_tree(tmp_path / "new", new)
    return diff_specs(load_tree(str(before), repository=tmp_path), load_tree(str(after), repository=tmp_path))


def schema_pair(tmp_path: Path, old: Any, new: Any) -> SpecDiff:
    """Diff one schema file, `thing.json` of one spec, from `old` to `new`."""
    name = f"schemas/{SPEC}/thing.json"
    return diff_folders(tmp_path, {name: old}, {name: new})


def classes(diff: SpecDiff) -> list[tuple[str, str]]:
    """The (kind, what) of every change, in the diff's order."""
    return [(change.kind, change.what) for change in diff.changes]


def registry(*entries: dict[str, str], version: str = "1") -> str:
    """A registry TOML document with these requirement entries."""
    lines = [f'spec = "{SPEC}"', f'version = "{version}"', 'document = "d.txt"']
    for entry in entries:
        lines += ["", "[[requirement]]", *(f"{key} = {json.dumps(value)}" for key, value in entry.items())]
    return "\n".join(lines) + "\n"


def requirement(rid: str = "a", **fields: str) -> dict[str, str]:
    """One requirement entry, with defaults for the fields not given."""
    defaults = {"level": "MUST", "section": "3", "quote": f"the quote of {rid}", "kind": "testable"}
    return {"id": f"{SPEC}/3/{rid}", **defaults, **fields}


def git(repo: Path, *args: str) -> str:
    """Run git in `repo` with a fixed identity and return its output."""
    command = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "-C", str(repo), *args]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def commit_all(repo: Path, message: str) -> None:
    """Commit everything in `repo`."""
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


BREAKING, NON_BREAKING, INFO = "breaking", "non-breaking", "info"
OBJ = {"type": "object"}

SCHEMA_CASES: list[tuple[str, Any, Any, list[tuple[str, str]]]] = [
    ("identical", {"type": "string", "description": "x"}, {"type": "string", "description": "x"}, []),
    ("property removed", {"properties": {"a": {}, "b": {}}}, {"properties": {"a": {}}}, [(BREAKING, "property-removed")]),
    (
        "optional property added",
        {"properties": {"a": {}}},
        {"properties": {"a": {}, "b": {}}},
        [(NON_BREAKING, "property-added")],
    ),
    (
        "required property added",
        {"properties": {"a": {}}, "required": ["a"]},
        {"properties": {"a": {}, "b": {}}, "required": ["a", "b"]},
        [(BREAKING, "required-property-added")],
    ),
    (
        "required gains a name",
        {"properties": {"a": {}}},
        {"properties": {"a": {}}, "required": ["a"]},
        [(BREAKING, "required-added")],
    ),
    (
        "required loses a name",
        {"properties": {"a": {}}, "required": ["a"]},
        {"properties": {"a": {}}, "required": []},
        [(NON_BREAKING, "required-removed")],
    ),
    (
        "required property removed is one change",
        {"properties": {"a": {}, "b": {}}, "required": ["a", "b"]},
        {"properties": {"a": {}}, "required": ["a"]},
        [(BREAKING, "property-removed")],
    ),
    (
        "nested property",
        {"properties": {"a": {"type": "string"}}},
        {"properties": {"a": {"type": "integer"}}},
        [(BREAKING, "type-changed")],
    ),
    ("type narrowed", {"type": ["string", "null"]}, {"type": "string"}, [(BREAKING, "type-narrowed")]),
    ("type widened", {"type": "string"}, {"type": ["string", "null"]}, [(NON_BREAKING, "type-widened")]),
    ("type changed", {"type": "string"}, {"type": "integer"}, [(BREAKING, "type-changed")]),
    ("type added", {}, {"type": "string"}, [(BREAKING, "type-narrowed")]),
    ("type removed", {"type": "string"}, {}, [(NON_BREAKING, "type-widened")]),
    ("integer to number", {"type": "integer"}, {"type": "number"}, [(NON_BREAKING, "type-widened")]),
    ("number to integer", {"type": "number"}, {"type": "integer"}, [(BREAKING, "type-narrowed")]),
    ("enum narrowed", {"enum": ["a", "b"]}, {"enum": ["a"]}, [(BREAKING, "enum-narrowed")]),
    ("enum widened", {"enum": ["a"]}, {"enum": ["a", "b"]}, [(NON_BREAKING, "enum-widened")]),
    ("enum swapped", {"enum": ["a", "b"]}, {"enum": ["a", "c"]}, [(BREAKING, "enum-narrowed")]),
    ("enum added", {}, {"enum": ["a"]}, [(BREAKING, "enum-narrowed")]),
    ("enum removed", {"enum": ["a"]}, {}, [(NON_BREAKING, "enum-widened")]),
    ("enum reordered", {"enum": ["a", "b"]}, {"enum": ["b", "a"]}, []),
    ("enum keeps true apart from 1", {"enum": [1]}, {"enum": [True]}, [(BREAKING, "enum-narrowed")]),
    ("const changed", {"const": "a"}, {"const": "b"}, [(BREAKING, "const-changed")]),
    ("const added", {}, {"const": "a"}, [(BREAKING, "const-changed")]),
    ("const removed", {"const": "a"}, {}, [(NON_BREAKING, "const-removed")]),
    ("multipleOf changed", {"multipleOf": 2}, {"multipleOf": 3}, [(BREAKING, "multiple-of-changed")]),
    ("multipleOf added", {}, {"multipleOf": 2}, [(BREAKING, "multiple-of-changed")]),
    ("multipleOf removed", {"multipleOf": 2}, {}, [(NON_BREAKING, "multiple-of-removed")]),
    ("additionalProperties closed", OBJ, {**OBJ, "additionalProperties": False}, [(BREAKING, "schema-closed")]),
    (
        "additionalProperties true to false",
        {"additionalProperties": True},
        {"additionalProperties": False},
        [(BREAKING, "schema-closed")],
    ),
    (
        "additionalProperties schema to false",
        {"additionalProperties": OBJ},
        {"additionalProperties": False},
        [(BREAKING, "schema-closed")],
    ),
    (
        "additionalProperties opened",
        {"additionalProperties": False},
        {"additionalProperties": True},
        [(NON_BREAKING, "schema-opened")],
    ),
    ("additionalProperties dropped", {"additionalProperties": False}, {}, [(NON_BREAKING, "schema-opened")]),
    (
        "additionalProperties schema recursed",
        {"additionalProperties": {"type": "string"}},
        {"additionalProperties": {"type": "integer"}},
        [(BREAKING, "type-changed")],
    ),
    (
        "additionalProperties true to a schema",
        {"additionalProperties": True},
        {"additionalProperties": OBJ},
        [(BREAKING, "type-narrowed")],
    ),
    ("unevaluatedProperties closed", {}, {"unevaluatedProperties": False}, [(BREAKING, "schema-closed")]),
    ("unevaluatedProperties opened", {"unevaluatedProperties": False}, {}, [(NON_BREAKING, "schema-opened")]),
    ("pattern added", {}, {"pattern": "^a"}, [(BREAKING, "pattern-changed")]),
    ("pattern changed", {"pattern": "^a"}, {"pattern": "^b"}, [(BREAKING, "pattern-changed")]),
    ("pattern removed", {"pattern": "^a"}, {}, [(NON_BREAKING, "pattern-removed")]),
    ("format added", {}, {"format": "date-time"}, [(BREAKING, "format-changed")]),
    ("format changed", {"format": "date-time"}, {"format": "uri"}, [(BREAKING, "format-changed")]),
    ("format removed", {"format": "uri"}, {}, [(NON_BREAKING, "format-removed")]),
    ("oneOf branch added", {"oneOf": [OBJ]}, {"oneOf": [OBJ, {"type": "null"}]}, [(NON_BREAKING, "branch-added")]),
    ("oneOf branch removed", {"oneOf": [OBJ, {"type": "null"}]}, {"oneOf": [OBJ]}, [(BREAKING, "branch-removed")]),
    (
        "oneOf branch inserted in the middle",
        {"oneOf": [{"const": 1}, {"const": 3}]},
        {"oneOf": [{"const": 1}, {"const": 2}, {"const": 3}]},
        [(NON_BREAKING, "branch-added")],
    ),
    ("oneOf branch recursed", {"oneOf": [{"type": "string"}]}, {"oneOf": [{"type": "integer"}]}, [(BREAKING, "type-changed")]),
    ("anyOf branch added", {"anyOf": [OBJ]}, {"anyOf": [OBJ, {"type": "null"}]}, [(NON_BREAKING, "branch-added")]),
    ("anyOf branch removed", {"anyOf": [OBJ, {"type": "null"}]}, {"anyOf": [OBJ]}, [(BREAKING, "branch-removed")]),
    ("anyOf branch recursed", {"anyOf": [{"minLength": 1}]}, {"anyOf": [{"minLength": 2}]}, [(BREAKING, "range-narrowed")]),
    ("allOf branch added", {"allOf": [OBJ]}, {"allOf": [OBJ, {"required": ["a"]}]}, [(BREAKING, "all-of-added")]),
    ("allOf branch removed", {"allOf": [OBJ, {"required": ["a"]}]}, {"allOf": [OBJ]}, [(NON_BREAKING, "all-of-removed")]),
    (
        "allOf branch recursed",
        {"allOf": [{"required": ["a"]}]},
        {"allOf": [{"required": []}]},
        [(NON_BREAKING, "required-removed")],
    ),
    ("items recursed", {"items": {"type": "string"}}, {"items": {"type": ["string", "null"]}}, [(NON_BREAKING, "type-widened")]),
    ("items closed", {"prefixItems": [OBJ]}, {"prefixItems": [OBJ], "items": False}, [(BREAKING, "schema-closed")]),
    ("prefixItems added", {"prefixItems": [OBJ]}, {"prefixItems": [OBJ, OBJ]}, [(BREAKING, "prefix-item-added")]),
    ("prefixItems removed", {"prefixItems": [OBJ, OBJ]}, {"prefixItems": [OBJ]}, [(NON_BREAKING, "prefix-item-removed")]),
    (
        "prefixItems compared by position",
        {"prefixItems": [{"type": "string"}, {"type": "integer"}]},
        {"prefixItems": [{"type": "integer"}, {"type": "string"}]},
        [(BREAKING, "type-changed"), (BREAKING, "type-changed")],
    ),
    ("$defs added", {"$defs": {"a": OBJ}}, {"$defs": {"a": OBJ, "b": OBJ}}, [(NON_BREAKING, "def-added")]),
    ("$defs removed", {"$defs": {"a": OBJ, "b": OBJ}}, {"$defs": {"a": OBJ}}, [(BREAKING, "def-removed")]),
    ("$defs recursed", {"$defs": {"a": {"maxLength": 3}}}, {"$defs": {"a": {"maxLength": 2}}}, [(BREAKING, "range-narrowed")]),
    ("patternProperties added", {}, {"patternProperties": {"^x": OBJ}}, [(BREAKING, "pattern-property-added")]),
    ("patternProperties removed", {"patternProperties": {"^x": OBJ}}, {}, [(NON_BREAKING, "pattern-property-removed")]),
    (
        "patternProperties recursed",
        {"patternProperties": {"^x": {"enum": [1]}}},
        {"patternProperties": {"^x": {"enum": [1, 2]}}},
        [(NON_BREAKING, "enum-widened")],
    ),
    ("not added", {}, {"not": {"type": "null"}}, [(BREAKING, "not-changed")]),
    ("not changed", {"not": {"type": "null"}}, {"not": {"type": "string"}}, [(BREAKING, "not-changed")]),
    ("not removed", {"not": {"type": "null"}}, {}, [(NON_BREAKING, "not-removed")]),
    ("if changed", {"if": {"required": ["a"]}}, {"if": {"required": ["b"]}}, [(BREAKING, "condition-changed")]),
    ("then recursed", {"then": {"required": ["a"]}}, {"then": {"required": ["a", "b"]}}, [(BREAKING, "required-added")]),
    ("else recursed", {"else": {"required": ["a", "b"]}}, {"else": {"required": ["a"]}}, [(NON_BREAKING, "required-removed")]),
    ("contains recursed", {"contains": {"type": "string"}}, {"contains": {"type": "integer"}}, [(BREAKING, "type-changed")]),
    (
        "propertyNames recursed",
        {"propertyNames": {"maxLength": 9}},
        {"propertyNames": {"maxLength": 8}},
        [(BREAKING, "range-narrowed")],
    ),
    ("uniqueItems added", {}, {"uniqueItems": True}, [(BREAKING, "unique-items-added")]),
    ("uniqueItems removed", {"uniqueItems": True}, {"uniqueItems": False}, [(NON_BREAKING, "unique-items-removed")]),
    ("$ref changed", {"$ref": "a.json"}, {"$ref": "b.json"}, [(BREAKING, "ref-changed")]),
    ("$ref removed", {"$ref": "a.json"}, {}, [(NON_BREAKING, "ref-removed")]),
    ("description changed", {"description": "a"}, {"description": "b"}, [(INFO, "annotation-changed")]),
    ("title added", {}, {"title": "t"}, [(INFO, "annotation-changed")]),
    ("examples changed", {"examples": [1]}, {"examples": [2]}, [(INFO, "annotation-changed")]),
    ("$comment removed", {"$comment": "c"}, {}, [(INFO, "annotation-changed")]),
    ("default changed", {"default": 1}, {"default": 2}, [(INFO, "annotation-changed")]),
    ("unknown keyword", {"x-note": 1}, {"x-note": 2}, [(INFO, "keyword-changed")]),
    ("$id changed", {"$id": "https://a/x.json"}, {"$id": "https://b/x.json"}, [(INFO, "keyword-changed")]),
    ("malformed keyword value", {"required": "a"}, {"required": "b"}, [(INFO, "keyword-changed")]),
    ("whole schema closed", True, False, [(BREAKING, "schema-closed")]),
    ("whole schema opened", False, {}, [(NON_BREAKING, "schema-opened")]),
]

LOWER = ["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"]
UPPER = ["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"]
RANGE_CASES = [
    (f"{keyword} {how}", old, new, [expected])
    for keyword in LOWER + UPPER
    for how, old, new, expected in [
        (
            "raised",
            {keyword: 2},
            {keyword: 3},
            (BREAKING, "range-narrowed") if keyword in LOWER else (NON_BREAKING, "range-widened"),
        ),
        (
            "lowered",
            {keyword: 2},
            {keyword: 1},
            (NON_BREAKING, "range-widened") if keyword in LOWER else (BREAKING, "range-narrowed"),
        ),
        ("added", {}, {keyword: 2}, (BREAKING, "range-narrowed")),
        ("removed", {keyword: 2}, {}, (NON_BREAKING, "range-widened")),
    ]
]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [case[1:] for case in SCHEMA_CASES + RANGE_CASES],
    ids=[case[0] for case in SCHEMA_CASES + RANGE_CASES],
)
def test_each_schema_change_is_classified(tmp_path: Path, old: Any, new: Any, expected: list[tuple[str, str]]) -> None:
    """A schema changed in one way gives exactly the expected (kind, what) changes, and only those."""
    assert classes(schema_pair(tmp_path, old, new)) == expected


def test_a_change_names_its_file_and_json_pointer(tmp_path: Path) -> None:
    """`where` is the file name and the JSON pointer of the changed keyword, escaping / and ~ in names."""
    old = {"properties": {"a/b~c": {"properties": {"x": {"minLength": 1}}}}}
    new = {"properties": {"a/b~c": {"properties": {"x": {"minLength": 2}}}}}
    [change] = schema_pair(tmp_path, old, new).changes
    assert (change.spec, change.where) == (SPEC, "thing.json#/properties/a~1b~0c/properties/x/minLength")
    assert "1" in change.message
    assert "2" in change.message


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ({"read.request.json": OBJ}, {}, [(BREAKING, "op-removed")]),
        ({"defs.json": OBJ}, {}, [(BREAKING, "schema-removed")]),
        ({}, {"read.request.json": OBJ}, [(NON_BREAKING, "op-added")]),
        ({}, {"read.response.json": OBJ}, [(NON_BREAKING, "schema-added")]),
    ],
    ids=["op removed", "schema removed", "op added", "schema added"],
)
def test_schema_files_added_and_removed_are_classified(
    tmp_path: Path, old: Files, new: Files, expected: list[tuple[str, str]]
) -> None:
    """A request schema is an operation; other files are schemas; removing either is breaking."""
    keep = {f"schemas/{SPEC}/keep.json": OBJ}
    old_files = keep | {f"schemas/{SPEC}/{name}": value for name, value in old.items()}
    new_files = keep | {f"schemas/{SPEC}/{name}": value for name, value in new.items()}
    assert classes(diff_folders(tmp_path, old_files, new_files)) == expected


def error_schema(codes: list[str], *, as_consts: bool = False) -> dict[str, Any]:
    """An error.json with these codes, as an enum or as a oneOf of consts."""
    code = {"oneOf": [{"const": c, "description": c.lower()} for c in codes]} if as_consts else {"enum": codes}
    return {"type": "object", "required": ["code", "message"], "properties": {"code": code, "message": {"type": "string"}}}


@pytest.mark.parametrize("as_consts", [False, True], ids=["enum", "oneOf of consts"])
def test_error_codes_removed_are_breaking_and_added_are_not(tmp_path: Path, as_consts: bool) -> None:
    """Each error code removed is an error-code-removed (breaking), each added an error-code-added, however written."""
    name = f"schemas/{SPEC}/error.json"
    old, new = error_schema(["A", "B"], as_consts=as_consts), error_schema(["B", "C", "D"], as_consts=as_consts)
    diff = diff_folders(tmp_path, {name: old}, {name: new})
    found = [(c.kind, c.what, c.where, c.message.split()[3]) for c in diff.changes]
    assert found == [
        (NON_BREAKING, "error-code-added", "error.json#/properties/code", "C"),
        (NON_BREAKING, "error-code-added", "error.json#/properties/code", "D"),
        (BREAKING, "error-code-removed", "error.json#/properties/code", "A"),
    ]


def test_error_codes_rewritten_from_enum_to_consts_are_no_code_change(tmp_path: Path) -> None:
    """The same codes written another way give no error-code change."""
    name = f"schemas/{SPEC}/error.json"
    diff = diff_folders(tmp_path, {name: error_schema(["A", "B"])}, {name: error_schema(["B", "A"], as_consts=True)})
    assert [c.what for c in diff.changes if c.what.startswith("error-code")] == []


def test_specs_added_and_removed_are_one_change_each(tmp_path: Path) -> None:
    """A spec only in the old version is spec-removed (breaking); only in the new, spec-added (non-breaking)."""
    old = {"schemas/gone/a.json": OBJ, "schemas/kept/a.json": OBJ}
    new = {"schemas/kept/a.json": OBJ, "schemas/fresh/a.json": OBJ, "schemas/fresh/b.json": OBJ}
    diff = diff_folders(tmp_path, old, new)
    assert [(c.kind, c.spec, c.what) for c in diff.changes] == [
        (NON_BREAKING, "fresh", "spec-added"),
        (BREAKING, "gone", "spec-removed"),
    ]


def test_protocol_and_report_schemas_are_not_specs(tmp_path: Path) -> None:
    """Changes under schemas/protocol/ and schemas/report/ are ignored."""
    old = {"schemas/protocol/call.json": OBJ, "schemas/report/report.schema.json": OBJ, f"schemas/{SPEC}/a.json": OBJ}
    new = {"schemas/protocol/call.json": {"type": "string"}, f"schemas/{SPEC}/a.json": OBJ}
    diff = diff_folders(tmp_path, old, new)
    assert diff.changes == []


def registry_pair(tmp_path: Path, old: str | None, new: str) -> SpecDiff:
    """Diff two versions of one spec's registry (None: there is none), the schemas unchanged."""
    keep = {f"schemas/{SPEC}/a.json": OBJ}
    before = keep if old is None else keep | {f"requirements/{SPEC}.toml": old}
    return diff_folders(tmp_path, before, keep | {f"requirements/{SPEC}.toml": new})


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (registry(requirement("a")), registry(requirement("a")), []),
        (registry(requirement("a")), registry(requirement("a"), requirement("b")), [(INFO, "requirement-added")]),
        (registry(requirement("a"), requirement("b")), registry(requirement("a")), [(INFO, "requirement-removed")]),
        (registry(requirement("a")), registry(requirement("a", quote="new words")), [(INFO, "quote-changed")]),
        (registry(requirement("a")), registry(requirement("a", kind="untestable")), [(INFO, "kind-changed")]),
        (registry(requirement("a")), registry(requirement("a", feature="snapshot")), [(INFO, "feature-changed")]),
        (registry(requirement("a")), registry(requirement("a", section="4")), [(INFO, "section-changed")]),
        (registry(requirement("a")), registry(requirement("a", reason="why")), [(INFO, "requirement-changed")]),
        (registry(requirement("a")), registry(requirement("a"), version="2"), [(INFO, "registry-changed")]),
        (registry(requirement("a")), registry(requirement("b", quote="the quote of a")), [(INFO, "id-changed")]),
        (
            registry(requirement("a")),
            registry(requirement("b", quote="the  quote\nof a", level="SHOULD")),
            [(INFO, "id-changed"), (INFO, "level-changed")],
        ),
        (None, registry(requirement("a")), [(INFO, "registry-added"), (INFO, "requirement-added")]),
    ],
    ids=[
        "identical", "added", "removed", "quote", "kind", "feature", "section", "other field", "version", "renamed",
        "renamed and lowered", "registry added",
    ],
)  # fmt: skip
def test_each_registry_change_is_info(tmp_path: Path, old: str | None, new: str, expected: list[tuple[str, str]]) -> None:
    """Requirement changes are info, one per change; a requirement renamed is one id-changed, not removed and added."""
    assert classes(registry_pair(tmp_path, old, new)) == expected


@pytest.mark.parametrize(("old", "new", "word"), [("SHOULD", "MUST", "raised"), ("MUST", "MAY", "lowered")])
def test_a_level_change_says_raised_or_lowered(tmp_path: Path, old: str, new: str, word: str) -> None:
    """level-changed names both levels and whether the requirement got stronger or weaker."""
    diff = registry_pair(tmp_path, registry(requirement("a", level=old)), registry(requirement("a", level=new)))
    [change] = diff.changes
    assert (change.what, change.where) == ("level-changed", f"{SPEC}/3/a")
    assert old in change.message
    assert new in change.message
    assert word in change.message


def test_a_renamed_requirement_names_both_ids(tmp_path: Path) -> None:
    """id-changed is charged to the old id and names the new one."""
    diff = registry_pair(tmp_path, registry(requirement("a")), registry(requirement("b", quote="the quote of a")))
    [change] = diff.changes
    assert change.where == f"{SPEC}/3/a"
    assert f"{SPEC}/3/b" in change.message


def test_changes_are_sorted_by_spec_where_and_what_and_counted(tmp_path: Path) -> None:
    """The order is stable and the counts add up per kind."""
    old = {"schemas/b/x.json": {"properties": {"z": {}, "a": {}}}, "schemas/a/x.json": {"title": "a", "minLength": 1}}
    new = {"schemas/b/x.json": {"properties": {}}, "schemas/a/x.json": {"title": "b", "minLength": 0, "pattern": "p"}}
    diff = diff_folders(tmp_path, old, new)
    keys = [(c.spec, c.where, c.what) for c in diff.changes]
    assert keys == sorted(keys)
    assert len(keys) == 5
    assert diff.counts == {BREAKING: 3, NON_BREAKING: 1, INFO: 1}


@pytest.mark.parametrize(
    ("kinds", "threshold", "fails"),
    [
        ([BREAKING], BREAKING, True),
        ([NON_BREAKING, INFO], BREAKING, False),
        ([NON_BREAKING], NON_BREAKING, True),
        ([INFO], NON_BREAKING, False),
        ([INFO], INFO, True),
        ([], INFO, False),
    ],
)
def test_fails_when_a_change_is_at_least_as_severe_as_the_threshold(kinds: list[Any], threshold: Any, fails: bool) -> None:
    """fails(threshold) is true when some change is of that kind or a more severe one."""
    changes = [Change(kind=kind, spec=SPEC, where="x", what="w", message="m") for kind in kinds]
    diff = SpecDiff(old="o", new="n", counts={}, changes=changes)
    assert diff.fails(threshold) is fails


def test_the_repository_compared_with_itself_has_no_changes() -> None:
    """The checkout read twice as a folder gives an empty diff, though every spec and registry was read."""
    old, new = load_tree(str(ROOT), repository=ROOT), load_tree(str(ROOT), repository=ROOT)
    assert len(old.specs) >= 5
    assert all(old.schemas.get(spec) and old.registries.get(spec) for spec in old.specs)
    assert diff_specs(old, new).changes == []


def test_head_compared_with_itself_has_no_changes() -> None:
    """The ref HEAD read twice from the repository's objects gives an empty diff, labelled with its commit."""
    head = git(ROOT, "rev-parse", "HEAD").strip()
    old, new = load_tree("HEAD", repository=ROOT), load_tree("HEAD", repository=ROOT)
    assert old.label == f"HEAD ({head[:12]})"
    assert len(old.specs) >= 5
    assert diff_specs(old, new).changes == []


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A small git repository: one commit of a spec's schemas and registry in the kit's layout, then a second."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    registries = "conformance/ctxconform/conformance/requirements"
    write_tree(
        repo, {f"schemas/{SPEC}/a.json": {"properties": {"x": {}}}, f"{registries}/{SPEC}.toml": registry(requirement("a"))}
    )
    commit_all(repo, "first")
    write_tree(repo, {f"schemas/{SPEC}/a.json": {"properties": {"x": {}, "y": {}}}})
    commit_all(repo, "second")
    return repo


def test_a_git_ref_is_read_from_its_commit_not_the_working_tree(repo: Path) -> None:
    """HEAD~1 and HEAD are read from the commits; an uncommitted edit shows only when the folder is read."""
    write_tree(repo, {f"schemas/{SPEC}/a.json": {"properties": {"x": {}, "y": {}}, "required": ["x"]}})
    first, head, folder = (load_tree(text, repository=repo) for text in ("HEAD~1", "HEAD", str(repo)))
    assert first.registries[SPEC]["requirement"][0]["id"] == f"{SPEC}/3/a"
    assert classes(diff_specs(first, head)) == [(NON_BREAKING, "property-added")]
    assert classes(diff_specs(head, folder)) == [(BREAKING, "required-added")]
    assert "required" in (repo / "schemas" / SPEC / "a.json").read_text(encoding="utf-8")
    assert git(repo, "status", "--porcelain").strip() == f"M schemas/{SPEC}/a.json"


def test_a_branch_or_sha_is_a_ref_too(repo: Path) -> None:
    """A branch name and a full commit id both name a version."""
    sha = git(repo, "rev-parse", "HEAD~1").strip()
    git(repo, "branch", "old", sha)
    by_branch, by_sha = load_tree("old", repository=repo), load_tree(sha, repository=repo)
    assert by_branch.label == f"old ({sha[:12]})"
    assert diff_specs(by_branch, by_sha).changes == []


def test_registries_in_a_top_level_requirements_folder_are_read(tmp_path: Path) -> None:
    """A folder holding schemas/ and requirements/ is a version with its registries."""
    folder = write_tree(tmp_path / "v", {f"schemas/{SPEC}/a.json": OBJ, f"requirements/{SPEC}.toml": registry(requirement("a"))})
    tree = load_tree(str(folder), repository=tmp_path)
    assert list(tree.registries) == [SPEC]


@pytest.mark.parametrize("text", ["no-such-ref-or-folder", "HEAD~999", "--output=x", " "])
def test_a_source_that_is_neither_folder_nor_ref_is_a_configuration_error(repo: Path, text: str) -> None:
    """The message says to give a folder or a git ref."""
    with pytest.raises(ConfigurationError, match=r"folder .*git ref"):
        load_tree(text, repository=repo)


def test_a_ref_outside_a_git_repository_is_a_configuration_error(tmp_path: Path) -> None:
    """A ref is looked up only in a git repository; elsewhere the message says what to give."""
    with pytest.raises(ConfigurationError, match="not a git repository"):
        load_tree("HEAD", repository=tmp_path)


def test_a_folder_or_commit_without_schemas_is_a_configuration_error(repo: Path, tmp_path: Path) -> None:
    """A version needs a schemas/ folder, on disk or in the commit."""
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigurationError, match="no schemas/ folder"):
        load_tree(str(tmp_path / "empty"), repository=repo)
    git(repo, "rm", "-q", "-r", "schemas")
    commit_all(repo, "no schemas")
    with pytest.raises(ConfigurationError, match="no schemas/ folder"):
        load_tree("HEAD", repository=repo)


@pytest.mark.parametrize(
    ("name", "content"),
    [
        (f"schemas/{SPEC}/a.json", "{not json"),
        (f"requirements/{SPEC}.toml", "spec = "),
        (f"requirements/{SPEC}.toml", registry(requirement("a"), requirement("a"))),
        (f"requirements/{SPEC}.toml", '[[requirement]]\nlevel = "MUST"\n'),
    ],
    ids=["bad json", "bad toml", "repeated id", "no id"],
)
def test_a_malformed_file_is_a_configuration_error_naming_it(tmp_path: Path, name: str, content: str) -> None:
    """Malformed JSON or TOML, or a registry without distinct ids, names the file."""
    folder = write_tree(tmp_path / "v", {name: content})
    with pytest.raises(ConfigurationError, match=name.replace(".", r"\.")):
        load_tree(str(folder), repository=tmp_path)


def test_the_markdown_lists_every_change_under_its_kind(tmp_path: Path) -> None:
    """Markdown has a heading, the counts, and a table row per change with its where, what and message."""
    old = {"properties": {"a": {}, "b|c": {}}, "description": "old"}
    new = {"properties": {"a": {}, "d": {}}, "description": "new"}
    diff = schema_pair(tmp_path, old, new)
    text = render_markdown(diff)
    assert text.startswith("# Spec changes: ")
    assert "1 breaking, 1 non-breaking, 1 info." in text
    assert text.index("## Breaking") < text.index("## Non-breaking") < text.index("## Info")
    assert len(diff.changes) == 3
    for change in diff.changes:
        where, message = (text_of.replace("|", "\\|") for text_of in (change.where, change.message))
        assert f"| {SPEC} | `{where}` | `{change.what}` | {message} |" in text


def test_the_markdown_of_no_changes_says_so(tmp_path: Path) -> None:
    """An empty diff renders as its heading and "No changes."."""
    text = render_markdown(schema_pair(tmp_path, OBJ, OBJ))
    assert "No changes." in text
    assert "|" not in text


def test_the_json_output_matches_its_schema_and_reads_back(tmp_path: Path) -> None:
    """model_dump_json is valid against the committed spec-diff schema and parses back to the same diff."""
    diff = schema_pair(tmp_path, {"type": "string"}, {"type": "integer", "title": "t"})
    document = json.loads(diff.model_dump_json())
    committed = json.loads((schemas_dir() / "report" / "spec-diff.schema.json").read_text(encoding="utf-8"))
    assert list(Draft202012Validator(committed).iter_errors(document)) == []
    assert SpecDiff.model_validate_json(diff.model_dump_json()) == diff
    assert document["counts"] == {BREAKING: 1, NON_BREAKING: 0, INFO: 1}


def test_the_committed_spec_diff_schema_is_generated_from_the_model() -> None:
    """schemas/report/spec-diff.schema.json is what `python -m ctxconform.conformance.specdiff._diff` prints."""
    committed = json.loads((schemas_dir() / "report" / "spec-diff.schema.json").read_text(encoding="utf-8"))
    assert committed == spec_diff_schema()
    assert committed["$id"] == SPEC_DIFF_SCHEMA_ID


def test_a_version_read_is_frozen(tmp_path: Path) -> None:
    """Trees and diffs cannot be changed after they are read."""
    tree = load_tree(str(write_tree(tmp_path / "v", {f"schemas/{SPEC}/a.json": OBJ})), repository=tmp_path)
    with pytest.raises(ValueError, match="frozen"):
        tree.label = "x"


ENUM_OLD = {f"schemas/{SPEC}/thing.json": {"enum": ["a", "b"]}}


@pytest.mark.parametrize(
    ("new", "fail_on", "code"),
    [
        ({f"schemas/{SPEC}/thing.json": {"enum": ["a"]}}, "breaking", 1),
        ({f"schemas/{SPEC}/thing.json": {"enum": ["a", "b", "c"]}}, "breaking", 0),
        ({f"schemas/{SPEC}/thing.json": {"enum": ["a", "b", "c"]}}, "non-breaking", 1),
        ({f"schemas/{SPEC}/thing.json": {"enum": ["a"]}}, None, 0),
    ],
    ids=["narrowed-fails", "widened-passes-breaking", "widened-fails-non-breaking", "no-threshold"],
)
def test_the_command_exits_1_only_on_a_change_at_the_fail_on_level(
    tmp_path: Path, new: Files, fail_on: str | None, code: int
) -> None:
    """`ctxconform spec-diff OLD NEW --fail-on KIND` exits 1 exactly when a change that severe is found."""
    write_tree(tmp_path / "old", ENUM_OLD)
    write_tree(tmp_path / "new", new)
    done = Cli(tmp_path)("spec-diff", "old", "new", *(("--fail-on", fail_on) if fail_on else ()))
    assert done.returncode == code, done.stderr
    assert "thing.json" in done.stdout


def test_the_command_writes_json_valid_against_its_schema_to_a_file(tmp_path: Path) -> None:
    """`--format json --output FILE` writes the diff (valid against spec-diff.schema.json) and leaves stdout empty."""
    write_tree(tmp_path / "old", ENUM_OLD)
    write_tree(tmp_path / "new", {f"schemas/{SPEC}/thing.json": {"enum": ["a"]}})
    done = Cli(tmp_path)("spec-diff", "old", "new", "--format", "json", "--output", "out/diff.json")
    assert (done.returncode, done.stdout) == (0, "")
    document = json.loads((tmp_path / "out" / "diff.json").read_text(encoding="utf-8"))
    schema = json.loads((schemas_dir() / "report" / "spec-diff.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator(schema).validate(document)
    assert [(c["kind"], c["what"]) for c in document["changes"]] == [("breaking", "enum-narrowed")]
    assert "1 breaking" in done.stderr


def test_the_command_refuses_a_source_that_is_neither_folder_nor_ref_with_exit_2(tmp_path: Path) -> None:
    """An unknown OLD is one clear line on stderr and exit code 2, never a traceback."""
    done = Cli(tmp_path)("spec-diff", "no-such-thing", str(ROOT), "--repository", str(ROOT))
    assert done.returncode == 2
    assert done.stderr.startswith("ctxconform: error: 'no-such-thing' is neither a folder nor a git ref")
    assert "Traceback" not in done.stderr
