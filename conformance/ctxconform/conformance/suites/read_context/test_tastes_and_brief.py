"""Tastes and the brief: _default.md always, declared genres on top, conflicts surfaced unresolved, the Tastes: line parsed."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance.exceptions import RequirementFailure
from ctxconform.conformance.suites.read_context.client import Workspace, conflicts_of, fresh_workspace, require

requirement = pytest.mark.requirement
Json = dict[str, Any]

DEFAULT: Final = "# Everything\n\nNatural skin tones.\nKeep the grain subtle.\n"
UNDERWATER: Final = "# Underwater\n\nRestore reds lost at depth.\nNo heavy vignettes.\n"
WILDLIFE: Final = "# Wildlife\n\nThe eye must be sharp.\nNo heavy vignettes.\n"
STREET: Final = "# Street\n\nHigh contrast black and white.\n"
INTENT_LINES: Final = ("# Manta at Socorro", "", "Moody blue water.", "  an indented line  ", "", "Keep it dark.")


def brief_with(*declarations: str, before: int = 2) -> str:
    """A brief whose declaration lines sit among INTENT_LINES (after `before` of them)."""
    return "\n".join([*INTENT_LINES[:before], *declarations, *INTENT_LINES[before:]]) + "\n"


INTENT: Final = "\n".join(INTENT_LINES).strip()

# --- tastes ------------------------------------------------------------------------------------------


@requirement("read-context/loading-order/default-taste-always-loads", "read-context/loading-order/declared-genres-layer-on-top")
def test_default_taste_loads_when_the_brief_declares_nothing(workspace: Workspace) -> None:
    """With no Tastes: line tastes.default is _default.md as written and tastes.genres is {}."""
    workspace.taste("_default", DEFAULT)
    workspace.taste("underwater", UNDERWATER)
    workspace.write("brief.md", "Moody blue water.\n")
    tastes = workspace.read().context()["tastes"]
    require(tastes["default"] == DEFAULT, "read-context/loading-order/default-taste-always-loads", repr(tastes["default"]))
    require(tastes["genres"] == {}, "read-context/loading-order/declared-genres-layer-on-top", f"genres {tastes['genres']}")


@requirement("read-context/loading-order/default-taste-always-loads")
def test_default_taste_loads_without_a_brief(workspace: Workspace) -> None:
    """With no brief.md at all tastes.default is still _default.md."""
    workspace.taste("_default", DEFAULT)
    assert workspace.read().context()["tastes"]["default"] == DEFAULT


@requirement("read-context/loading-order/default-taste-always-loads", "read-context/loading-order/declared-genres-layer-on-top")
@pytest.mark.parametrize("declared", ["underwater", "underwater, wildlife", "underwater, ghost", "ghost"])
def test_default_taste_stays_under_declared_genres(workspace: Workspace, declared: str) -> None:
    """Declaring one, several or missing genres never replaces or changes tastes.default."""
    workspace.taste("_default", DEFAULT)
    workspace.taste("underwater", UNDERWATER)
    workspace.taste("wildlife", WILDLIFE)
    workspace.write("brief.md", f"Tastes: {declared}\n")
    tastes = workspace.read().context()["tastes"]
    require(tastes["default"] == DEFAULT, "read-context/loading-order/default-taste-always-loads", repr(tastes["default"]))
    files = {"underwater": UNDERWATER, "wildlife": WILDLIFE}
    loaded = {name: text for name, text in tastes["genres"].items() if text}
    expected = {name: files[name] for name in declared.split(", ") if name in files}
    require(loaded == expected, "read-context/loading-order/declared-genres-layer-on-top", f"genres {sorted(tastes['genres'])}")


@requirement(
    "read-context/loading-order/declared-genres-layer-on-top",
    "read-context/response-shape/genres-map",
    "read-context/response-shape/structured-top-prose-body",
)
def test_only_declared_genres_load_with_their_text_unchanged(workspace: Workspace) -> None:
    """Of three genre files only the two declared load, keyed by genre name, each text exactly as written."""
    markdown = "## Ünderwater — *tones*\n\n- Restore reds 🐙\n  - never > +40 saturation\n\n| a | b |\n|---|---|\n"
    workspace.taste("underwater", markdown)
    workspace.taste("wildlife", WILDLIFE)
    workspace.taste("street", STREET)
    workspace.write("brief.md", "Tastes: underwater, street\n")
    genres = workspace.read().context()["tastes"]["genres"]
    # Which genres loaded, whatever their keys look like: keys that are file names break genres-map below.
    require(
        {name.removesuffix(".md") for name in genres} == {"underwater", "street"},
        "read-context/loading-order/declared-genres-layer-on-top",
        f"genres {sorted(genres)}",
    )
    require(
        genres == {"underwater": markdown, "street": STREET},
        "read-context/response-shape/genres-map",
        f"genres {genres}",
    )


@requirement("read-context/response-shape/tastes-object")
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
    tastes = workspace.read().context("read-context/response-shape/tastes-object")["tastes"]
    require(
        isinstance(tastes["default"], str) and isinstance(tastes["genres"], dict) and tastes["conflicts"] == [],
        "read-context/response-shape/tastes-object",
        f"tastes {tastes}",
    )


@requirement("read-context/implementation-notes/global-tastes-folder")
def test_taste_files_in_the_workspace_are_not_read(workspace: Workspace) -> None:
    """_default.md and genre files put in the image's workspace (or a tastes/ folder in it) are never loaded."""
    workspace.write("_default.md", "workspace default\n")
    workspace.write("underwater.md", "workspace underwater\n")
    (workspace.folder / "tastes").mkdir()
    workspace.write("tastes/_default.md", "workspace tastes default\n")
    workspace.write("tastes/underwater.md", "workspace tastes underwater\n")
    workspace.write("brief.md", "Tastes: underwater\n")
    tastes = workspace.read().context()["tastes"]
    assert tastes["default"] == ""
    assert not any(tastes["genres"].values()), f"genres {tastes['genres']}"


@requirement("read-context/implementation-notes/global-tastes-folder", "read-context/loading-order/brief-per-image")
def test_two_images_share_the_global_tastes_but_keep_their_briefs(implementation: Implementation, workspace: Workspace) -> None:
    """Two images get the same tastes.default and the same genre file, each with its own brief."""
    with fresh_workspace(implementation) as other:
        # `other` reset the tastes folder when it was made: write the tastes after both exist.
        workspace.taste("_default", DEFAULT)
        workspace.taste("underwater", UNDERWATER)
        workspace.taste("wildlife", WILDLIFE)
        workspace.write("brief.md", "Tastes: underwater\nFirst image.\n")
        other.write("brief.md", "Tastes: underwater, wildlife\nSecond image.\n")
        first, second = workspace.read().context(), other.read().context()
    require(
        first["tastes"]["default"] == second["tastes"]["default"] == DEFAULT,
        "read-context/implementation-notes/global-tastes-folder",
        "the images got different defaults",
    )
    require(
        first["tastes"]["genres"] == {"underwater": UNDERWATER}
        and second["tastes"]["genres"] == {"underwater": UNDERWATER, "wildlife": WILDLIFE},
        "read-context/implementation-notes/global-tastes-folder",
        "a genre file did not serve both images",
    )
    require(
        first["brief"]["intent"].strip() == "First image." and second["brief"]["intent"].strip() == "Second image.",
        "read-context/loading-order/brief-per-image",
        f"intents {first['brief']['intent']!r} and {second['brief']['intent']!r}",
    )


@requirement("read-context/implementation-notes/global-tastes-folder")
def test_a_declared_genre_never_names_a_file_outside_the_tastes_folder(workspace: Workspace) -> None:
    """Genre names like ../outside or an absolute path read no file outside the tastes folder."""
    marker = "LEAKED-TASTE-9f3a"
    outside = workspace.tastes_dir.parent / "outside.md"
    outside.write_text(f"{marker}\n", encoding="utf-8")
    try:
        workspace.write("brief.md", f"Tastes: ../outside, {outside.with_suffix('')}, ../{workspace.tastes_dir.name}/../outside\n")
        outcome = workspace.read()
        context = outcome.context("read-context/implementation-notes/global-tastes-folder")
    finally:
        outside.unlink()
    require(marker not in str(context["tastes"]), "read-context/implementation-notes/global-tastes-folder", "read outside.md")


@requirement("read-context/tolerance/missing-genre-file", "read-context/response-shape/brief-tastes-list")
@pytest.mark.parametrize("how", ["missing", "empty"])
def test_a_declared_genre_without_text_follows_a_reading(workspace: Workspace, how: str) -> None:
    """A declared genre whose file is missing or empty is left out of genres or maps to '', still listed and in no conflict."""
    workspace.taste("underwater", UNDERWATER)
    workspace.taste("wildlife", WILDLIFE)
    if how == "empty":
        workspace.taste("ghost", "")
    workspace.write("brief.md", "Tastes: underwater, ghost, wildlife\n")
    context = workspace.read().context("read-context/tolerance/missing-genre-file")
    genres = context["tastes"]["genres"]
    require(
        context["brief"]["tastes"] == ["underwater", "ghost", "wildlife"],
        "read-context/response-shape/brief-tastes-list",
        repr(context["brief"]["tastes"]),
    )
    require(genres.get("ghost", "") == "", "read-context/tolerance/missing-genre-file", f"ghost is {genres.get('ghost')!r}")
    require(
        {k: v for k, v in genres.items() if k != "ghost"} == {"underwater": UNDERWATER, "wildlife": WILDLIFE},
        "read-context/tolerance/missing-genre-file",
        f"genres {sorted(genres)}",
    )
    require(
        conflicts_of(context) == {"No heavy vignettes.": frozenset({"underwater", "wildlife"})},
        "read-context/tolerance/missing-genre-file",
        f"conflicts {context['tastes']['conflicts']}",
    )


# --- conflicts ---------------------------------------------------------------------------------------


def genre_context(workspace: Workspace, files: Mapping[str, str], declared: list[str], default: str = "") -> Json:
    """Write the genre files and a brief declaring `declared`, and return the context."""
    if default:
        workspace.taste("_default", default)
    for genre, text in files.items():
        workspace.taste(genre, text)
    workspace.write("brief.md", f"Tastes: {', '.join(declared)}\n")
    return workspace.read().context()


@requirement(
    "read-context/loading-order/conflicts-surfaced",
    "read-context/conflicts/shared-line-in-genre-files",
    "read-context/response-shape/conflict-entry",
)
def test_a_line_shared_by_two_declared_genres_is_one_conflict(workspace: Workspace) -> None:
    """The line both genre files hold gives one {point, files} entry naming both genres."""
    context = genre_context(workspace, {"underwater": UNDERWATER, "wildlife": WILDLIFE}, ["underwater", "wildlife"])
    found = conflicts_of(context)
    require(
        found == {"No heavy vignettes.": frozenset({"underwater", "wildlife"})},
        "read-context/loading-order/conflicts-surfaced",
        f"conflicts {context['tastes']['conflicts']}",
    )
    files = context["tastes"]["conflicts"][0]["files"]
    require(len(files) == 2, "read-context/response-shape/conflict-entry", f"files {files}")


@requirement("read-context/conflicts/shared-line-in-genre-files", "read-context/response-shape/conflict-entry")
def test_a_line_in_three_genres_lists_all_three_once(workspace: Workspace) -> None:
    """A line in three genre files gives one entry whose files are the three genres, each once."""
    files = {"a": "warm tones\nsoft light\n", "b": "warm tones\nhard light\n", "c": "cool water\nwarm tones\n"}
    context = genre_context(workspace, files, ["a", "b", "c"])
    found = conflicts_of(context)
    require(
        found == {"warm tones": frozenset("abc")},
        "read-context/conflicts/shared-line-in-genre-files",
        f"conflicts {context['tastes']['conflicts']}",
    )
    listed = context["tastes"]["conflicts"][0]["files"]
    require(len(listed) == 3, "read-context/response-shape/conflict-entry", f"files {listed}")


@requirement("read-context/loading-order/conflicts-surfaced", "read-context/consequences/line-equality-based")
def test_genres_without_a_shared_line_have_no_conflicts(workspace: Workspace) -> None:
    """Genre files sharing no line, even contradictory or differently cased ones, give conflicts []."""
    files = {"a": "warm tones\nLift shadows\n", "b": "cool palette\nlift shadows\nWarm tones\nwarm tones.\n"}
    context = genre_context(workspace, files, ["a", "b"])
    require(
        context["tastes"]["conflicts"] == [],
        "read-context/consequences/line-equality-based",
        f"conflicts {context['tastes']['conflicts']}",
    )


@requirement("read-context/conflicts/shared-line-in-genre-files")
def test_a_line_repeated_inside_one_genre_is_no_conflict(workspace: Workspace) -> None:
    """A line twice in one genre file is no conflict; twice in one and once in another lists each genre once."""
    files = {"a": "warm tones\nwarm tones\nsoft light\nsoft light\n", "b": "soft light\ncool water\n"}
    context = genre_context(workspace, files, ["a", "b"])
    require(
        conflicts_of(context) == {"soft light": frozenset("ab")},
        "read-context/conflicts/shared-line-in-genre-files",
        f"conflicts {context['tastes']['conflicts']}",
    )
    require(
        len(context["tastes"]["conflicts"][0]["files"]) == 2,
        "read-context/conflicts/shared-line-in-genre-files",
        f"files {context['tastes']['conflicts'][0]['files']}",
    )


@requirement("read-context/conflicts/only-genre-files")
def test_a_line_shared_with_default_is_no_conflict(workspace: Workspace) -> None:
    """A line in _default.md and one genre file is not a conflict; _default.md is never listed in files."""
    context = genre_context(workspace, {"underwater": UNDERWATER}, ["underwater"], default="No heavy vignettes.\n")
    assert context["tastes"]["conflicts"] == []
    context = genre_context(
        workspace, {"underwater": UNDERWATER, "wildlife": WILDLIFE}, ["underwater", "wildlife"], default="No heavy vignettes.\n"
    )
    assert conflicts_of(context) == {"No heavy vignettes.": frozenset({"underwater", "wildlife"})}


@requirement("read-context/conflicts/only-genre-files")
def test_a_line_shared_with_an_undeclared_genre_is_no_conflict(workspace: Workspace) -> None:
    """A line in a declared genre file and an undeclared one is not a conflict."""
    context = genre_context(workspace, {"underwater": UNDERWATER, "wildlife": WILDLIFE}, ["underwater"])
    assert context["tastes"]["conflicts"] == []


@requirement("read-context/conflicts/empty-lines-never-conflict")
def test_blank_and_whitespace_lines_never_conflict(workspace: Workspace) -> None:
    """Empty, space-only and tab-only lines shared by genre files give no entry."""
    files = {"a": "\n\nwarm\n   \n\t\n \t \n", "b": "\n   \ncool\n\t\n \t \n\n"}
    for genre, text in files.items():
        workspace.taste(genre, text)
    workspace.write("brief.md", "Tastes: a, b\n")
    outcome = workspace.read()
    # Checked on the raw result, before the schema, so a blank point fails this requirement.
    tastes = outcome.reply.result.get("tastes") if outcome.ok and isinstance(outcome.reply.result, dict) else None
    if isinstance(tastes, dict):
        require(
            not tastes.get("conflicts"),
            "read-context/conflicts/empty-lines-never-conflict",
            f"conflicts {tastes.get('conflicts')}",
        )
    assert outcome.context()["tastes"]["conflicts"] == []


@requirement("read-context/conflicts/comment-lines", "read-context/conflicts/shared-line-in-genre-files")
def test_comment_lines_follow_a_reading(workspace: Workspace) -> None:
    """Shared headings and HTML comment lines conflict as one of the readings says; a shared text line always does."""
    heading, html, text = "# Palette", "<!-- keep this file short -->", "warm tones"
    files = {"a": f"{heading}\n{html}\n{text}\n", "b": f"{text}\n{html}\n{heading}\n"}
    context = genre_context(workspace, files, ["a", "b"])
    points = set(conflicts_of(context))
    readings = [{text, html}, {text, heading}, {text}]
    require(text in points, "read-context/conflicts/shared-line-in-genre-files", f"points {points}")
    require(points in readings, "read-context/conflicts/comment-lines", f"points {points}")


@requirement("read-context/conflicts/surrounding-whitespace", "read-context/consequences/line-equality-based")
def test_surrounding_whitespace_follows_a_reading(workspace: Workspace) -> None:
    """'  warm tones' and 'warm tones  ' conflict as 'warm tones' or not at all; 'Warm tones' never joins them."""
    files = {"a": "  warm tones\n", "b": "warm tones  \n", "c": "Warm tones\n"}
    context = genre_context(workspace, files, ["a", "b", "c"])
    found = conflicts_of(context)
    require(
        found in ({"warm tones": frozenset("ab")}, {}),
        "read-context/conflicts/surrounding-whitespace",
        f"conflicts {context['tastes']['conflicts']}",
    )


@requirement("read-context/loading-order/no-auto-resolve", "read-context/conflicts/no-suggested-resolution")
def test_conflicting_genres_are_all_kept_whole(workspace: Workspace) -> None:
    """Both conflicting genres stay in genres with their full text; the shared line is removed from neither."""
    context = genre_context(workspace, {"underwater": UNDERWATER, "wildlife": WILDLIFE}, ["wildlife", "underwater"])
    require(
        context["tastes"]["genres"] == {"underwater": UNDERWATER, "wildlife": WILDLIFE},
        "read-context/loading-order/no-auto-resolve",
        f"genres {context['tastes']['genres']}",
    )


@requirement("read-context/conflicts/no-suggested-resolution", "read-context/response-shape/conflict-entry")
def test_a_conflict_entry_holds_only_point_and_files(workspace: Workspace) -> None:
    """A conflict carries exactly point and files: no winner, resolution or merged text."""
    for genre, text in {"underwater": UNDERWATER, "wildlife": WILDLIFE}.items():
        workspace.taste(genre, text)
    workspace.write("brief.md", "Tastes: underwater, wildlife\n")
    outcome = workspace.read()
    result = outcome.reply.result if outcome.ok else None
    # Checked on the raw result, before the schema, so an extra field fails this requirement.
    if isinstance(result, dict) and isinstance(result.get("tastes"), dict):
        for entry in result["tastes"].get("conflicts") or []:
            require(
                isinstance(entry, dict) and set(entry) == {"point", "files"},
                "read-context/conflicts/no-suggested-resolution",
                f"conflict entry {entry}",
            )
        require(
            set(result["tastes"]) == {"default", "genres", "conflicts"},
            "read-context/conflicts/no-suggested-resolution",
            f"tastes keys {sorted(result['tastes'])}",
        )
    assert len(outcome.context()["tastes"]["conflicts"]) == 1


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
    "read-context/conflicts/shared-line-in-genre-files",
    "read-context/conflicts/empty-lines-never-conflict",
    "read-context/conflicts/comment-lines",
    "read-context/conflicts/only-genre-files",
    "read-context/conflicts/surrounding-whitespace",
    "read-context/loading-order/declared-genres-layer-on-top",
    "read-context/loading-order/no-auto-resolve",
    "read-context/consequences/line-equality-based",
)
@given(folder=taste_folders())
def test_conflicts_equal_the_model_for_generated_genre_files(
    implementation: Implementation, folder: tuple[dict[str, str], list[str], str]
) -> None:
    """For generated genre files, conflicts are the model's: non-blank non-comment lines in two or more declared genre files."""
    files, declared, default = folder
    with fresh_workspace(implementation) as workspace:
        context = genre_context(workspace, files, declared, default)
    loaded = {genre: files[genre] for genre in declared if files.get(genre)}
    genres = context["tastes"]["genres"]
    require(
        {k: v for k, v in genres.items() if v} == loaded
        and all(g in declared and not genres[g] for g in set(genres) - set(loaded)),
        "read-context/loading-order/declared-genres-layer-on-top",
        f"genres {sorted(genres)}; declared with text {sorted(loaded)}",
    )
    models = [model_conflicts(loaded, comment, key) for comment in COMMENT_READINGS for key in WHITESPACE_READINGS]
    found = conflicts_of(context)
    if found not in models:
        raise RequirementFailure(
            "read-context/conflicts/shared-line-in-genre-files",
            f"conflicts {context['tastes']['conflicts']} follow no reading; e.g. {models[2]}",
        )


# --- the brief -----------------------------------------------------------------------------------


@requirement("read-context/response-shape/brief-raw", "read-context/response-shape/structured-top-prose-body")
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
    assert workspace.read().context()["brief"]["raw"] == raw


@requirement(
    "read-context/loading-order/brief-tastes-declaration",
    "read-context/response-shape/brief-tastes-list",
    "read-context/response-shape/brief-intent",
)
def test_plain_tastes_line_declares_genres_and_leaves_intent(workspace: Workspace) -> None:
    """'Tastes:  underwater ,wildlife ' declares ['underwater', 'wildlife']; intent is every other line, in order."""
    workspace.write("brief.md", brief_with("Tastes:  underwater ,wildlife "))
    brief = workspace.read().context()["brief"]
    require(
        brief["tastes"] == ["underwater", "wildlife"],
        "read-context/loading-order/brief-tastes-declaration",
        repr(brief["tastes"]),
    )
    require(brief["intent"].strip() == INTENT, "read-context/response-shape/brief-intent", repr(brief["intent"]))


@requirement("read-context/loading-order/brief-tastes-declaration", "read-context/response-shape/brief-intent")
@pytest.mark.parametrize("position", [0, 3, len(INTENT_LINES)])
def test_tastes_line_is_found_anywhere_in_the_brief(workspace: Workspace, position: int) -> None:
    """A Tastes: line first, in the middle or last declares its genres and is left out of intent."""
    workspace.write("brief.md", brief_with("Tastes: street", before=position))
    brief = workspace.read().context()["brief"]
    require(brief["tastes"] == ["street"], "read-context/loading-order/brief-tastes-declaration", repr(brief["tastes"]))
    require(brief["intent"].strip() == INTENT, "read-context/response-shape/brief-intent", repr(brief["intent"]))


@requirement(
    "read-context/response-shape/brief-tastes-list",
    "read-context/response-shape/brief-intent",
    "read-context/loading-order/brief-tastes-declaration",
)
def test_brief_without_declaration_declares_nothing(workspace: Workspace) -> None:
    """A brief with no Tastes: line (one merely mentioning tastes included) gives tastes [] and intent the whole text."""
    raw = "Moody blue water.\nMy tastes: dark.\nThe Tastes: line comes later.\n"
    workspace.write("brief.md", raw)
    brief = workspace.read().context()["brief"]
    require(brief["tastes"] == [], "read-context/response-shape/brief-tastes-list", repr(brief["tastes"]))
    require(brief["intent"].strip() == raw.strip(), "read-context/response-shape/brief-intent", repr(brief["intent"]))


@requirement("read-context/response-shape/brief-tastes-list")
def test_declared_genres_are_listed_whether_or_not_a_file_exists(workspace: Workspace) -> None:
    """brief.tastes lists every declared name in order, those with no taste file included."""
    workspace.taste("street", STREET)
    workspace.write("brief.md", "Tastes: nowhere, street, also-missing\n")
    assert workspace.read().context()["brief"]["tastes"] == ["nowhere", "street", "also-missing"]


# (declaration line, names under the origin's syntax, names under the plain-only reading; None: not a declaration)
FORMS: Final = [
    ("tastes: underwater, wildlife", ["underwater", "wildlife"], None),
    ("TASTES: underwater", ["underwater"], None),
    ("Tastes: [underwater, wildlife]", ["underwater", "wildlife"], ["[underwater", "wildlife]"]),
    ("Tastes: 'underwater', \"wildlife\"", ["underwater", "wildlife"], ["'underwater'", '"wildlife"']),
    ('Tastes: ["underwater", "wildlife"]', ["underwater", "wildlife"], ['["underwater"', '"wildlife"]']),
]


@requirement("read-context/loading-order/tastes-declaration-forms", "read-context/response-shape/brief-intent")
@pytest.mark.parametrize(("line", "origin", "plain"), FORMS, ids=["lower", "upper", "brackets", "quotes", "json-list"])
def test_declaration_forms_follow_a_reading(workspace: Workspace, line: str, origin: list[str], plain: list[str] | None) -> None:
    """Other letter cases, brackets and quotes declare as the origin does, or only the plain form declares."""
    workspace.taste("underwater", UNDERWATER)
    workspace.taste("wildlife", WILDLIFE)
    workspace.write("brief.md", brief_with(line))
    context = workspace.read().context()
    brief, genres = context["brief"], context["tastes"]["genres"]
    with_line = "\n".join([*INTENT_LINES[:2], line, *INTENT_LINES[2:]]).strip()
    readings = [(origin, INTENT), ([] if plain is None else plain, with_line if plain is None else INTENT)]
    require(
        (brief["tastes"], brief["intent"].strip()) in readings,
        "read-context/loading-order/tastes-declaration-forms",
        f"tastes {brief['tastes']}, intent {brief['intent']!r}",
    )
    texts = {"underwater": UNDERWATER, "wildlife": WILDLIFE}
    expected = {name: texts[name] for name in brief["tastes"] if name in texts}
    require(
        {k: v for k, v in genres.items() if v} == expected,
        "read-context/loading-order/tastes-declaration-forms",
        f"genres {sorted(genres)} for declared {brief['tastes']}",
    )


@requirement("read-context/loading-order/multiple-tastes-lines", "read-context/response-shape/brief-intent")
def test_multiple_tastes_lines_follow_a_reading(workspace: Workspace) -> None:
    """Two Tastes: lines give the last list, both accumulated (each name once) or the first; neither line is in intent."""
    for genre, text in {"underwater": UNDERWATER, "wildlife": WILDLIFE, "street": STREET}.items():
        workspace.taste(genre, text)
    workspace.write("brief.md", brief_with("Tastes: underwater, wildlife", before=1) + "Tastes: street, underwater\n")
    context = workspace.read().context()
    brief, genres = context["brief"], context["tastes"]["genres"]
    readings = (["street", "underwater"], ["underwater", "wildlife", "street"], ["underwater", "wildlife"])
    require(brief["tastes"] in readings, "read-context/loading-order/multiple-tastes-lines", repr(brief["tastes"]))
    require(brief["intent"].strip() == INTENT, "read-context/loading-order/multiple-tastes-lines", repr(brief["intent"]))
    require(
        set(genres) == set(brief["tastes"]),
        "read-context/loading-order/multiple-tastes-lines",
        f"genres {sorted(genres)} for declared {brief['tastes']}",
    )


@requirement("read-context/loading-order/brief-per-image")
def test_each_image_reads_its_own_brief(implementation: Implementation, workspace: Workspace) -> None:
    """Two images with different briefs each get their own raw text and declarations."""
    with fresh_workspace(implementation) as other:
        workspace.write("brief.md", "Tastes: underwater\nManta.\n")
        other.write("brief.md", "Tastes: street\nTaxi at night.\n")
        first, second = workspace.read().context()["brief"], other.read().context()["brief"]
    assert (first["raw"], first["tastes"]) == ("Tastes: underwater\nManta.\n", ["underwater"])
    assert (second["raw"], second["tastes"]) == ("Tastes: street\nTaxi at night.\n", ["street"])
