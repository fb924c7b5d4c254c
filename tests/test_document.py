"""A spec's document checked against its registry: sentences, normative ones, stale quotes, and document diffs."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import pytest

from ctxconform.conformance import load_registry, specs
from ctxconform.conformance.exceptions import ConfigurationError
from ctxconform.conformance.judge._document import (
    check_document,
    covers,
    document_file,
    normative_keywords,
    quote_found,
    sentences,
    squeeze,
)
from ctxconform.conformance.judge._registry import Registry, Requirement, read_registry
from ctxconform.conformance.run._runner import collect_requirements
from ctxconform.conformance.specdiff._document import diff_documents, render_document_markdown
from helpers import Cli

SPEC_TEXTS = Path(__file__).resolve().parents[2] / "shared" / "specs"
SPEC = "shared-context"


def texts(document: str) -> list[str]:
    """The sentences of a document, as text."""
    return [s.text for s in sentences(document)]


def registry_file(folder: Path, *quotes: str, informative: tuple[tuple[str, str], ...] = ()) -> Path:
    """A registry of the toy spec `doc` whose requirements quote `quotes`, with informative entries (quote, reason)."""
    lines = ['spec = "doc"', 'version = "1"', 'document = "doc.txt"']
    for n, quote in enumerate(quotes):
        entry = {"id": f"doc/1/r{n}", "level": "MUST", "section": "1", "quote": quote, "kind": "testable"}
        lines += ["", "[[requirement]]", *(f"{key} = {json.dumps(value)}" for key, value in entry.items())]
    for quote, reason in informative:
        lines += ["", "[[informative]]", f"quote = {json.dumps(quote)}", f"reason = {json.dumps(reason)}"]
    path = folder / "registry.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_paragraph_wrapped_across_lines_splits_at_its_sentence_ends() -> None:
    """Wrapped lines join; a sentence ends at a full stop before a capital, and a blank line ends a paragraph."""
    document = "The store is a map. It is\nscoped to a session; writes\nare atomic.\n\nA new paragraph"
    assert texts(document) == ["The store is a map.", "It is scoped to a session; writes are atomic.", "A new paragraph"]
    assert [s.line for s in sentences(document)] == [1, 1, 5]


def test_abbreviations_ellipses_initials_and_lower_case_continuations_do_not_end_a_sentence() -> None:
    """e.g., an ellipsis, an initial and a full stop before a lower-case word leave the sentence whole."""
    document = "Use a prefix, e.g. Inv for investigations. Wait... Then go. See J. Smith. Call v0.5.0 now. Ask (see 3.2). Done"
    assert texts(document) == [
        "Use a prefix, e.g. Inv for investigations.",
        "Wait... Then go.",
        "See J. Smith.",
        "Call v0.5.0 now.",
        "Ask (see 3.2).",
        "Done",
    ]


def test_list_items_headings_rules_and_table_rows_are_sentences_of_their_own() -> None:
    """A bullet or numbered item ends the sentence before it; headings and table rows stand whole; markers go."""
    lines = (
        "## 3. Operations",
        "It survives:",
        "- Individual subagent completion",
        "* Conversation boundaries",
        "1. Traverse the active path",
        "2) Filter out excluded nodes",
        "  \u2022 blob \u2014 a hash",
        "---",
        "| Role | Purpose |",
        "|------|---------|",
        "| **Primary** | Main content. Becomes the message |",
        "Context\u00b6",
        "\u00a7Items",
    )
    document = "\n".join(lines)
    assert texts(document) == [
        "## 3. Operations",
        "It survives:",
        "Individual subagent completion",
        "Conversation boundaries",
        "Traverse the active path",
        "Filter out excluded nodes",
        "blob \u2014 a hash",
        "Role | Purpose",
        "**Primary** | Main content. Becomes the message",
        "Context\u00b6",
        "\u00a7Items",
    ]


def test_a_list_item_continues_on_its_wrapped_lines_and_inline_bullets_split() -> None:
    """A prose item runs on over unmarked lines; ` - ` after a full stop starts the next item on the same line."""
    document = (
        "- Tastes \u2014 per scope.\n_default.md always loads. - Brief \u2014 per image\n<workspace>/brief.md. Parsed for intent."
    )
    assert texts(document) == [
        "Tastes \u2014 per scope.",
        "_default.md always loads.",
        "Brief \u2014 per image <workspace>/brief.md.",
        "Parsed for intent.",
    ]


def test_code_blocks_are_a_sentence_per_line_but_an_item_there_runs_on_over_deeper_lines() -> None:
    """Each line of a fenced block is a sentence, except the deeper-indented continuation lines of a list item."""
    lines = (
        "Before the block",
        "```",
        "KEY_NOT_FOUND        read/delete on nonexistent key",
        "VALUE_TOO_LARGE      write value exceeds 1000 token limit",
        "  3. Use value_size_tokens to decide",
        "     \u2014 large values may not be relevant.",
        "  4. Next item",
        "# not a heading in code",
        "```",
        "After the block",
    )
    document = "\n".join(lines)
    assert texts(document) == [
        "Before the block",
        "KEY_NOT_FOUND read/delete on nonexistent key",
        "VALUE_TOO_LARGE write value exceeds 1000 token limit",
        "Use value_size_tokens to decide \u2014 large values may not be relevant.",
        "Next item",
        "# not a heading in code",
        "After the block",
    ]


def test_normative_keywords_are_rfc_2119_capitals_and_the_lower_case_words() -> None:
    """Capitals count (MUST NOT as one), lower-case must/shall/should/required count; "may", "Must", "shouldn't" do not."""
    assert normative_keywords("It MUST NOT fail and MAY retry; OPTIONAL and RECOMMENDED too.") == (
        "MUST NOT",
        "MAY",
        "OPTIONAL",
        "RECOMMENDED",
    )
    assert normative_keywords("Agents should not write; it must persist when required.") == ("SHOULD NOT", "MUST", "REQUIRED")
    assert normative_keywords("It may help. Must repack manually. It shouldn't, but might. Requirements: mustard.") == ()


def test_a_quote_covers_a_sentence_that_holds_it_or_that_it_holds() -> None:
    """Containment either way covers, white space aside; a quote that only overlaps a sentence does not."""
    assert covers("Returns error", "Returns error if key does not exist.")
    assert covers("A. B sentence here. C.", "B   sentence\nhere.")
    assert not covers("if key does not exist. Removes", "Removes a key entirely.")
    assert not covers("", "Anything.")
    assert squeeze("  a \n\t b ") == "a b"
    assert quote_found("a\n b", squeeze("x a  b y"))


def test_stale_quotes_and_uncovered_normative_sentences_are_found(tmp_path: Path) -> None:
    """A quote missing from the text is stale; a normative sentence no quote (nor informative entry) covers is uncovered."""
    path = registry_file(
        tmp_path,
        "Keys MUST be unique.",
        "gone from the text",
        informative=(("Agents should be polite.", "advice to agents, not to implementations"),),
    )
    registry = read_registry(path)
    document = "# Doc\n\nKeys MUST be unique. Values SHOULD be short.\n\nAgents should be polite. Nothing normative here.\n"
    check = check_document(registry, document)
    assert [r.id for r in check.stale] == ["doc/1/r1"]
    assert [(s.text, s.line, s.keywords) for s in check.uncovered] == [("Values SHOULD be short.", 3, ("SHOULD",))]
    assert len(check.normative) == 3
    assert not check.clean
    assert check.stale_informative == ()


def test_informative_entries_load_need_a_reason_and_can_go_stale(tmp_path: Path) -> None:
    """`[[informative]]` entries are read into `Registry.informative`; one without a reason is refused."""
    registry = read_registry(registry_file(tmp_path, "Keys MUST be unique.", informative=(("Old advice.", "why"),)))
    assert [(i.quote, i.reason) for i in registry.informative] == [("Old advice.", "why")]
    assert [i.quote for i in check_document(registry, "Keys MUST be unique.").stale_informative] == ["Old advice."]
    bad = tmp_path / "bad"
    bad.mkdir()
    with pytest.raises(ConfigurationError, match="needs a quote and a reason"):
        read_registry(registry_file(bad, "Keys MUST be unique.", informative=(("Some advice.", ""),)))


def test_the_document_diff_pairs_changed_sentences_and_names_what_they_held(tmp_path: Path) -> None:
    """Removed, changed and added sentences are found; a removed or changed one names the requirements and tests it held."""
    registry = read_registry(registry_file(tmp_path, "Keys MUST be unique", "Values are text.", "Dropped sentence"))
    old = "Keys MUST be unique. Values are text. Kept as is. Dropped sentence here."
    new = "Keys MUST be unique within a session. Values are text. Kept as is. A new sentence SHOULD appear."
    diff = diff_documents(registry, old, new, tests={"doc/1/r0": ["suite/test_keys.py::test_unique"]})
    assert diff.counts == {"removed": 1, "changed": 1, "added": 1}
    changed = next(c for c in diff.changes if c.change == "changed")
    assert (changed.old, changed.new, changed.normative) == (
        "Keys MUST be unique.",
        "Keys MUST be unique within a session.",
        True,
    )
    assert [(r.id, r.still_found, r.tests) for r in changed.requirements] == [
        ("doc/1/r0", True, ["suite/test_keys.py::test_unique"])
    ]
    removed = next(c for c in diff.changes if c.change == "removed")
    assert [(r.id, r.still_found, r.tests) for r in removed.requirements] == [("doc/1/r2", False, [])]
    assert next(c for c in diff.changes if c.change == "added").normative
    markdown = render_document_markdown(diff)
    assert "`doc/1/r0`" in markdown
    assert "`suite/test_keys.py::test_unique`" in markdown
    assert "## Removed (1)" in markdown
    assert render_document_markdown(diff_documents(registry, old, old)).endswith("No changes.\n")


def shipped_documents() -> list[tuple[str, Path]]:
    """Each spec with its document beside this checkout; skip when the documents are not there."""
    if not SPEC_TEXTS.is_dir():
        pytest.skip(f"{SPEC_TEXTS} is not beside this checkout")
    return [(spec, document_file(load_registry(spec), SPEC_TEXTS)) for spec in specs()]


@pytest.mark.parametrize("spec", list(specs()))
def test_text_check_runs_on_each_shipped_document_and_reports_its_figures(cli: Cli, spec: str) -> None:
    """`requirements --text` on each spec's document runs, finds no stale quote, and reports the figures it counts."""
    document = dict(shipped_documents())[spec]
    if not document.is_file():
        pytest.skip(f"{document} is not beside this checkout")
    done = cli("requirements", "--spec", spec, "--text", str(document), "--json")
    assert done.returncode in (0, 1), done.stderr
    [result] = json.loads(done.stdout)
    check = check_document(load_registry(spec), document.read_text(encoding="utf-8"))
    assert result["stale"] == []
    assert (result["sentences"], result["normative"]) == (len(check.sentences), len(check.normative))
    assert result["covered"] == len(check.normative) - len(result["uncovered"]) >= 0
    assert done.returncode == (1 if result["uncovered"] or result["stale_informative"] else 0)
    text = cli("requirements", "--text", str(document))  # the spec is found from the file's name
    assert re.search(rf"^{spec}: 0 stale, \d+ uncovered of {len(check.normative)} normative sentences", text.stdout, re.MULTILINE)


def test_every_informative_quote_is_verbatim_from_the_document() -> None:
    """Each informative entry quotes its document word for word (white space aside), as requirements do."""
    for spec, document in shipped_documents():
        if document.is_file():
            text = squeeze(document.read_text(encoding="utf-8"))
            assert [i.quote for i in load_registry(spec).informative if not quote_found(i.quote, text)] == [], spec


def edited_copy(tmp_path: Path) -> tuple[Requirement, Path, Registry]:
    """A copy of shared-context's document with one testable requirement's quote edited out, that requirement."""
    registry = load_registry(SPEC)
    original = document_file(registry, SPEC_TEXTS)
    if not original.is_file():
        pytest.skip(f"{original} is not beside this checkout")
    text = original.read_text(encoding="utf-8")
    chosen = next(
        r
        for r in registry.requirements
        if r.kind == "testable"
        and len(r.quote) > 30
        and "\n" not in r.quote
        and text.count(r.quote) == 1
        and len(sentences(r.quote)) == 1
    )
    copy = tmp_path / registry.document
    copy.write_text(text.replace(chosen.quote, chosen.quote.replace(" ", " not ", 1)), encoding="utf-8")
    return chosen, copy, registry


def naming_tests(requirement_id: str) -> list[str]:
    """The suite tests that name a requirement, collected."""
    with tempfile.TemporaryDirectory() as work:
        named, _ = collect_requirements([specs()[SPEC]], Path(work))
    return [test for test, ids in named.items() if requirement_id in ids]


def test_a_quote_edited_out_of_the_document_is_stale_with_the_tests_that_name_it(cli: Cli, tmp_path: Path) -> None:
    """The edited requirement is listed stale with every suite test naming it, and the command exits 1."""
    chosen, copy, _ = edited_copy(tmp_path)
    done = cli("requirements", "--spec", SPEC, "--text", str(copy), "--json")
    assert done.returncode == 1, done.stderr
    [result] = json.loads(done.stdout)
    assert [entry["id"] for entry in result["stale"]] == [chosen.id]
    expected = naming_tests(chosen.id)
    assert result["stale"][0]["tests"] == expected != []
    text = cli("requirements", "--spec", SPEC, "--text", str(copy))
    assert f"    {chosen.id} ({chosen.level}" in text.stdout
    assert expected[0] in text.stdout


def test_spec_diff_document_mode_names_the_requirement_and_tests_an_edit_touches(cli: Cli, tmp_path: Path) -> None:
    """`spec-diff --document OLD NEW` shows the edited sentence as changed, with its requirement and that one's tests."""
    chosen, copy, registry = edited_copy(tmp_path)
    original = str(document_file(registry, SPEC_TEXTS))
    done = cli("spec-diff", "--document", original, str(copy), "--spec", SPEC, "--format", "json")
    assert done.returncode == 0, done.stderr
    diff = json.loads(done.stdout)
    assert diff["counts"] == {"removed": 0, "changed": 1, "added": 0}
    [change] = diff["changes"]
    touched = {r["id"]: r for r in change["requirements"]}
    assert touched[chosen.id]["still_found"] is False
    assert touched[chosen.id]["tests"] == naming_tests(chosen.id)
    markdown = cli("spec-diff", "--document", original, str(copy))  # the spec is found from the file names
    assert f"`{chosen.id}`" in markdown.stdout
    assert "## Changed (1)" in markdown.stdout
    assert "1 requirements touched" in markdown.stderr or "requirements touched" in markdown.stderr


def test_spec_diff_document_mode_refuses_what_does_not_go_with_it(cli: Cli, tmp_path: Path) -> None:
    """--fail-on with --document, --spec without it, and a document of no known spec are usage errors."""
    document = tmp_path / "unknown.txt"
    document.write_text("Nothing.\n", encoding="utf-8")
    for args in (
        ("spec-diff", "--document", str(document), str(document), "--spec", SPEC, "--fail-on", "breaking"),
        ("spec-diff", ".", ".", "--spec", SPEC),
        ("spec-diff", "--document", str(document), str(document)),
        ("requirements", "--text", str(document)),
    ):
        done = cli(*args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert done.stderr.startswith("ctxconform: error:"), done.stderr
