"""The HTML report page, read back with the standard library's HTML parser (no browser)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

from ctxconform.conformance import Report
from ctxconform.conformance.judge._verdicts import BAD, VERDICTS
from ctxconform.conformance.report._html import render_html
from ctxconform.conformance.report._model import RunEvent
from helpers import STARTED, build, line

INC = "shared-context/3.3/version-increments"
ONE = "shared-context/3.3/create-version-one"
KEY = "shared-context/4.3/key-pattern"
HOSTILE = "</script><script>alert(1)</script>\u2028<!--\ud800"
TRANSCRIPT = [{"call": {"op": "shared_context", "args": {"action": "write", "key": "k"}}, "reply": {"result": {"version": 1}}}]


@dataclass
class Element:
    """One element of a parsed page."""

    tag: str
    attrs: dict[str, str]
    text: str = ""
    children: list[Element] = field(default_factory=list)


class Page(HTMLParser):
    """A page's elements in document order; parsing fails on an end tag that does not close the open element."""

    VOID = frozenset({"meta", "input", "br", "hr", "img", "link"})

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self.open: list[Element] = []
        self.feed(text)
        self.close()
        assert not self.open, f"unclosed: {[e.tag for e in self.open]}"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Record the element, and open it unless it is void."""
        element = Element(tag, {name: value or "" for name, value in attrs})
        self.elements.append(element)
        if self.open:
            self.open[-1].children.append(element)
        if tag not in self.VOID:
            self.open.append(element)

    def handle_endtag(self, tag: str) -> None:
        """Close the open element, which must be the one named."""
        assert self.open, f"</{tag}> closes nothing"
        assert self.open[-1].tag == tag, f"</{tag}> closes <{self.open[-1].tag}>"
        self.open.pop()

    def handle_data(self, data: str) -> None:
        """Add text to every open element."""
        for element in self.open:
            element.text += data

    def find(self, tag: str | None = None, **attrs: str) -> list[Element]:
        """Elements with this tag (any when None) whose attributes contain these (underscores in names are dashes)."""
        wanted = {name.replace("_", "-"): value for name, value in attrs.items()}
        return [e for e in self.elements if (tag is None or e.tag == tag) and all(e.attrs.get(k) == v for k, v in wanted.items())]

    def one(self, tag: str | None = None, **attrs: str) -> Element:
        """The only element that matches."""
        found = self.find(tag, **attrs)
        assert len(found) == 1, f"{len(found)} elements match {tag} {attrs}"
        return found[0]


def two_implementations() -> Report:
    """A report of two implementations: the first passes INC, the second fails it and times out on KEY."""
    first = build([STARTED, line("a", "PASS", [INC, ONE]), line("c", "PASS", [KEY])])
    failing = line("a", "FAIL", [INC, ONE], failed=[INC]) | {"transcript": TRANSCRIPT}
    second = build([STARTED, failing, line("c", "TIMEOUT", [KEY])])
    return first.model_copy(update={"implementations": [*first.implementations, *second.implementations], "conformant": False})


def classes(element: Element) -> set[str]:
    """The element's classes."""
    return set(element.attrs.get("class", "").split())


def test_every_requirement_has_a_cell_per_implementation_with_its_verdict() -> None:
    """Each (requirement, implementation) has exactly one cell, whose data-verdict and text are the report's verdict."""
    report = two_implementations()
    page = Page(render_html(report))
    for index, imp in enumerate(report.implementations):
        for requirement in imp.requirements:
            cell = page.one("td", data_requirement=requirement.id, data_implementation=str(index))
            assert (cell.attrs["data-verdict"], cell.text) == (requirement.verdict, requirement.verdict)
            assert cell.attrs["data-spec"] == "shared-context"
    assert len(page.find("td", data_implementation="1")) == len(report.implementations[1].requirements)
    assert page.one("td", data_requirement=INC, data_implementation="1").attrs["data-verdict"] == "FAIL"
    assert page.one("td", data_requirement=KEY, data_implementation="1").attrs["data-verdict"] == "TIMEOUT"


def test_rows_carry_their_spec_level_and_every_verdict_they_hold() -> None:
    """A requirement row names its spec and level, and the set of its implementations' verdicts, worst first."""
    page = Page(render_html(two_implementations()))
    row = page.one("tr", data_requirement=INC)
    assert (row.attrs["data-spec"], row.attrs["data-level"]) == ("shared-context", "MUST")
    assert row.attrs["data-verdicts"] == "FAIL PASS"
    assert page.one("tr", data_requirement=KEY).attrs["data-verdicts"] == "TIMEOUT PASS"
    assert "v-fail" in classes(page.one("td", data_requirement=INC, data_implementation="1"))


def test_a_failed_test_has_details_with_quotes_message_transcript_and_replay() -> None:
    """A failure's details name the requirements charged with their quotes and levels, the message, transcript, replay."""
    report = two_implementations()
    quote = next(r.quote for r in report.implementations[1].requirements if r.id == INC)
    page = Page(render_html(report))
    details = page.one("details", data_test="shared_context/test_x.py::a")
    assert (details.attrs["data-implementation"], details.attrs["data-verdict"]) == ("1", "FAIL")
    charged = [e.attrs["data-requirement"] for e in page.find("li") if e in _descendants(details)]
    assert charged == [INC]
    assert quote in details.text
    assert "MUST" in details.text
    assert "assert 2 == 1" in details.text
    transcript = next(e for e in _descendants(details) if "transcript" in classes(e))
    assert json.loads(transcript.text) == TRANSCRIPT
    replay = next(e for e in _descendants(details) if e.tag == "code" and "replay-command" in classes(e))
    assert replay.text == "ctxconform run --test shared_context/test_x.py::a"
    assert page.one("button", data_copy=replay.attrs["id"]).text == "copy"


def _descendants(element: Element) -> list[Element]:
    return [d for child in element.children for d in (child, *_descendants(child))]


def test_failing_cells_link_to_the_details_of_their_worst_failure() -> None:
    """A FAIL or TIMEOUT cell links to the details of the test charged; a PASS cell links nowhere."""
    page = Page(render_html(two_implementations()))
    for requirement, test in ((INC, "a"), (KEY, "c")):
        link = _descendants(page.one("td", data_requirement=requirement, data_implementation="1"))[0]
        target = page.one("details", id=link.attrs["href"].removeprefix("#"))
        assert target.attrs["data-test"] == f"shared_context/test_x.py::{test}"
    assert not page.one("td", data_requirement=INC, data_implementation="0").children
    known_then_failed = Page(render_html(build([STARTED, line("x", "XFAIL", [INC]), line("y", "FAIL", [INC])])))
    link = _descendants(known_then_failed.one("td", data_requirement=INC))[0]
    assert known_then_failed.one("details", id=link.attrs["href"][1:]).attrs["data-test"].endswith("::y")


def test_only_failures_and_known_failures_get_details() -> None:
    """Every BAD or XFAIL test has a details section; PASS and SKIP tests have none."""
    verdicts = ["PASS", "SKIP", "FAIL", "XFAIL", "CRASH", "XPASS"]
    report = build([STARTED, *(line(f"t{n}", verdict, [INC]) for n, verdict in enumerate(verdicts))])
    found = [d.attrs["data-verdict"] for d in Page(render_html(report)).find("details")]
    assert found == [v for v in verdicts if v in BAD | {"XFAIL"}]


def test_filters_offer_every_spec_level_and_verdict_and_count_the_rows() -> None:
    """The filter controls exist with stable ids, and the count of visible rows starts at every row."""
    report = two_implementations()
    page = Page(render_html(report))
    assert _options(page, "filter-spec") == ["", "shared-context"]
    assert _options(page, "filter-level") == ["", "MUST", "SHOULD", "MAY"]
    assert _options(page, "filter-verdict") == ["", *VERDICTS]
    assert page.one("input", id="filter-failures").attrs["type"] == "checkbox"
    total = str(len(report.implementations[0].requirements))
    count = page.one("output", id="visible-count")
    assert (count.attrs["data-visible"], count.attrs["data-total"]) == (total, total)
    assert count.text == f"{total} of {total} requirements shown"


def _options(page: Page, select: str) -> list[str]:
    return [e.attrs["value"] for e in _descendants(page.one("select", id=select))]


def test_the_header_states_the_verdict_and_summarises_each_implementation() -> None:
    """The header says NOT conformant, gives seed, level and kit version, and has one summary row per implementation."""
    page = Page(render_html(two_implementations()))
    assert page.one(id="overall").text == "NOT conformant"
    assert {key: page.one("dd", data_fact=key).text for key in ("seed", "level", "kit")} == {
        "seed": "1",
        "level": "MAY",
        "kit": "ctxconform 0",
    }
    rows = _descendants(page.one("table", id="implementations"))
    assert [e.attrs["data-implementation"] for e in rows if e.tag == "tr" and "data-implementation" in e.attrs] == ["0", "1"]


def test_events_and_stale_baseline_entries_are_listed_per_implementation() -> None:
    """Restarts and stale baseline entries appear in the events section, and XPASS cells link to the stale entries."""
    report = build([STARTED, line("a", "PASS", [INC])])
    event = RunEvent(kind="restarted", at_s=1.5, test="test_a", message="it exited with 3")
    imp = report.implementations[0]
    requirements = [r.model_copy(update={"verdict": "XPASS"}) if r.id == INC else r for r in imp.requirements]
    update = {"events": [event], "stale_baseline": ["test_a: FAIL"], "requirements": requirements}
    page = Page(render_html(report.model_copy(update={"implementations": [imp.model_copy(update=update)]})))
    events = page.one(id="events").text
    assert "restarted" in events
    assert "it exited with 3" in events
    assert "test_a: FAIL" in page.one(id="stale-0").text
    assert _descendants(page.one("td", data_requirement=INC))[0].attrs["href"] == "#stale-0"


def hostile_report() -> Report:
    """A report whose strings try to close the script, start a comment, break lines and hold a lone surrogate."""
    failing = line(HOSTILE, "FAIL", [INC]) | {"message": HOSTILE, "transcript": [{"call": {"args": {"value": HOSTILE}}}]}
    report = build([STARTED | {"implementation": {"name": HOSTILE, "version": HOSTILE, "specs": {}}}, failing])
    imp = report.implementations[0].model_copy(update={"adapter": f"stdio:{HOSTILE}", "message": HOSTILE})
    return report.model_copy(update={"implementations": [imp], "argv": [HOSTILE], "profile": HOSTILE})


def test_hostile_strings_are_escaped_and_never_break_the_page() -> None:
    """Script-closing text, U+2028 and a lone surrogate render as text: two scripts, a well-formed tree, valid UTF-8."""
    text = render_html(hostile_report())
    text.encode("utf-8")  # no lone surrogate left
    assert "\ud800" not in text
    assert "\ufffd" in text
    assert text.count("<script") == 2
    assert "<script>alert(1)" not in text
    page = Page(text)
    config = json.loads(page.one("script", id="ctxconform-config").text)
    assert config["implementations"][0]["adapter"] == "stdio:" + HOSTILE.replace("\ud800", "\ufffd")
    assert HOSTILE.replace("\ud800", "\ufffd") in page.one(id="failures").text
    assert "alert(1)" in page.one("code", id="command").text


def test_the_page_loads_nothing_from_the_network() -> None:
    """No src, href, url() or @import points outside the page, and a Content-Security-Policy forbids it anyway."""
    text = render_html(two_implementations())
    page = Page(text)
    assert not [e for e in page.elements if "src" in e.attrs or e.tag in ("link", "img", "iframe", "object")]
    assert all(e.attrs["href"].startswith("#") for e in page.elements if "href" in e.attrs)
    assert not re.search(r"url\(|@import|https?://|//[a-z]", _style_and_script(page), re.IGNORECASE)
    policy = page.one("meta", http_equiv="Content-Security-Policy").attrs["content"]
    assert "default-src 'none'" in policy


def _style_and_script(page: Page) -> str:
    return "".join(e.text for e in page.elements if e.tag in ("style", "script"))


def test_the_same_report_renders_the_same_page() -> None:
    """Rendering is deterministic, also through a JSON round trip of the report."""
    report = two_implementations()
    again = Report.model_validate_json(report.model_dump_json())
    assert render_html(report) == render_html(report) == render_html(again)


def test_a_requirement_missing_from_one_implementation_gets_an_empty_cell() -> None:
    """When an implementation has no result for a requirement, its cell is an explicit blank, not a verdict."""
    report = two_implementations()
    second = report.implementations[1]
    trimmed = second.model_copy(update={"requirements": [r for r in second.requirements if r.id != ONE]})
    page = Page(render_html(report.model_copy(update={"implementations": [report.implementations[0], trimmed]})))
    cell = page.one("td", data_requirement=ONE, data_implementation="1")
    assert (cell.attrs["data-verdict"], "missing" in classes(cell)) == ("", True)


def test_the_ambiguity_register_lists_each_ambiguous_requirement_with_its_readings() -> None:
    """Each spec has a register section with its count; each ambiguous requirement its quote and readings, linked from its row."""
    report = two_implementations()
    page = Page(render_html(report))
    ambiguous = [r for r in report.implementations[0].requirements if r.kind == "ambiguous"]
    assert ambiguous
    register = page.one("section", id="ambiguity")
    section = page.one("section", data_spec="shared-context", **{"class": "ambiguity"})
    assert section in _descendants(register)
    assert section.attrs["data-count"] == str(len(ambiguous))
    listed = [e for e in _descendants(section) if "ambiguous" in classes(e)]
    assert [e.attrs["data-requirement"] for e in listed] == [r.id for r in ambiguous]
    for item, requirement in zip(listed, ambiguous, strict=True):
        readings = next(e for e in _descendants(item) if "readings" in classes(e))
        assert [e.text for e in readings.children] == requirement.readings
        assert item.attrs["data-readings"] == str(len(requirement.readings))
        assert requirement.quote in item.text
        row = page.one("tr", data_requirement=requirement.id)
        assert row.attrs["data-kind"] == "ambiguous"
        link = next(e for e in _descendants(row) if e.tag == "a" and "kind" in classes(e))
        assert link.attrs["href"] == f"#{item.attrs['id']}"
    assert page.one("tr", data_requirement=INC).attrs["data-kind"] == "testable"


def test_hostile_readings_are_escaped_in_the_register() -> None:
    """A reading that tries to close the script or open a tag renders as text."""
    report = build([STARTED, line("a", "PASS", [INC])])
    imp = report.implementations[0]
    requirements = [
        r.model_copy(update={"kind": "ambiguous", "readings": [HOSTILE, "b"]}) if r.id == INC else r for r in imp.requirements
    ]
    hostile = report.model_copy(update={"implementations": [imp.model_copy(update={"requirements": requirements})]})
    text = render_html(hostile)
    assert text.count("<script") == 2
    item = Page(text).one("li", data_requirement=INC, **{"class": "ambiguous"})
    assert HOSTILE.replace("\ud800", "\ufffd") in item.text
