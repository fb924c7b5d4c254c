"""Edge identifiers: hostile and confusable image ids and genre names, and image ids of the wrong type."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from hypothesis import given

from ctxconform.conformance.suites.read_context import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.read_context.client import (
    Workspace,
    conflicts_of,
    fresh_workspace,
    genre_texts,
    taste_texts,
)
from ctxconform.conformance.testing import (
    HOSTILE_NAMES,
    NAME_PAIRS,
    WRONG_TYPES,
    Checked,
    Implementation,
    check,
    check_equal,
    edge,
    hostile_names,
    requirement,
    unique_hex,
)

Json = dict[str, Any]

UNKNOWN: Final = R.TOLERANCE_UNKNOWN_IMAGE_ID
BRIEF: Final = R.LOADING_ORDER_BRIEF_PER_IMAGE
NOTES: Final = R.LOADING_ORDER_NOTES_PER_IMAGE
TOOL: Final = R.IMPLEMENTATION_NOTES_TOOL_NAME
SEPARATORS: Final = ("/", "\\", "\x00")


def is_plain(name: str) -> bool:
    """Whether `name` can only be one folder's name: not empty, no separator or NUL, not '.' or '..', not too long."""
    plain = bool(name) and name not in (".", "..") and not any(s in name for s in SEPARATORS)
    return plain and len(name.encode("utf-8", "surrogatepass")) <= 255


def has_control(name: str) -> bool:
    """Whether `name` holds a control character (an implementation may refuse such an id even when its folder exists)."""
    return any(ord(c) < 0x20 or ord(c) == 0x7F for c in name)


def per_id(case: str | tuple[str, ...], name: str) -> Any:
    """A parameter naming ids: brief- and notes-per-image when one is a plain folder name, unknown-image-id when one is not."""
    ids = (case,) if isinstance(case, str) else case
    plain = [is_plain(image_id) and not has_control(image_id) for image_id in ids]
    owners = ([BRIEF, NOTES] if any(plain) else []) + ([UNKNOWN] if not all(plain) else [])
    return pytest.param(case, id=name, marks=[requirement(*owners)])


class Planted:
    """Folders holding a brief and notes with a mark of their own, wherever ids lead; removed afterwards."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.marks: dict[Path, str] = {}
        self.made: list[Path] = []

    def plant(self, place: Path) -> str:
        """Put a marked brief.md and notes.md in `place` (created); return the mark (the one already there, if any)."""
        key = place.resolve()
        if key in self.marks:
            return self.marks[key]
        mark = f"MARK-{unique_hex(10)}"
        missing = [folder for folder in (key, *key.parents) if not folder.exists()]
        self.made += missing[-1:]  # the outermost folder plant() creates
        key.mkdir(parents=True, exist_ok=True)
        (key / "brief.md").write_text(f"{mark} brief\n", encoding="utf-8")
        (key / "notes.md").write_text(f"{mark} notes\n", encoding="utf-8")
        self.marks[key] = mark
        return mark

    def remove(self) -> None:
        """Delete what plant() made, and the planted files in folders that were already there."""
        for place in self.marks:
            for name in ("brief.md", "notes.md"):
                (place / name).unlink(missing_ok=True)
        for place in reversed(self.made):
            shutil.rmtree(place, ignore_errors=True)


@pytest.fixture
def planted(workspace: Workspace) -> Iterator[Planted]:
    """Marked folders under (and beside) the workspace root, removed after the test."""
    created = Planted(workspace.root)
    try:
        yield created
    finally:
        created.remove()


def answer_of(checked: Checked) -> str:
    """The reply, result or error, as JSON text."""
    return json.dumps(checked.raw if checked.ok else {"error": checked.error})


def check_own(checked: Checked, mark: str, others: list[str], image_id: str, owners: tuple[str, str] = (BRIEF, NOTES)) -> None:
    """An id naming a workspace gets that workspace's brief and notes (`owners` charged), and nothing of another id's."""
    brief, notes = owners
    context = checked.expect(brief)
    check(
        brief, mark in context["brief"]["raw"], "the id did not get its own brief", sent=checked.sent, received=context["brief"]
    )
    check(
        notes,
        mark in context["notes"]["summary"],
        "the id did not get its own notes",
        sent=checked.sent,
        received=context["notes"],
    )
    leaked = [other for other in others if other in answer_of(checked)]
    check(brief, not leaked, f"{image_id!r} got another id's files", sent=checked.sent, received=answer_of(checked)[:400])


def check_none(checked: Checked, marks: list[str], image_id: str) -> None:
    """An id naming no workspace of its own is refused or fresh (unknown-image-id), and never holds a planted mark."""
    leaked = [mark for mark in marks if mark in answer_of(checked)]
    check(UNKNOWN, not leaked, f"{image_id!r} read files it does not name", sent=checked.sent, received=answer_of(checked)[:400])
    if checked.ok:
        context = checked.expect(UNKNOWN)
        check_equal(UNKNOWN, context["brief"]["raw"], "", f"{image_id!r}: brief.raw", sent=checked.sent)


@edge("identifiers")
@pytest.mark.parametrize("pair", [per_id(pair, f"{pair[0]!r}~{pair[1]!r}") for pair in NAME_PAIRS])
def test_confusable_ids_never_read_each_other(workspace: Workspace, planted: Planted, pair: tuple[str, str]) -> None:
    """Of two ids code may confuse (a and a/b, a and A, NFC and NFD, x and ../x) each reads its own files or none."""
    root = workspace.root
    marks: dict[str, str] = {}
    for image_id in sorted(pair, key=lambda name: not is_plain(name)):
        place = root / image_id
        if is_plain(image_id):
            if place.exists():
                pytest.skip(f"the file system folds {pair!r} into one folder name")
            marks[image_id] = planted.plant(place)
        elif "\x00" not in image_id and place.resolve() not in {(root / name).resolve() for name in marks}:
            planted.plant(place)  # where the path-like id leads: it must never read this
    every = list(planted.marks.values())
    for image_id in pair:
        checked = workspace.read(BRIEF if image_id in marks else UNKNOWN, image_id=image_id)
        if image_id in marks:
            check_own(checked, marks[image_id], [m for m in every if m != marks[image_id]], image_id)
        else:
            check_none(checked, every, image_id)


@edge("identifiers")
@requirement(UNKNOWN)
@pytest.mark.parametrize("image_id", [per_id(name, repr(name)) for name in HOSTILE_NAMES])
def test_hostile_ids_are_opaque_names(workspace: Workspace, planted: Planted, image_id: str) -> None:
    """A hostile id that is a plain folder name reads that folder only; any other is refused or fresh, reading nothing."""
    other = planted.plant(workspace.folder)
    if not is_plain(image_id):
        check_none(workspace.read(UNKNOWN, image_id=image_id), [other], image_id)
        return
    if (workspace.root / image_id).exists():
        pytest.skip(f"{image_id!r} names a folder that is already there")
    mark = planted.plant(workspace.root / image_id)
    checked = workspace.read(UNKNOWN, image_id=image_id)
    if has_control(image_id):  # an id with a control character may be refused even when its folder exists
        if checked.ok:
            check_own(checked, mark, [other], image_id, (UNKNOWN, UNKNOWN))
        else:
            checked.refused(UNKNOWN)
        return
    check(UNKNOWN, checked.ok, f"{image_id!r} names a workspace but was refused", sent=checked.sent, received=checked.error)
    check_own(checked, mark, [other], image_id)


@edge("identifiers")
@requirement(UNKNOWN, BRIEF, NOTES)
@given(image_id=hostile_names())
def test_drawn_hostile_ids_read_only_their_own_folder(implementation: Implementation, image_id: str) -> None:
    """Drawn hostile ids (case and normal-form variants, control characters, long ids) read their own folder or nothing.

    As in test_hostile_ids_are_opaque_names, an id that is a plain folder name reading another folder's files fails
    brief- and notes-per-image; one with a control character (which may be refused) fails unknown-image-id.
    """
    with fresh_workspace(implementation) as workspace:
        planted = Planted(workspace.root)
        try:
            other = planted.plant(workspace.folder)
            owned = is_plain(image_id) and not (workspace.root / image_id).exists()
            mark = planted.plant(workspace.root / image_id) if owned else ""
            checked = workspace.read(UNKNOWN, image_id=image_id)
        finally:
            planted.remove()
    if not owned:
        check_none(checked, [other], image_id)
    elif checked.ok:
        check_own(checked, mark, [other], image_id, (UNKNOWN, UNKNOWN) if has_control(image_id) else (BRIEF, NOTES))
    else:
        check(UNKNOWN, has_control(image_id), f"{image_id!r} names a workspace but was refused", received=checked.error)


GENRE_PAIRS: Final = [
    ("Portrait", "portrait"),
    ("__proto__", "constructor"),
    ("toString", "hasOwnProperty"),
    ("\u00e9t\u00e9", "e\u0301te\u0301"),
    ("fi", "\ufb01"),
    ("k", "\u212a"),
    ("a", "a.b"),
]


@edge("identifiers")
@requirement(
    R.RESPONSE_SHAPE_GENRES_MAP,
    R.LOADING_ORDER_DECLARED_GENRES_LAYER_ON_TOP,
    R.CONFLICTS_SHARED_LINE_IN_GENRE_FILES,
    R.CONSEQUENCES_LINE_EQUALITY_BASED,
)
@pytest.mark.parametrize("pair", GENRE_PAIRS, ids=[f"{a!r}~{b!r}" for a, b in GENRE_PAIRS])
def test_confusable_genre_names_are_distinct_genres(workspace: Workspace, pair: tuple[str, str]) -> None:
    """Two declared genres whose names differ only in case or normal form each map to their own file's text."""
    first, second = pair
    # _default.md exists: what its absence does to the genres is tolerance/missing-files-empty's.
    workspace.taste("_default", "Natural skin tones.\n")
    workspace.taste(first, f"From {first}.\nShared line.\n")
    if (workspace.tastes_dir / f"{second}.md").exists():
        pytest.skip(f"the file system folds {pair!r} into one file name")
    workspace.taste(second, f"From {second}.\nShared line.\n")
    workspace.write("brief.md", f"Tastes: {first}, {second}\nManta.\n")
    context = workspace.context(R.RESPONSE_SHAPE_GENRES_MAP)
    genres = taste_texts(genre_texts(context["tastes"]["genres"]))
    expected = {first: f"From {first}.\nShared line.", second: f"From {second}.\nShared line."}
    check_equal(R.LOADING_ORDER_DECLARED_GENRES_LAYER_ON_TOP, set(genres), set(expected), "the genres that load")
    check_equal(R.RESPONSE_SHAPE_GENRES_MAP, genres, expected, "tastes.genres, each text trimmed")
    found = conflicts_of(context, R.CONFLICTS_SHARED_LINE_IN_GENRE_FILES)
    # The names differ in case or normal form, and so do the lines naming them: such lines are not equal.
    lines = {name: f"From {name}.\nShared line.".split("\n") for name in pair}
    equal = all(point in lines.get(genre, [point]) for point, genres in found.items() for genre in genres)
    message = "a conflict's point is not a line of every genre it names"
    check(R.CONSEQUENCES_LINE_EQUALITY_BASED, equal, message, received=context["tastes"]["conflicts"])
    check_equal(R.CONFLICTS_SHARED_LINE_IN_GENRE_FILES, found, {"Shared line.": frozenset(pair)}, "the conflicts")


NON_STRINGS: Final[list[Any]] = [v for v in WRONG_TYPES if not isinstance(v, str)] + [2**53 + 1, 2**64]


def folder_names(value: Any) -> set[str]:
    """The folder names code may turn a non-string id into: str() and JSON text."""
    return {name for name in (str(value), json.dumps(value)) if is_plain(name)}


@edge("wrong-types")
@requirement(TOOL)
@pytest.mark.parametrize("image_id", NON_STRINGS, ids=[f"{type(v).__name__}-{json.dumps(v)}" for v in NON_STRINGS])
def test_a_non_string_id_never_reads_the_folder_its_text_names(workspace: Workspace, planted: Planted, image_id: Any) -> None:
    """null, numbers, booleans, lists and objects are refused even when a folder is named like their str() or JSON."""
    marks = [planted.plant(workspace.root / name) for name in folder_names(image_id) if not (workspace.root / name).exists()]
    checked = workspace.client.read_context({"image_id": image_id}, serves=TOOL)
    leaked = [mark for mark in marks if mark in answer_of(checked)]
    check(
        TOOL, not leaked, "a non-string id read the folder its text names", sent=checked.sent, received=answer_of(checked)[:300]
    )
    checked.refused(TOOL)
