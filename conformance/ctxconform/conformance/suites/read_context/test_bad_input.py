"""Bad input: hostile ids, unknown images and malformed arguments get an error (or the fresh reading), never a crash."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance.suites.read_context import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.read_context.client import (
    FRESH,
    OPERATIONS,
    ReadContextClient,
    Workspace,
    fresh_workspace,
    taste_text,
)
from ctxconform.conformance.testing import Checked, Implementation, check, check_equal, requirement, unique_hex

Json = dict[str, Any]

LEAK: Final = "LEAK-8c1f-never-return-me"
UNKNOWN: Final = R.TOLERANCE_UNKNOWN_IMAGE_ID
TOOL: Final = R.IMPLEMENTATION_NOTES_TOOL_NAME
EXTRA: Final = R.IMPLEMENTATION_NOTES_EXTRA_ARGUMENTS
FILES: Final = {
    "brief.md": f"Tastes: underwater\n{LEAK} brief\n",
    "notes.md": f"{LEAK} notes\n",
    "log.jsonl": json.dumps({"op": "tag", "name": LEAK}) + "\n",
    "vocabulary_gaps.jsonl": json.dumps({"description": LEAK, "image_id": "x"}) + "\n",
}


def plant(folder: Path) -> None:
    """Put the four workspace files, each holding LEAK, in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in FILES.items():
        (folder / name).write_text(text, encoding="utf-8")


def unplant(folder: Path) -> None:
    """Remove what plant() wrote."""
    for name in FILES:
        (folder / name).unlink(missing_ok=True)


@pytest.fixture
def planted(workspace: Workspace, tmp_path: Path) -> Iterator[dict[str, str]]:
    """LEAK files wherever a hostile id could lead; yields {case name: hostile id}."""
    root = workspace.root
    outside = tmp_path / "outside"
    link = root / f"link-{unique_hex(8)}"
    places = [root.parent, root.parent / "x", root / "a" / "b", root, outside, workspace.tastes_dir]
    for place in places:
        plant(place)
    link.symlink_to(outside, target_is_directory=True)
    try:
        yield {
            "parent": "..",
            "beside": "../x",
            "nested": "a/b",
            "dot": ".",
            "empty": "",
            "dot-slash": "./",
            "absolute": str(outside),
            "absolute-slash": f"{outside}/",
            "symlink": link.name,
            "re-entering": f"../{root.name}/../x",
            "backslash": f"..\\{root.name}",
            "tastes-folder": f"../{workspace.tastes_dir.name}",
        }
    finally:
        link.unlink()
        for place in places:
            unplant(place)
        # Only the folders plant() created: the root and the tastes folder stay.
        for folder in (root / "a" / "b", root / "a", root.parent / "x", outside):
            folder.rmdir()


def read_any(implementation: Implementation, args: object, serves: str) -> Checked:
    """Call read_context with any arguments."""
    return ReadContextClient(implementation, OPERATIONS).read_context(args, serves=serves)


def refused_or_fresh(checked: Checked, what: str) -> None:
    """An error, or (the fresh reading of unknown-image-id) the empty structs; LEAK never appears."""
    answer = checked.raw if checked.ok else {"error": checked.error}
    check(UNKNOWN, LEAK not in json.dumps(answer), f"{what}: read files the id does not name", sent=checked.sent, received=answer)
    if checked.ok:
        context = checked.expect(UNKNOWN)
        rest = {k: v for k, v in context.items() if k != "tastes"}
        check_equal(UNKNOWN, rest, {k: FRESH[k] for k in rest}, f"{what}: the pieces besides tastes", sent=checked.sent)
        check_equal(UNKNOWN, context["tastes"]["genres"], {}, f"{what}: tastes.genres", sent=checked.sent)


PATH_LIKE: Final = {
    "parent": "the workspace root's parent",
    "beside": "a folder beside the workspace root",
    "nested": "a nested folder inside the root",
    "dot": "the workspace root itself",
    "empty": "the workspace root itself",
    "dot-slash": "the workspace root itself",
    "absolute": "an absolute path outside the root",
    "absolute-slash": "an absolute path outside the root",
    "symlink": "a symlink in the root pointing outside it",
    "re-entering": "a path leaving and re-entering the root",
    "backslash": "a backslash path",
    "tastes-folder": "the tastes folder",
}


@requirement(UNKNOWN)
@pytest.mark.parametrize("case", PATH_LIKE)
def test_path_like_ids_never_read_outside_the_root(workspace: Workspace, planted: dict[str, str], case: str) -> None:
    """'..', '../x', 'a/b', '.', '', absolute paths, symlinks out of the root: an error or empty, never the files they name."""
    image_id = planted[case]
    refused_or_fresh(workspace.read(UNKNOWN, image_id=image_id), f"{image_id!r} ({PATH_LIKE[case]})")


@requirement(UNKNOWN)
@pytest.mark.parametrize(
    "suffix",
    ["\x00", "\n", "\r\n", " ", "\t", "/..", "/../..", "/../../x", "\x1b[31m", "\x7f"],
    ids=["nul", "newline", "crlf", "space", "tab", "up", "up-up", "up-up-x", "escape", "del"],
)
@pytest.mark.usefixtures("planted")
def test_an_existing_id_with_something_appended_names_no_workspace(workspace: Workspace, suffix: str) -> None:
    """The workspace's id followed by NUL, a line break, whitespace, a separator or control characters is not that workspace."""
    plant(workspace.folder)
    image_id = workspace.image_id + suffix
    refused_or_fresh(workspace.read(UNKNOWN, image_id=image_id), repr(image_id))


@requirement(UNKNOWN)
@pytest.mark.parametrize(
    "image_id",
    [
        "\x00",
        "\n",
        "a\x00b",
        "a\nb",
        "\x1b",
        "x" * 256,
        "x" * 10_000,
        "\u202e..",
        "\uff0e\uff0e",
        "/etc",
        "/",
        "/etc/passwd",
        "~",
        "~root",
    ],
    ids=[
        "nul",
        "newline",
        "inner-nul",
        "inner-newline",
        "escape",
        "256",
        "10000",
        "rtl",
        "fullwidth-dots",
        "etc",
        "slash",
        "passwd",
        "tilde",
        "tilde-root",
    ],
)
def test_odd_string_ids_get_an_error_or_nothing(workspace: Workspace, image_id: str) -> None:
    """NUL, line breaks, control characters and very long ids get an error or the empty context, never a crash."""
    refused_or_fresh(workspace.read(UNKNOWN, image_id=image_id), repr(image_id[:40]))


@requirement(UNKNOWN)
def test_an_unknown_image_id_follows_a_reading(workspace: Workspace) -> None:
    """An id naming no workspace gets a spec error, or the fresh context with the global tastes still loaded.

    ADR-059 names no error code: any non-empty code is accepted (the error schema requires one; the origin's is not_found).
    """
    workspace.taste("_default", "# Everything\nwarm\n")
    checked = workspace.read(UNKNOWN, image_id=f"img-missing-{unique_hex(12)}")
    if not checked.ok:
        checked.refused(UNKNOWN)
        return
    context = checked.expect(UNKNOWN)
    # tastes.default trimmed: its surrounding whitespace is taste-text-whitespace's.
    found = {**context, "tastes": {**context["tastes"], "default": taste_text(context["tastes"]["default"])}}
    expected = {**FRESH, "tastes": {**FRESH["tastes"], "default": "# Everything\nwarm"}}
    check_equal(UNKNOWN, found, expected, "the answer for an unknown image, tastes.default trimmed", sent=checked.sent)


@requirement(UNKNOWN)
def test_a_removed_workspace_is_unknown(workspace: Workspace) -> None:
    """After its folder is deleted an image is unknown: a spec error or the fresh context, none of its old files."""
    plant(workspace.folder)
    # Known before its folder goes: a refusal here fails the requirement, which is about ids naming no workspace.
    workspace.context(UNKNOWN)
    workspace.remove()
    refused_or_fresh(workspace.read(UNKNOWN), "a deleted workspace")


NON_STRINGS: Final[list[Any]] = [None, 42, 4.2, True, False, [], {}, ["img"], {"id": "img"}, 0]


@requirement(TOOL)
@pytest.mark.parametrize("image_id", NON_STRINGS, ids=[type(v).__name__ + str(i) for i, v in enumerate(NON_STRINGS)])
def test_a_non_string_image_id_is_refused(workspace: Workspace, image_id: Any) -> None:
    """image_id of any type but string gets an error reply."""
    workspace.client.read_context({"image_id": image_id}, serves=TOOL).refused(TOOL)


@requirement(TOOL)
def test_the_workspace_id_in_a_list_is_refused(workspace: Workspace) -> None:
    """[id] for an existing workspace is still not a string: an error, not that workspace."""
    workspace.client.read_context({"image_id": [workspace.image_id]}, serves=TOOL).refused(TOOL)


@requirement(TOOL)
@pytest.mark.parametrize(
    "args",
    [
        {},
        {"image": "x"},
        {"imageId": "x"},
        {"IMAGE_ID": "x"},
        None,
        [],
        ["image_id"],
        "image_id",
        7,
    ],
    ids=["empty", "image", "camel", "upper", "null", "list", "list-of-name", "string", "number"],
)
def test_missing_arguments_are_refused(workspace: Workspace, args: Any) -> None:
    """Arguments without image_id, or not an object at all, get an error reply."""
    workspace.client.read_context(args, serves=TOOL).refused(TOOL)


@requirement(TOOL)
def test_the_image_id_alone_is_accepted(workspace: Workspace) -> None:
    """{image_id: string} naming an existing workspace gets a context, not an error."""
    workspace.write("brief.md", "Manta.\n")
    workspace.answered(TOOL)


def refused_or_ignored(workspace: Workspace, extra: Json) -> None:
    """{image_id} plus `extra` is refused, or answered exactly as {image_id} alone is (extra-arguments' readings)."""
    plain = workspace.context(EXTRA)
    checked = workspace.client.read_context({"image_id": workspace.image_id, **extra}, serves=EXTRA)
    answer = checked.expect(EXTRA) if checked.ok else None
    message = "extra arguments changed the answer"
    check(EXTRA, answer in (None, plain), message, sent=checked.sent, received=answer, expected=plain)


@requirement(EXTRA)
@pytest.mark.parametrize(
    "extra",
    [{"limit": 20}, {"full_notes": True}, {"tastes": ["underwater"]}, {"image_id ": "x"}, {"": None}],
    ids=["limit", "full-notes", "tastes", "spaced-key", "empty-key"],
)
def test_extra_arguments_follow_a_reading(workspace: Workspace, extra: Json) -> None:
    """{image_id} plus another property is refused, or answered as {image_id} alone: the extra never changes the answer."""
    workspace.taste("underwater", "Restore reds.\n")
    workspace.write("brief.md", "Manta.\n")
    workspace.write("notes.md", "".join(f"note {n}\n" for n in range(60)))
    refused_or_ignored(workspace, extra)


scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=10)
)
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=8
)
bad_args = st.one_of(
    json_values.filter(lambda v: not isinstance(v, dict)),
    # Objects without a string image_id: {image_id: string} with other properties is extra-arguments'.
    st.dictionaries(st.text(max_size=10), json_values, max_size=4).filter(lambda d: not isinstance(d.get("image_id"), str)),
    st.builds(lambda v: {"image_id": v}, json_values.filter(lambda v: not isinstance(v, str))),
)


@requirement(TOOL)
@given(args=bad_args)
def test_any_malformed_arguments_are_refused(implementation: Implementation, args: Any) -> None:
    """Arguments that are not an object, or lack a string image_id, get an error reply, never a crash."""
    read_any(implementation, args, TOOL).refused(TOOL)


@requirement(EXTRA)
@given(extra=st.dictionaries(st.text(max_size=10).filter(lambda key: key != "image_id"), json_values, min_size=1, max_size=3))
def test_any_extra_arguments_follow_a_reading(implementation: Implementation, extra: Json) -> None:
    """{image_id} plus any other properties is refused, or answered as {image_id} alone."""
    with fresh_workspace(implementation) as workspace:
        workspace.write("brief.md", "Tastes: underwater\nManta.\n")
        refused_or_ignored(workspace, extra)


@requirement(UNKNOWN)
@given(image_id=st.text(max_size=80))
def test_any_string_id_naming_no_workspace_gets_an_error_or_nothing(implementation: Implementation, image_id: str) -> None:
    """Any string id naming no workspace gets an error or the empty context, never a crash."""
    with fresh_workspace(implementation) as workspace:
        if image_id == workspace.image_id:
            return
        refused_or_fresh(workspace.read(UNKNOWN, image_id=image_id), repr(image_id))


def tree(*folders: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and folder (None) under `folders`, symlinks not followed."""
    found: dict[str, bytes | None] = {}
    for folder in folders:
        for base, dirs, files in os.walk(folder):
            for name in dirs:
                found[str(Path(base, name))] = None
            for name in files:
                path = Path(base, name)
                found[str(path)] = None if path.is_symlink() else path.read_bytes()
    return found


@requirement(R.CONSEQUENCES_MARKDOWN_STAYS_HUMAN_EDITED)
def test_reading_creates_and_changes_no_file(workspace: Workspace, planted: dict[str, str]) -> None:
    """Repeated reads, of good, unknown and hostile ids, leave every file byte for byte as it was and create none."""
    workspace.taste("_default", "# Everything\nwarm\n")
    workspace.taste("wildlife", "Sharp eyes.\nwarm\n")
    workspace.write("brief.md", "Tastes: underwater, wildlife, ghost\nManta.\n")
    workspace.write("notes.md", "".join(f"note {n}\n" for n in range(100)))
    workspace.write("log.jsonl", "".join(json.dumps({"op": "tag", "n": n}) + "\n" for n in range(8)))
    workspace.write("vocabulary_gaps.jsonl", '{"description": "d", "image_id": "i"}\n{broken\n')
    before = tree(workspace.root.parent)
    for _ in range(3):
        workspace.context(R.CONSEQUENCES_MARKDOWN_STAYS_HUMAN_EDITED)
        workspace.read(R.CONSEQUENCES_MARKDOWN_STAYS_HUMAN_EDITED, image_id=f"img-never-{unique_hex(8)}")
        for image_id in planted.values():
            workspace.read(R.CONSEQUENCES_MARKDOWN_STAYS_HUMAN_EDITED, image_id=image_id)
    after = tree(workspace.root.parent)
    created = sorted(set(after) - set(before))
    changed = sorted(path for path in set(before) & set(after) if before[path] != after[path])
    removed = sorted(set(before) - set(after))
    check(
        R.CONSEQUENCES_MARKDOWN_STAYS_HUMAN_EDITED,
        not created and not changed and not removed,
        "reading created, changed or removed files",
        received={"created": created[:5], "changed": changed[:5], "removed": removed[:5]},
        expected={"created": [], "changed": [], "removed": []},
    )
