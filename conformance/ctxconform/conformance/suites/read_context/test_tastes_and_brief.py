"""Tastes and the brief: _default.md always, declared genres on top, conflicts surfaced unresolved, the Tastes: line parsed."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance.suites.read_context import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.read_context.client import (
    Workspace,
    check_repeats,
    check_taste_whitespace,
    conflicts_of,
    fresh_workspace,
    genre_texts,
    raw_of,
    taste_text,
    taste_texts,
)
from ctxconform.conformance.testing import Implementation, check, check_equal, check_in, requirement

Json = dict[str, Any]

DEFAULT: Final = "# Everything\n\nNatural skin tones.\nKeep the grain subtle.\n"
UNDERWATER: Final = "# Underwater\n\nRestore reds lost at depth.\nNo heavy vignettes.\n"
WILDLIFE: Final = "# Wildlife\n\nThe eye must be sharp.\nNo heavy vignettes.\n"
STREET: Final = "# Street\n\nHigh contrast black and white.\n"
WILDLIFE_ALONE: Final = "# Wildlife\n\nThe eye must be sharp.\n"
INTENT_LINES: Final = ("# Manta at Socorro", "", "Moody blue water.", "  an indented line  ", "", "Keep it dark.")


def text_lines(text: str) -> list[str]:
    """The lines of a text that are not blank: how intent keeps blank lines is brief-intent's alone."""
    return [line for line in text.split("\n") if line.strip()]


def brief_with(*declarations: str, before: int = 2) -> str:
    """A brief whose declaration lines sit among INTENT_LINES (after `before` of them)."""
    return "\n".join([*INTENT_LINES[:before], *declarations, *INTENT_LINES[before:]]) + "\n"


INTENT: Final = "\n".join(INTENT_LINES).strip()
# Taste texts are compared trimmed: their surrounding whitespace is taste-text-whitespace's.
TRIMMED_DEFAULT: Final = DEFAULT.strip()
DEFAULT_LOADS: Final = R.LOADING_ORDER_DEFAULT_TASTE_ALWAYS_LOADS
ON_TOP: Final = R.LOADING_ORDER_DECLARED_GENRES_LAYER_ON_TOP
TASTES_OBJECT: Final = R.RESPONSE_SHAPE_TASTES_OBJECT
GLOBAL: Final = R.IMPLEMENTATION_NOTES_GLOBAL_TASTES_FOLDER
MISSING_GENRE: Final = R.TOLERANCE_MISSING_GENRE_FILE
SURFACED: Final = R.LOADING_ORDER_CONFLICTS_SURFACED
SHARED: Final = R.CONFLICTS_SHARED_LINE_IN_GENRE_FILES
ENTRY: Final = R.RESPONSE_SHAPE_CONFLICT_ENTRY
EQUALITY: Final = R.CONSEQUENCES_LINE_EQUALITY_BASED
DECLARATION: Final = R.LOADING_ORDER_BRIEF_TASTES_DECLARATION
INTENT_ID: Final = R.RESPONSE_SHAPE_BRIEF_INTENT
TASTES_LIST: Final = R.RESPONSE_SHAPE_BRIEF_TASTES_LIST

# --- tastes ------------------------------------------------------------------------------------------


@requirement(DEFAULT_LOADS, ON_TOP)
def test_default_taste_loads_when_the_brief_declares_nothing(workspace: Workspace) -> None:
    """With no Tastes: line tastes.default is _default.md as written and tastes.genres is {}."""
    workspace.taste("_default", DEFAULT)
    workspace.taste("underwater", UNDERWATER)
    workspace.write("brief.md", "Moody blue water.\n")
    tastes = workspace.context(DEFAULT_LOADS)["tastes"]
    check_equal(DEFAULT_LOADS, taste_text(tastes["default"]), TRIMMED_DEFAULT, "tastes.default, trimmed")
    check_equal(ON_TOP, tastes["genres"], {}, "tastes.genres")


@requirement(DEFAULT_LOADS)
def test_default_taste_loads_without_a_brief(workspace: Workspace) -> None:
    """With no brief.md at all tastes.default is still _default.md."""
    workspace.taste("_default", DEFAULT)
    workspace.write("notes.md", "Session 1.\n")  # the workspace is not empty: this is not tolerance/fresh-workspace
    default = workspace.context(DEFAULT_LOADS)["tastes"]["default"]
    check_equal(DEFAULT_LOADS, taste_text(default), TRIMMED_DEFAULT, "tastes.default, trimmed")


@requirement(DEFAULT_LOADS, ON_TOP)
@pytest.mark.parametrize("declared", ["underwater", "underwater, wildlife", "underwater, ghost", "ghost"])
def test_default_taste_stays_under_declared_genres(workspace: Workspace, declared: str) -> None:
    """Declaring one, several or missing genres never replaces or changes tastes.default."""
    workspace.taste("_default", DEFAULT)
    workspace.taste("underwater", UNDERWATER)
    workspace.taste("wildlife", WILDLIFE)
    workspace.write("brief.md", f"Tastes: {declared}\n")
    tastes = workspace.context(DEFAULT_LOADS)["tastes"]
    check_equal(DEFAULT_LOADS, taste_text(tastes["default"]), TRIMMED_DEFAULT, "tastes.default, trimmed")
    files = {"underwater": UNDERWATER, "wildlife": WILDLIFE}
    loaded = {name: text for name, text in taste_texts(tastes["genres"]).items() if text}
    expected = taste_texts({name: files[name] for name in declared.split(", ") if name in files})
    check_equal(ON_TOP, loaded, expected, "the genres with text, each trimmed")


@requirement(ON_TOP, R.RESPONSE_SHAPE_GENRES_MAP)
def test_only_declared_genres_load_with_their_text_unchanged(workspace: Workspace) -> None:
    """Of three genre files only the two declared load, keyed by genre name, each text exactly as written."""
    workspace.taste("_default", DEFAULT)
    markdown = "## Ünderwater — *tones*\n\n- Restore reds 🐙\n  - never > +40 saturation\n\n| a | b |\n|---|---|\n"
    workspace.taste("underwater", markdown)
    workspace.taste("wildlife", WILDLIFE)
    workspace.taste("street", STREET)
    workspace.write("brief.md", "Tastes: underwater, street\n")
    genres = workspace.context(ON_TOP)["tastes"]["genres"]
    # Which genres loaded, whatever their keys look like: keys that are file names break genres-map below.
    loaded = sorted({name.removesuffix(".md") for name in genres})
    check_equal(ON_TOP, loaded, ["street", "underwater"], "the genres loaded")
    expected = taste_texts({"underwater": markdown, "street": STREET})
    check_equal(R.RESPONSE_SHAPE_GENRES_MAP, taste_texts(genres), expected, "tastes.genres, each text trimmed")


@requirement(R.RESPONSE_SHAPE_TASTE_TEXT_WHITESPACE, DEFAULT_LOADS, R.RESPONSE_SHAPE_GENRES_MAP)
def test_whitespace_around_taste_texts_follows_a_reading(workspace: Workspace) -> None:
    """Blank lines and spaces around a taste file's text are kept or removed; the text between them never changes."""
    default, genre = "\n\n  # Everything  \n\nNatural skin tones.\n\t\n", "\n # Underwater\nRestore reds.   \n\n\n"
    workspace.taste("_default", default)
    workspace.taste("underwater", genre)
    workspace.write("brief.md", "Tastes: underwater\n")
    tastes = workspace.context(R.RESPONSE_SHAPE_TASTE_TEXT_WHITESPACE)["tastes"]
    check_equal(DEFAULT_LOADS, taste_text(tastes["default"]), default.strip(), "tastes.default, trimmed")
    genres = taste_texts(tastes["genres"])
    check_equal(R.RESPONSE_SHAPE_GENRES_MAP, genres, {"underwater": genre.strip()}, "tastes.genres, each text trimmed")
    check_taste_whitespace(tastes["default"], default, "tastes.default")
    check_taste_whitespace(tastes["genres"]["underwater"], genre, "the underwater genre")


@requirement(R.RESPONSE_SHAPE_TASTES_OBJECT)
@pytest.mark.parametrize(
    ("files", "declared"),
    [({}, ""), ({"_default": DEFAULT}, ""), ({"underwater": UNDERWATER}, "underwater"), ({"street": STREET}, "street, ghost")],
    ids=["nothing", "default-only", "one-genre", "no-conflict"],
)
def test_tastes_has_its_three_keys_whatever_loads(workspace: Workspace, files: dict[str, str], declared: str) -> None:
    """Tastes is exactly {default, genres, conflicts}, with no taste file, no genre or no conflict alike."""
    for genre, text in files.items():
        workspace.taste(genre, text)
    workspace.write("brief.md", f"Tastes: {declared}\n" if declared else "Moody blue water.\n")
    checked = workspace.read(TASTES_OBJECT)
    raw = raw_of(checked, TASTES_OBJECT)
    tastes = raw.get("tastes") if isinstance(raw, dict) else None
    # On the raw reply, before the schema: a key left out or added fails this requirement.
    keys = sorted(tastes) if isinstance(tastes, dict) else tastes
    check_equal(TASTES_OBJECT, keys, ["conflicts", "default", "genres"], "the keys of tastes")
    tastes = checked.expect(TASTES_OBJECT)["tastes"]
    types = [type(tastes[key]).__name__ for key in ("default", "genres", "conflicts")]
    check_equal(TASTES_OBJECT, types, ["str", "dict", "list"], "the types of default, genres and conflicts")
    check_equal(TASTES_OBJECT, tastes["conflicts"], [], "tastes.conflicts")


@requirement(GLOBAL)
def test_taste_files_in_the_workspace_are_not_read(workspace: Workspace) -> None:
    """_default.md and genre files put in the image's workspace (or a tastes/ folder in it) are never loaded."""
    workspace.write("_default.md", "workspace default\n")
    workspace.write("underwater.md", "workspace underwater\n")
    (workspace.folder / "tastes").mkdir()
    workspace.write("tastes/_default.md", "workspace tastes default\n")
    workspace.write("tastes/underwater.md", "workspace tastes underwater\n")
    workspace.write("brief.md", "Tastes: underwater\n")
    tastes = workspace.context(GLOBAL)["tastes"]
    check_equal(GLOBAL, tastes["default"], "", "tastes.default with _default.md only in the workspace")
    check(GLOBAL, not any(tastes["genres"].values()), "a taste file in the workspace was read", received=tastes["genres"])


@requirement(GLOBAL, R.LOADING_ORDER_BRIEF_PER_IMAGE, DEFAULT_LOADS, ON_TOP)
def test_two_images_share_the_global_tastes_but_keep_their_briefs(implementation: Implementation, workspace: Workspace) -> None:
    """Two images get the same tastes.default and the same genre file, each with its own brief."""
    with fresh_workspace(implementation) as other:
        # `other` reset the tastes folder when it was made: write the tastes after both exist.
        workspace.taste("_default", DEFAULT)
        workspace.taste("underwater", UNDERWATER)
        workspace.taste("wildlife", WILDLIFE)
        workspace.write("brief.md", "Tastes: underwater\nFirst image.\n")
        other.write("brief.md", "Tastes: underwater,wildlife\nSecond image.\n")
        first, second = workspace.context(GLOBAL), other.context(GLOBAL)
    defaults = [first["tastes"]["default"], second["tastes"]["default"]]
    check_equal(GLOBAL, defaults[1], defaults[0], "the second image's tastes.default, against the first's")
    trimmed = [taste_text(default) for default in defaults]
    check_equal(DEFAULT_LOADS, trimmed, [TRIMMED_DEFAULT, TRIMMED_DEFAULT], "the two images' tastes.default, trimmed")
    genres = [taste_texts(genre_texts(first["tastes"]["genres"])), taste_texts(genre_texts(second["tastes"]["genres"]))]
    shared = [texts.get("underwater") for texts in genres]
    check_equal(GLOBAL, shared, [taste_text(UNDERWATER)] * 2, "the genre both images declare, trimmed")
    expected = [taste_texts({"underwater": UNDERWATER}), taste_texts({"underwater": UNDERWATER, "wildlife": WILDLIFE})]
    check_equal(ON_TOP, genres, expected, "the two images' tastes.genres, each text trimmed")
    intents = [first["brief"]["intent"].strip(), second["brief"]["intent"].strip()]
    check_equal(R.LOADING_ORDER_BRIEF_PER_IMAGE, intents, ["First image.", "Second image."], "the two images' intents")


@requirement(GLOBAL)
def test_a_declared_genre_never_names_a_file_outside_the_tastes_folder(workspace: Workspace) -> None:
    """Genre names like ../outside or an absolute path read no file outside the tastes folder."""
    marker = "LEAKED-TASTE-9f3a"
    outside = workspace.tastes_dir.parent / "outside.md"
    outside.write_text(f"{marker}\n", encoding="utf-8")
    try:
        workspace.write("brief.md", f"Tastes: ../outside, {outside.with_suffix('')}, ../{workspace.tastes_dir.name}/../outside\n")
        context = workspace.context(GLOBAL)
    finally:
        outside.unlink()
    check(GLOBAL, marker not in str(context["tastes"]), "a genre name read outside.md", received=context["tastes"])


@requirement(MISSING_GENRE, R.RESPONSE_SHAPE_BRIEF_TASTES_LIST, ON_TOP, SURFACED)
@pytest.mark.parametrize("how", ["missing", "empty"])
def test_a_declared_genre_without_text_follows_a_reading(workspace: Workspace, how: str) -> None:
    """A declared genre whose file is missing or empty is left out of genres or maps to '', still listed and in no conflict."""
    workspace.taste("_default", DEFAULT)
    workspace.taste("underwater", UNDERWATER)
    workspace.taste("wildlife", WILDLIFE)
    if how == "empty":
        workspace.taste("ghost", "")
    workspace.write("brief.md", "Tastes: underwater,ghost,wildlife\n")
    context = workspace.context(MISSING_GENRE)
    genres = genre_texts(context["tastes"]["genres"])
    listed = context["brief"]["tastes"]
    check_equal(R.RESPONSE_SHAPE_BRIEF_TASTES_LIST, listed, ["underwater", "ghost", "wildlife"], "brief.tastes")
    check_in(MISSING_GENRE, genres.get("ghost", ""), [""], "the ghost genre (absent or '')")
    others = {k: v for k, v in genres.items() if k != "ghost"}
    check_equal(MISSING_GENRE, sorted(others), ["underwater", "wildlife"], "the other genres loaded")
    found = conflicts_of(context, MISSING_GENRE)
    conflicts = context["tastes"]["conflicts"]
    check(MISSING_GENRE, not any("ghost" in names for names in found.values()), "ghost is in a conflict", received=conflicts)
    expected_others = taste_texts({"underwater": UNDERWATER, "wildlife": WILDLIFE})
    check_equal(ON_TOP, taste_texts(others), expected_others, "the other genres, each text trimmed")
    expected = {"No heavy vignettes.": frozenset({"underwater", "wildlife"})}
    check(SURFACED, found == expected, "the conflicts are not the two loaded genres'", received=conflicts)


# --- conflicts ---------------------------------------------------------------------------------------


def genre_context(
    workspace: Workspace,
    files: Mapping[str, str],
    declared: list[str],
    requirement: str,
    *,
    default: str = "",
    repeats: str | None = None,
) -> Json:
    """Write the genre files and a brief declaring `declared`, and return the context; a refusal fails `requirement`.

    A conflict repeating a genre or a line fails `repeats` when given, before the schema (which forbids it too).
    """
    # _default.md always exists (empty or not): what its absence does is tolerance/missing-files-empty's.
    workspace.taste("_default", default)
    for genre, text in files.items():
        workspace.taste(genre, text)
    # Names joined without spaces: how spaces around names are read is brief-tastes-declaration's alone.
    workspace.write("brief.md", f"Tastes: {','.join(declared)}\n")
    checked = workspace.read(requirement)
    if repeats is None:
        result: Json = checked.expect(requirement)
        return result
    return check_repeats(checked, repeats)


@requirement(SURFACED, SHARED, ENTRY)
def test_a_line_shared_by_two_declared_genres_is_one_conflict(workspace: Workspace) -> None:
    """The line both genre files hold gives one {point, files} entry naming both genres, each once."""
    files = {"underwater": UNDERWATER, "wildlife": WILDLIFE}
    context = genre_context(workspace, files, ["underwater", "wildlife"], SURFACED, repeats=SHARED)
    conflicts = context["tastes"]["conflicts"]
    found = conflicts_of(context, SHARED)
    expected = {"No heavy vignettes.": frozenset({"underwater", "wildlife"})}
    check(SURFACED, found == expected, "the shared line is not one conflict naming both genres", received=conflicts)
    check_equal(ENTRY, [len(entry["files"]) for entry in conflicts], [2], "the number of files of the conflict")


@requirement(SHARED, ENTRY)
def test_a_line_in_three_genres_lists_all_three_once(workspace: Workspace) -> None:
    """A line in three genre files gives one entry whose files are the three genres, each once."""
    files = {"a": "warm tones\nsoft light\n", "b": "warm tones\nhard light\n", "c": "cool water\nwarm tones\n"}
    context = genre_context(workspace, files, ["a", "b", "c"], SHARED, repeats=ENTRY)
    conflicts = context["tastes"]["conflicts"]
    found = conflicts_of(context, ENTRY)
    check(SHARED, found == {"warm tones": frozenset("abc")}, "the line is not one conflict of a, b and c", received=conflicts)
    check_equal(ENTRY, [len(entry["files"]) for entry in conflicts], [3], "the number of files of the conflict")


@requirement(SURFACED, EQUALITY)
def test_genres_without_a_shared_line_have_no_conflicts(workspace: Workspace) -> None:
    """Genre files sharing no line, even contradictory or differently cased ones, give conflicts []."""
    files = {"a": "warm tones\nLift shadows\n", "b": "cool palette\nlift shadows\nWarm tones\nwarm tones.\n"}
    context = genre_context(workspace, files, ["a", "b"], SURFACED)
    conflicts = context["tastes"]["conflicts"]
    check(EQUALITY, not conflicts, "lines that differ conflict", received=conflicts, expected=[])
    check_equal(SURFACED, conflicts, [], "tastes.conflicts")


@requirement(SHARED)
def test_a_line_repeated_inside_one_genre_is_no_conflict(workspace: Workspace) -> None:
    """A line twice in one genre file is no conflict; twice in one and once in another lists each genre once."""
    files = {"a": "warm tones\nwarm tones\nsoft light\nsoft light\n", "b": "soft light\ncool water\n"}
    context = genre_context(workspace, files, ["a", "b"], SHARED, repeats=SHARED)
    conflicts = context["tastes"]["conflicts"]
    check(SHARED, conflicts_of(context, SHARED) == {"soft light": frozenset("ab")}, "not one conflict", received=conflicts)
    check_equal(SHARED, [len(entry["files"]) for entry in conflicts], [2], "the number of files of the conflict")


@requirement(R.CONFLICTS_ONLY_GENRE_FILES, SURFACED)
def test_a_line_shared_with_default_is_no_conflict(workspace: Workspace) -> None:
    """A line in _default.md and one genre file is not a conflict; _default.md is never listed in files."""
    only = R.CONFLICTS_ONLY_GENRE_FILES
    default = "No heavy vignettes.\n"
    context = genre_context(workspace, {"underwater": UNDERWATER}, ["underwater"], only, default=default)
    check_equal(only, context["tastes"]["conflicts"], [], "tastes.conflicts with one genre")
    files = {"underwater": UNDERWATER, "wildlife": WILDLIFE}
    context = genre_context(workspace, files, ["underwater", "wildlife"], only, default=default)
    found = conflicts_of(context, only)
    conflicts = context["tastes"]["conflicts"]
    genres = {"underwater", "wildlife"}
    check(only, all(files <= genres for files in found.values()), "_default.md takes part in a conflict", received=conflicts)
    expected = {"No heavy vignettes.": frozenset(genres)}
    check(SURFACED, found == expected, "the line the two genres share is not one conflict", received=conflicts)


@requirement(R.CONFLICTS_ONLY_GENRE_FILES)
def test_a_line_shared_with_an_undeclared_genre_is_no_conflict(workspace: Workspace) -> None:
    """A line in a declared genre file and an undeclared one is not a conflict."""
    only = R.CONFLICTS_ONLY_GENRE_FILES
    context = genre_context(workspace, {"underwater": UNDERWATER, "wildlife": WILDLIFE}, ["underwater"], only)
    check_equal(only, context["tastes"]["conflicts"], [], "tastes.conflicts")


@requirement(R.CONFLICTS_EMPTY_LINES_NEVER_CONFLICT)
def test_blank_and_whitespace_lines_never_conflict(workspace: Workspace) -> None:
    """Empty, space-only and tab-only lines shared by genre files give no entry."""
    empty = R.CONFLICTS_EMPTY_LINES_NEVER_CONFLICT
    files = {"_default": "", "a": "\n\nwarm\n   \n\t\n \t \n", "b": "\n   \ncool\n\t\n \t \n\n"}
    for genre, text in files.items():
        workspace.taste(genre, text)
    workspace.write("brief.md", "Tastes: a, b\n")
    checked = workspace.read(empty)
    raw = raw_of(checked, empty)
    # Checked on the raw result, before the schema, so a blank point fails this requirement.
    tastes = raw.get("tastes") if isinstance(raw, dict) else None
    conflicts = tastes.get("conflicts") if isinstance(tastes, dict) else None
    check(empty, not conflicts, "blank lines conflict", received=conflicts, expected=[])
    check_equal(empty, checked.expect(empty)["tastes"]["conflicts"], [], "tastes.conflicts")


@requirement(R.CONFLICTS_COMMENT_LINES, SHARED)
def test_comment_lines_follow_a_reading(workspace: Workspace) -> None:
    """Shared headings and HTML comment lines conflict as one of the readings says; a shared text line always does."""
    heading, html, text = "# Palette", "<!-- keep this file short -->", "warm tones"
    files = {"a": f"{heading}\n{html}\n{text}\n", "b": f"{text}\n{html}\n{heading}\n"}
    context = genre_context(workspace, files, ["a", "b"], R.CONFLICTS_COMMENT_LINES, repeats=SHARED)
    points = sorted(conflicts_of(context, SHARED))
    check(SHARED, text in points, "the shared text line is no conflict", received=points, expected=[text])
    readings = [sorted({text, html}), sorted({text, heading}), [text]]
    check_in(R.CONFLICTS_COMMENT_LINES, points, readings, "the conflicting lines")


@requirement(R.CONFLICTS_SURROUNDING_WHITESPACE, EQUALITY)
def test_surrounding_whitespace_follows_a_reading(workspace: Workspace) -> None:
    """'  warm tones' and 'warm tones  ' conflict as 'warm tones' or not at all; 'Warm tones' never joins them."""
    spaces = R.CONFLICTS_SURROUNDING_WHITESPACE
    files = {"a": "  warm tones\n", "b": "warm tones  \n", "c": "Warm tones\n"}
    context = genre_context(workspace, files, ["a", "b", "c"], spaces)
    found = conflicts_of(context, spaces)
    conflicts = context["tastes"]["conflicts"]
    check(EQUALITY, not any("c" in genres for genres in found.values()), "'Warm tones' conflicts", received=conflicts)
    readings: list[dict[str, frozenset[str]]] = [{"warm tones": frozenset("ab")}, {}]
    check(spaces, found in readings, "the conflicts follow no reading", received=conflicts)


@requirement(R.LOADING_ORDER_NO_AUTO_RESOLVE)
def test_conflicting_genres_are_all_kept_whole(workspace: Workspace) -> None:
    """Both conflicting genres stay in genres with their full text; the shared line is removed from neither."""
    keep = R.LOADING_ORDER_NO_AUTO_RESOLVE
    context = genre_context(workspace, {"underwater": UNDERWATER, "wildlife": WILDLIFE}, ["wildlife", "underwater"], keep)
    genres = taste_texts(genre_texts(context["tastes"]["genres"]))
    check_equal(keep, genres, taste_texts({"underwater": UNDERWATER, "wildlife": WILDLIFE}), "tastes.genres, each text trimmed")


@requirement(R.CONFLICTS_NO_SUGGESTED_RESOLUTION, ENTRY, SURFACED)
def test_a_conflict_entry_holds_only_point_and_files(workspace: Workspace) -> None:
    """A conflict carries exactly point and files: no winner, resolution or merged text."""
    plain = R.CONFLICTS_NO_SUGGESTED_RESOLUTION
    for genre, text in {"_default": DEFAULT, "underwater": UNDERWATER, "wildlife": WILDLIFE}.items():
        workspace.taste(genre, text)
    workspace.write("brief.md", "Tastes: underwater,wildlife\n")
    checked = workspace.read(plain)
    raw = raw_of(checked, plain)
    # Checked on the raw result, before the schema, so an extra field fails this requirement.
    tastes = raw.get("tastes") if isinstance(raw, dict) else None
    conflicts = tastes.get("conflicts") if isinstance(tastes, dict) else None
    keys = [sorted(entry) if isinstance(entry, dict) else entry for entry in conflicts or []]
    check(plain, all(k == ["files", "point"] for k in keys), "a conflict holds more than point and files", received=conflicts)
    check_equal(plain, sorted(tastes or {}), ["conflicts", "default", "genres"], "the keys of tastes")
    conflicts = check_repeats(checked, ENTRY)["tastes"]["conflicts"]
    check(ENTRY, len(conflicts) <= 1, "one shared line gives several entries", received=conflicts)
    check_equal(SURFACED, len(conflicts), 1, "the number of conflicts")


# The pool the property draws genre files from: shared text lines, whitespace variants, comments and blanks.
TEXT_LINES: Final = ("warm tones", "cool palette", "lift shadows", "Warm tones", "no vignettes", "keep skin natural")
SPACED_LINES: Final = ("  warm tones", "warm tones  ", "\tcool palette", "lift shadows ")
HEADINGS: Final = ("# Palette", "## Light", "  # indented heading")
HTML_COMMENTS: Final = ("<!-- keep -->", "<!-- todo: revisit -->")
BLANKS: Final = ("", "   ", "\t", " \t ")
POOL: Final = TEXT_LINES + SPACED_LINES + HEADINGS + HTML_COMMENTS + BLANKS
GENRES: Final = ("underwater", "wildlife", "street", "portrait", "macro")

CommentRule = Callable[[str], bool]
COMMENT_READINGS: Final[tuple[CommentRule, ...]] = (
    lambda s: s.startswith("#"),
    lambda s: s.startswith("<!--") and s.endswith("-->"),
    lambda s: s.startswith("#") or (s.startswith("<!--") and s.endswith("-->")),
)
WHITESPACE_READINGS: Final[tuple[Callable[[str], str], ...]] = (str.strip, lambda line: line)


def model_conflicts(texts: Mapping[str, str], is_comment: CommentRule, key: Callable[[str], str]) -> dict[str, frozenset[str]]:
    """The conflicts one combination of readings gives: lines in two or more genre texts, not blank, not comments."""
    holders: dict[str, set[str]] = {}
    for genre, text in texts.items():
        for line in text.split("\n"):
            stripped = line.strip()
            if stripped and not is_comment(stripped):
                holders.setdefault(key(line), set()).add(genre)
    return {point: frozenset(genres) for point, genres in holders.items() if len(genres) >= 2}


@st.composite
def taste_folders(draw: st.DrawFn) -> tuple[dict[str, str], list[str], str]:
    """Genre files drawn from POOL, the genres declared (in order) and a _default.md from the same pool."""
    files = {}
    for genre in draw(st.lists(st.sampled_from(GENRES), unique=True, max_size=len(GENRES))):
        lines, final = draw(st.lists(st.sampled_from(POOL), max_size=8)), draw(st.booleans())
        files[genre] = "\n".join(lines) + ("\n" if lines and final else "")
    declared = draw(st.lists(st.sampled_from(GENRES), unique=True, max_size=len(GENRES)))
    default = "\n".join(draw(st.lists(st.sampled_from(POOL), max_size=6)))
    return files, declared, default


@requirement(
    SHARED,
    R.CONFLICTS_EMPTY_LINES_NEVER_CONFLICT,
    R.CONFLICTS_COMMENT_LINES,
    R.CONFLICTS_ONLY_GENRE_FILES,
    R.CONFLICTS_SURROUNDING_WHITESPACE,
    ON_TOP,
    R.LOADING_ORDER_NO_AUTO_RESOLVE,
    EQUALITY,
)
@given(folder=taste_folders())
def test_conflicts_equal_the_model_for_generated_genre_files(
    implementation: Implementation, folder: tuple[dict[str, str], list[str], str]
) -> None:
    """For generated genre files, conflicts are the model's: non-blank non-comment lines in two or more declared genre files."""
    files, declared, default = folder
    with fresh_workspace(implementation) as workspace:
        context = genre_context(workspace, files, declared, SHARED, default=default, repeats=SHARED)
    loaded = {genre: files[genre] for genre in declared if files.get(genre)}
    check_genres(genre_texts(context["tastes"]["genres"]), loaded, declared)
    found = conflicts_of(context, SHARED)
    check_points(context["tastes"]["conflicts"], found, loaded)
    models = [model_conflicts(loaded, comment, key) for comment in COMMENT_READINGS for key in WHITESPACE_READINGS]
    check(SHARED, found in models, "the conflicts follow no reading", received=context["tastes"]["conflicts"])


def check_genres(genres: Json, loaded: dict[str, str], declared: list[str]) -> None:
    """Every conflicting genre keeps its text whole; exactly the declared genres with text load."""
    kept = {genre: taste_text(genres.get(genre)) for genre in loaded}
    check_equal(R.LOADING_ORDER_NO_AUTO_RESOLVE, kept, taste_texts(loaded), "the declared genres' texts, each trimmed")
    others = {genre: text for genre, text in genres.items() if genre not in loaded}
    check(
        ON_TOP,
        all(genre in declared and not text for genre, text in others.items()),
        "a genre not declared, or without text, loaded",
        received=sorted(genres),
        expected=sorted(loaded),
    )


def check_points(conflicts: list[Json], found: dict[str, frozenset[str]], loaded: dict[str, str]) -> None:
    """Each conflict is an equal, non-blank line of loaded genre files, commented and spaced as one reading says."""
    check(
        R.CONFLICTS_ONLY_GENRE_FILES,
        all(genres <= set(loaded) for genres in found.values()),
        "a conflict names a file that is not a loaded genre file",
        received=conflicts,
        expected={"genres": sorted(loaded)},
    )
    blank = R.CONFLICTS_EMPTY_LINES_NEVER_CONFLICT
    check(blank, all(point.strip() for point in found), "a blank line conflicts", received=conflicts)
    lines = {genre: set(text.split("\n")) | {line.strip() for line in text.split("\n")} for genre, text in loaded.items()}
    equal = all(point in lines.get(genre, set()) for point, genres in found.items() for genre in genres)
    check(EQUALITY, equal, "a conflict's point is not a line of every genre it names", received=conflicts)
    commented = any(all(not rule(point.strip()) for point in found) for rule in COMMENT_READINGS)
    check(R.CONFLICTS_COMMENT_LINES, commented, "comment lines conflict under no reading", received=conflicts)
    stripped = all(point == point.strip() for point in found)
    as_written = all(point in loaded[genre].split("\n") for point, genres in found.items() for genre in genres)
    spaces = R.CONFLICTS_SURROUNDING_WHITESPACE
    check(spaces, stripped or as_written, "points are neither stripped nor lines as written", received=conflicts)


# --- the brief -----------------------------------------------------------------------------------


@requirement(R.RESPONSE_SHAPE_BRIEF_RAW)
@pytest.mark.parametrize(
    "raw",
    [
        brief_with("Tastes: underwater"),
        "Tastes: underwater",
        "  leading and trailing space  \n\n\n",
        "Ünïcode — 水中写真 🐠\n**bold** _it_ [link](http://x)\n",
    ],
    ids=["declaration", "only-declaration", "spaces", "unicode"],
)
def test_brief_raw_is_the_whole_file(workspace: Workspace, raw: str) -> None:
    """brief.raw is brief.md exactly, Tastes: line, blank lines and surrounding whitespace included."""
    workspace.write("brief.md", raw)
    brief = workspace.context(R.RESPONSE_SHAPE_BRIEF_RAW)["brief"]
    check_equal(R.RESPONSE_SHAPE_BRIEF_RAW, brief["raw"], raw, "brief.raw")


@requirement(DECLARATION, INTENT_ID)
def test_plain_tastes_line_declares_genres_and_leaves_intent(workspace: Workspace) -> None:
    """'Tastes:  underwater ,wildlife ' declares ['underwater', 'wildlife']; intent is every other line, in order."""
    workspace.taste("underwater", UNDERWATER)  # genres with files: whether others are listed is brief-tastes-list's
    workspace.taste("wildlife", WILDLIFE)
    workspace.write("brief.md", brief_with("Tastes:  underwater ,wildlife "))
    brief = workspace.context(DECLARATION)["brief"]
    check_equal(DECLARATION, brief["tastes"], ["underwater", "wildlife"], "brief.tastes")
    check_equal(INTENT_ID, brief["intent"].strip(), INTENT, "brief.intent (stripped)")


@requirement(DECLARATION, INTENT_ID)
@pytest.mark.parametrize("position", [0, 3, len(INTENT_LINES)])
def test_tastes_line_is_found_anywhere_in_the_brief(workspace: Workspace, position: int) -> None:
    """A Tastes: line first, in the middle or last declares its genres and is left out of intent."""
    workspace.taste("street", STREET)
    workspace.write("brief.md", brief_with("Tastes: street", before=position))
    brief = workspace.context(DECLARATION)["brief"]
    check_equal(DECLARATION, brief["tastes"], ["street"], "brief.tastes")
    check_equal(INTENT_ID, brief["intent"].strip(), INTENT, "brief.intent (stripped)")


@requirement(TASTES_LIST, INTENT_ID)
def test_brief_without_declaration_declares_nothing(workspace: Workspace) -> None:
    """A brief with no Tastes: line (one merely mentioning tastes included) gives tastes [] and intent the whole text."""
    raw = "Moody blue water.\nMy tastes: dark.\nThe Tastes: line comes later.\n"
    workspace.write("brief.md", raw)
    brief = workspace.context(TASTES_LIST)["brief"]
    check_equal(TASTES_LIST, brief["tastes"], [], "brief.tastes")
    check_equal(INTENT_ID, brief["intent"].strip(), raw.strip(), "brief.intent (stripped)")


@requirement(TASTES_LIST)
def test_declared_genres_are_listed_whether_or_not_a_file_exists(workspace: Workspace) -> None:
    """brief.tastes lists every declared name in order, those with no taste file included."""
    workspace.taste("street", STREET)
    workspace.write("brief.md", "Tastes: nowhere, street, also-missing\n")
    brief = workspace.context(TASTES_LIST)["brief"]
    check_equal(TASTES_LIST, brief["tastes"], ["nowhere", "street", "also-missing"], "brief.tastes")


# (declaration line, names under the origin's syntax, names under the plain-only reading; None: not a declaration)
FORMS: Final = [
    ("tastes: underwater, wildlife", ["underwater", "wildlife"], None),
    ("TASTES: underwater", ["underwater"], None),
    ("Tastes: [underwater, wildlife]", ["underwater", "wildlife"], ["[underwater", "wildlife]"]),
    ("Tastes: 'underwater', \"wildlife\"", ["underwater", "wildlife"], ["'underwater'", '"wildlife"']),
    ('Tastes: ["underwater", "wildlife"]', ["underwater", "wildlife"], ['["underwater"', '"wildlife"]']),
]


@requirement(R.LOADING_ORDER_TASTES_DECLARATION_FORMS)
@pytest.mark.parametrize(("line", "origin", "plain"), FORMS, ids=["lower", "upper", "brackets", "quotes", "json-list"])
def test_declaration_forms_follow_a_reading(workspace: Workspace, line: str, origin: list[str], plain: list[str] | None) -> None:
    """Other letter cases, brackets and quotes declare as the origin does, or only the plain form declares."""
    # Genre texts sharing no line: conflicts are not this requirement's.
    texts = {"underwater": UNDERWATER, "wildlife": WILDLIFE_ALONE}
    for genre, text in {"_default": DEFAULT, **texts}.items():
        workspace.taste(genre, text)
    workspace.write("brief.md", brief_with(line))
    forms = R.LOADING_ORDER_TASTES_DECLARATION_FORMS
    context = workspace.context(forms)
    brief, genres = context["brief"], genre_texts(context["tastes"]["genres"])
    with_line = text_lines("\n".join([*INTENT_LINES[:2], line, *INTENT_LINES[2:]]))
    plain_reading = ([], with_line) if plain is None else (plain, text_lines(INTENT))
    readings = [(origin, text_lines(INTENT)), plain_reading]
    check_in(forms, (brief["tastes"], text_lines(brief["intent"])), readings, "(brief.tastes, brief.intent's lines)")
    # The declared names that have a file load: genres nobody declared are declared-genres-layer-on-top's.
    expected = taste_texts({name: texts[name] for name in brief["tastes"] if name in texts})
    loaded = {name: taste_text(text) for name, text in genres.items() if text and name in brief["tastes"]}
    check_equal(forms, loaded, expected, f"the genres loaded for {brief['tastes']}")


@requirement(R.LOADING_ORDER_MULTIPLE_TASTES_LINES)
def test_multiple_tastes_lines_follow_a_reading(workspace: Workspace) -> None:
    """Two Tastes: lines give the last list, both accumulated (each name once) or the first; neither line is in intent."""
    for genre, text in {"_default": DEFAULT, "underwater": UNDERWATER, "wildlife": WILDLIFE, "street": STREET}.items():
        workspace.taste(genre, text)
    workspace.write("brief.md", brief_with("Tastes: underwater,wildlife", before=1) + "Tastes: street,underwater\n")
    multiple = R.LOADING_ORDER_MULTIPLE_TASTES_LINES
    context = workspace.context(multiple)
    brief, genres = context["brief"], genre_texts(context["tastes"]["genres"])
    readings = (["street", "underwater"], ["underwater", "wildlife", "street"], ["underwater", "wildlife"])
    check_in(multiple, brief["tastes"], readings, "brief.tastes")
    check_equal(multiple, text_lines(brief["intent"]), text_lines(INTENT), "brief.intent's lines")
    check_equal(multiple, sorted(genres), sorted(brief["tastes"]), f"the genres loaded for {brief['tastes']}")


@requirement(R.LOADING_ORDER_BRIEF_PER_IMAGE)
def test_each_image_reads_its_own_brief(implementation: Implementation, workspace: Workspace) -> None:
    """Two images with different briefs each get their own raw text and declarations."""
    with fresh_workspace(implementation) as other:
        workspace.taste("underwater", UNDERWATER)
        workspace.taste("street", STREET)
        workspace.write("brief.md", "Tastes: underwater\nManta.\n")
        other.write("brief.md", "Tastes: street\nTaxi at night.\n")
        first = workspace.context(R.LOADING_ORDER_BRIEF_PER_IMAGE)["brief"]
        second = other.context(R.LOADING_ORDER_BRIEF_PER_IMAGE)["brief"]
    # Whose brief each image got; surrounding whitespace is brief-raw's.
    found = [(first["raw"].strip(), first["tastes"]), (second["raw"].strip(), second["tastes"])]
    expected = [("Tastes: underwater\nManta.", ["underwater"]), ("Tastes: street\nTaxi at night.", ["street"])]
    check_equal(R.LOADING_ORDER_BRIEF_PER_IMAGE, found, expected, "the two images' (brief.raw, brief.tastes)")
