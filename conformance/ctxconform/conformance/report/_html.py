"""A self-contained HTML page of a report: requirement x implementation matrices, filters and failure details.

The page loads nothing from the network (inline CSS and JS, and a Content-Security-Policy that forbids the rest), so it
works from file:// and as a CI artifact. Elements carry `data-*` attributes so that tools and tests can read it:
`tr.requirement[data-spec][data-requirement][data-level][data-kind][data-verdicts]`,
`td.cell[data-spec][data-requirement][data-implementation][data-verdict]` (the implementation's index in the report),
`details.failure[data-implementation][data-test][data-verdict]`, and the ambiguity register
`section.ambiguity[data-spec][data-count]` > `li.ambiguous[data-requirement][data-readings]` > `ol.readings > li`;
filters are `#filter-spec`, `#filter-level`, `#filter-verdict` and `#filter-failures`, the count of visible rows
`#visible-count[data-visible][data-total]`, and the URL fragment (`#verdict=FAIL&level=MUST&spec=...&failures=1`) sets
the filters.

Why this module is long: the page is one self-contained document, and its style sheet and script are kept beside the
markup that they style and drive, so that one change to the page is one change to one file.
"""

from __future__ import annotations

import html
import json
import shlex
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ctxconform.conformance.judge._verdicts import BAD, VERDICTS
from ctxconform.conformance.report._model import ImplementationReport, Report, RequirementResult, TestResult
from ctxconform.conformance.report._text import visible_lines

__all__ = ["render_html"]

_FAILED: Final = BAD | {"XFAIL"}
_LEVELS: Final = ("MUST", "SHOULD", "MAY")
_QUOTE_CHARS: Final = 160
# In a <script> block, `<`, `>` and `&` could close it or open a comment; U+2028/9 break older JS parsers.
_SCRIPT_ESCAPES: Final = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"})

Row = list[RequirementResult | None]

_CSS: Final = """
:root { --line: #c9c9c9; --head: #f3f3f3; --ink: #1b1b1b; --muted: #666; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; color: var(--ink); background: #fff;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
header, nav, main, #ambiguity, #failures, #events { padding: 0 1.25rem; }
h1 { margin: 1rem 0 .25rem; font-size: 1.5rem; }
h2 { margin: 1.5rem 0 .5rem; font-size: 1.2rem; }
h3 { margin: 1rem 0 .4rem; font-size: 1rem; }
h4 { margin: .75rem 0 .25rem; font-size: .9rem; }
small { color: var(--muted); font-weight: 400; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 12.5px; }
pre { background: #f7f7f7; border: 1px solid var(--line); padding: .5rem; overflow-x: auto; white-space: pre-wrap;
  overflow-wrap: anywhere; max-height: 32rem; }
table { border-collapse: separate; border-spacing: 0; }
th, td { border: 1px solid var(--line); border-width: 0 1px 1px 0; padding: .25rem .5rem; text-align: left;
  vertical-align: top; }
tr > :first-child { border-left-width: 1px; }
thead tr:first-child > * { border-top-width: 1px; }
thead th { background: var(--head); }
.num { text-align: right; font-variant-numeric: tabular-nums; }
#overall { display: inline-block; margin: .25rem 0; padding: .2rem .6rem; font-weight: 700; border: 2px solid var(--ink); }
.facts { display: flex; flex-wrap: wrap; gap: .25rem 1.5rem; margin: .5rem 0; }
.facts div { display: flex; gap: .4rem; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; font-weight: 600; }
#filters { display: flex; flex-wrap: wrap; gap: .5rem 1.25rem; align-items: center; margin: 1rem 0 0; padding-top: .5rem;
  padding-bottom: .5rem; background: var(--head); border-block: 1px solid var(--line); }
#visible-count { font-weight: 600; }
.matrix thead th { position: sticky; top: 0; z-index: 1; }
.matrix .quote { min-width: 16rem; max-width: 38rem; }
.matrix th[data-implementation] { max-width: 11rem; overflow-wrap: anywhere; }
.matrix th[scope=row] code { white-space: nowrap; }
.cell { text-align: center; font-weight: 600; white-space: nowrap; }
.cell a { color: inherit; }
.badge { padding: 0 .35rem; font-weight: 700; border: 1px solid var(--line); }
/* Okabe-Ito tints, safe for the common colour-vision deficiencies; the verdict is always written out as well. */
.v-pass { background: #cfe3f7; }
.v-fail, .v-xpass { background: #f7c6a3; }
.v-harness, .v-crash, .v-timeout, .v-protocol, .v-errored { background: #e7c3dc; }
.v-fail, .v-xpass, .v-harness, .v-crash, .v-timeout, .v-protocol, .v-errored { box-shadow: inset 4px 0 0 var(--ink); }
.v-xfail { background: #f6e8a6; }
.v-skip { background: #ececec; color: #4a4a4a; }
.v-untested { background: #fff; color: var(--muted); font-weight: 400; font-style: italic; }
details.failure { border: 1px solid var(--line); margin: .4rem 0; padding: .3rem .6rem; }
details.failure[open] { background: #fcfcfc; }
details.failure summary { cursor: pointer; }
.charged blockquote, .ambiguous blockquote { margin: .2rem 0 .4rem 1rem; padding-left: .6rem;
  border-left: 3px solid var(--line); }
.replay { display: flex; gap: .5rem; align-items: flex-start; }
.replay code { display: block; flex: 1; padding: .4rem; background: #f7f7f7; border: 1px solid var(--line);
  overflow-wrap: anywhere; }
"""

_JS: Final = """
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("ctxconform-config").textContent);
  var keys = ["spec", "level", "verdict"];
  var controls = {
    spec: document.getElementById("filter-spec"),
    level: document.getElementById("filter-level"),
    verdict: document.getElementById("filter-verdict"),
    failures: document.getElementById("filter-failures")
  };
  var count = document.getElementById("visible-count");

  function current() {
    return {spec: controls.spec.value, level: controls.level.value, verdict: controls.verdict.value,
      failures: controls.failures.checked};
  }

  function matches(row, state) {
    var verdicts = (row.getAttribute("data-verdicts") || "").split(" ");
    if (state.spec && row.getAttribute("data-spec") !== state.spec) { return false; }
    if (state.level && row.getAttribute("data-level") !== state.level) { return false; }
    if (state.verdict && verdicts.indexOf(state.verdict) < 0) { return false; }
    return !state.failures || verdicts.some(function (v) { return config.bad.indexOf(v) >= 0; });
  }

  function apply() {
    var state = current(), shown = 0, total = 0;
    document.querySelectorAll("section.spec").forEach(function (section) {
      var visible = 0;
      section.querySelectorAll("tr.requirement").forEach(function (row) {
        row.hidden = !matches(row, state);
        visible += row.hidden ? 0 : 1;
        total += 1;
      });
      section.hidden = visible === 0;
      shown += visible;
    });
    count.textContent = shown + " of " + total + " requirements shown";
    count.setAttribute("data-visible", String(shown));
    count.setAttribute("data-total", String(total));
  }

  function hasOption(select, value) {
    return Array.prototype.some.call(select.options, function (o) { return o.value === value; });
  }

  function openTarget(id) {
    var target = null;
    try { target = document.getElementById(decodeURIComponent(id)); } catch (error) { return; }
    if (target && target.tagName === "DETAILS") { target.open = true; target.scrollIntoView(); }
  }

  function fromHash() {
    var hash = location.hash.slice(1);
    if (hash.indexOf("=") < 0) { openTarget(hash); return; }
    var params = new URLSearchParams(hash);
    keys.forEach(function (key) {
      var value = params.get(key) || "";
      controls[key].value = hasOption(controls[key], value) ? value : "";
    });
    controls.failures.checked = params.get("failures") === "1";
    apply();
  }

  function toHash() {
    var state = current(), params = new URLSearchParams();
    keys.forEach(function (key) { if (state[key]) { params.set(key, state[key]); } });
    if (state.failures) { params.set("failures", "1"); }
    var hash = "#" + params.toString();
    try { history.replaceState(null, "", hash); } catch (error) { location.replace(hash); }
  }

  function copy(button) {
    var source = document.getElementById(button.getAttribute("data-copy"));
    function done() { button.textContent = "copied"; }
    function fallback() {
      var range = document.createRange(), selection = window.getSelection();
      range.selectNodeContents(source);
      selection.removeAllRanges();
      selection.addRange(range);
      button.textContent = document.execCommand("copy") ? "copied" : "selected: press Ctrl+C";
    }
    if (!source) { return; }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(source.textContent).then(done, fallback);
    } else { fallback(); }
  }

  function changed() { apply(); toHash(); }

  keys.concat(["failures"]).forEach(function (key) { controls[key].addEventListener("change", changed); });
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("button.copy") : null;
    if (button) { copy(button); }
  });
  window.addEventListener("hashchange", fromHash);
  fromHash();
  apply();
}());
"""

_CSP: Final = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"


def render_html(report: Report) -> str:
    """Return the report as one self-contained HTML5 page."""
    body = _header(report) + _filters(report) + _matrices(report) + _ambiguity(report) + _failures(report) + _events(report)
    head = (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_e(_CSP)}">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(_title(report))}</title><style>{_CSS}</style></head><body>"
    )
    page = f"{head}{body}{_config(report)}<script>{_JS}</script></body></html>\n"
    return _well_formed(page)


def _well_formed(text: str) -> str:
    # Values may hold lone surrogates, which UTF-8 cannot encode: pair them up where they pair, else U+FFFD.
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _e(value: object) -> str:
    # NUL, escapes and other controls an implementation sent are shown, not passed on to whatever reads the page.
    return html.escape(visible_lines(str(value)), quote=True)


def _tag(name: str, content: str, attrs: Mapping[str, object] | None = None) -> str:
    rendered = "".join(f' {key}="{_e(value)}"' for key, value in (attrs or {}).items())
    return f"<{name}{rendered}>{content}</{name}>"


def _label(index: int, imp: ImplementationReport) -> str:
    return f"{imp.name or imp.adapter} ({index + 1})"


def _overall(report: Report) -> str:
    known = {i.status for i in report.implementations} == {"known-failures"}
    if {i.status for i in report.implementations} == {"partial"}:
        return "partial run: no failure, but not every test ran"
    return "conformant" if report.conformant else ("known failures only" if known else "NOT conformant")


def _title(report: Report) -> str:
    return f"ctxconform report: {_overall(report)}"


def _header(report: Report) -> str:
    facts = [
        ("level", report.level),
        ("profile", report.profile),
        ("seed", report.seed),
        ("duration", f"{report.duration_s:.1f} s"),
        ("kit", f"{report.kit.get('name', 'ctxconform')} {report.kit.get('version', '?')}"),
        ("started", report.started_at),
        ("finished", report.finished_at),
    ]
    items = "".join(f"<div><dt>{key}</dt>{_tag('dd', _e(value), {'data-fact': key})}</div>" for key, value in facts)
    overall = _tag("p", _e(_overall(report)), {"id": "overall", "data-conformant": str(report.conformant).lower()})
    command = _tag("code", _e(shlex.join(["ctxconform", *report.argv])), {"id": "command"})
    body = f'<h1>ctxconform report</h1>{overall}<dl class="facts">{items}</dl>{command}{_summary(report)}'
    return _tag("header", body, {"id": "summary"})


def _summary(report: Report) -> str:
    shown = [v for v in VERDICTS if any(imp.counts.get(v) for imp in report.implementations)]
    titles = ["#", "implementation", "version", "language", "adapter", "status", "tests", *shown]
    head = "".join(_tag("th", _e(title), {"scope": "col"}) for title in titles)
    rows = "".join(_summary_row(index, imp, shown) for index, imp in enumerate(report.implementations))
    return f'<h2>Implementations</h2><table id="implementations"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'


def _summary_row(index: int, imp: ImplementationReport, shown: Sequence[str]) -> str:
    cells = [str(index + 1), _e(imp.name or "?"), _e(imp.version or ""), _e(imp.language or "")]
    cells += [_tag("code", _e(imp.adapter)), _tag("span", _e(imp.status), {"class": "status", "data-status": imp.status})]
    if imp.message:
        cells[-1] += f"<br><small>{_e(imp.message)}</small>"
    counts = [str(sum(imp.counts.values()))] + [str(imp.counts.get(v, 0)) for v in shown]
    numbers = "".join(_tag("td", n, {"class": "num"}) for n in counts)
    return _tag("tr", "".join(f"<td>{c}</td>" for c in cells) + numbers, {"data-implementation": index})


def _filters(report: Report) -> str:
    grid = _grid(report)
    total = sum(len(rows) for rows in grid.values())
    spec = _select("filter-spec", "spec", ["", *grid], "all specs")
    level = _select("filter-level", "level", ["", *_LEVELS], "all levels")
    verdict = _select("filter-verdict", "some implementation has", ["", *VERDICTS], "any verdict")
    failures = '<label><input type="checkbox" id="filter-failures"> failures only</label>'
    attrs = {"id": "visible-count", "aria-live": "polite", "data-visible": total, "data-total": total}
    count = _tag("output", f"{total} of {total} requirements shown", attrs)
    return f'<nav id="filters" aria-label="filters">{spec}{level}{verdict}{failures}{count}</nav>'


def _select(ident: str, label: str, values: list[str], everything: str) -> str:
    options = "".join(_tag("option", _e(value or everything), {"value": value}) for value in values)
    return f'<label>{_e(label)} <select id="{ident}">{options}</select></label>'


def _grid(report: Report) -> dict[str, dict[str, Row]]:
    """Spec -> requirement id -> that requirement's result per implementation (None where it has none)."""
    grid: dict[str, dict[str, Row]] = {}
    width = len(report.implementations)
    for index, imp in enumerate(report.implementations):
        for requirement in imp.requirements:
            grid.setdefault(requirement.spec, {}).setdefault(requirement.id, [None] * width)[index] = requirement
    return grid


def _matrices(report: Report) -> str:
    targets = [_targets(index, imp) for index, imp in enumerate(report.implementations)]
    sections = [_matrix(n, spec, rows, report, targets) for n, (spec, rows) in enumerate(_grid(report).items())]
    return f'<main id="matrix">{"".join(sections)}</main>'


def _targets(index: int, imp: ImplementationReport) -> dict[str, str]:
    """Requirement id -> the id of the element that explains its failure: its worst charged test, or the stale entries."""
    found: dict[str, str] = {}
    failing = sorted((p for p in enumerate(imp.tests) if p[1].verdict in _FAILED), key=lambda p: VERDICTS.index(p[1].verdict))
    for n, test in failing:
        for requirement in test.failed_requirements:
            found.setdefault(requirement, _failure_id(index, n))
    stale = [r.id for r in imp.requirements if r.verdict == "XPASS"] if imp.stale_baseline else []
    return {**dict.fromkeys(stale, f"stale-{index}"), **found}


def _matrix(n: int, spec: str, rows: dict[str, Row], report: Report, targets: list[dict[str, str]]) -> str:
    titles = [_tag("th", title, {"scope": "col"}) for title in ("requirement", "level", "section", "quote")]
    imps = enumerate(report.implementations)
    columns = [_tag("th", _e(_label(i, imp)), {"scope": "col", "data-implementation": i}) for i, imp in imps]
    body = "".join(_row(cells, targets) for cells in rows.values())
    table = f'<table class="matrix"><thead><tr>{"".join(titles + columns)}</tr></thead><tbody>{body}</tbody></table>'
    title = f"<h2>{_e(spec)} <small>{_e(_spec_version(spec, report))}</small></h2>{_declared(spec, report)}"
    return _tag("section", title + table, {"class": "spec", "id": f"spec-{n}", "data-spec": spec})


def _spec_version(spec: str, report: Report) -> str:
    versions = [s.version for imp in report.implementations for s in imp.specs if s.spec == spec]
    return versions[0] if versions else ""


def _declared(spec: str, report: Report) -> str:
    items = [
        f"<li>{_e(_label(i, imp))}: {_e(s.declared_version or 'not implemented')}"
        + (f"; features {_e(', '.join(s.features))}" if s.features else "")
        + "</li>"
        for i, imp in enumerate(report.implementations)
        for s in imp.specs
        if s.spec == spec
    ]
    return f'<ul class="declared">{"".join(items)}</ul>' if items else ""


def _row(cells: Row, targets: list[dict[str, str]]) -> str:
    first = next(c for c in cells if c is not None)
    verdicts = " ".join(sorted({c.verdict for c in cells if c is not None}, key=VERDICTS.index))
    attrs = {"class": "requirement", "id": f"requirement-{first.id}", "data-spec": first.spec, "data-requirement": first.id}
    quote = _tag("td", _e(_short(first.quote)), {"class": "quote", "title": first.quote})
    kind = f' <a class="kind" href="#ambiguity-{_e(first.id)}">ambiguous</a>' if first.kind == "ambiguous" else ""
    head = f'<th scope="row"><code>{_e(first.id)}</code>{kind}</th><td>{first.level}</td><td>{_e(first.section)}</td>{quote}'
    row_cells = "".join(_cell(first, index, result, targets[index]) for index, result in enumerate(cells))
    return _tag("tr", head + row_cells, {**attrs, "data-level": first.level, "data-kind": first.kind, "data-verdicts": verdicts})


def _short(quote: str) -> str:
    flat = " ".join(quote.split())
    return flat if len(flat) <= _QUOTE_CHARS else flat[: _QUOTE_CHARS - 1].rstrip() + "\u2026"


def _cell(first: RequirementResult, index: int, result: RequirementResult | None, targets: dict[str, str]) -> str:
    attrs: dict[str, object] = {"data-spec": first.spec, "data-requirement": first.id, "data-implementation": index}
    if result is None:
        return _tag("td", "\u2014", {"class": "cell missing", **attrs, "data-verdict": ""})
    target = targets.get(result.id)
    text = _tag("a", result.verdict, {"href": f"#{target}"}) if target else result.verdict
    return _tag("td", text, {"class": f"cell v-{result.verdict.lower()}", **attrs, "data-verdict": result.verdict})


def _ambiguity(report: Report) -> str:
    """The ambiguity register: per spec, each ambiguous requirement with its quote and the readings the suite accepts."""
    register = {spec: [next(c for c in cells if c) for cells in rows.values()] for spec, rows in _grid(report).items()}
    sections = [_ambiguity_spec(spec, [r for r in found if r.kind == "ambiguous"]) for spec, found in register.items()]
    total = sum(r.kind == "ambiguous" for found in register.values() for r in found)
    return f'<section id="ambiguity"><h2>Ambiguity register <small>({total})</small></h2>{"".join(sections)}</section>'


def _ambiguity_spec(spec: str, found: list[RequirementResult]) -> str:
    items = "".join(_ambiguous(r) for r in found)
    body = f"<ul>{items}</ul>" if items else "<p>No ambiguous requirement.</p>"
    title = f"<h3>{_e(spec)} <small>({len(found)} ambiguous)</small></h3>"
    return _tag("section", title + body, {"class": "ambiguity", "data-spec": spec, "data-count": len(found)})


def _ambiguous(r: RequirementResult) -> str:
    about = f"<code>{_e(r.id)}</code> <strong>{r.level}</strong> \u00a7 {_e(r.section)}<blockquote>{_e(r.quote)}</blockquote>"
    readings = "".join(_tag("li", _e(reading)) for reading in r.readings)
    attrs = {"class": "ambiguous", "id": f"ambiguity-{r.id}", "data-requirement": r.id, "data-readings": len(r.readings)}
    return _tag("li", f'{about}<ol class="readings">{readings}</ol>', attrs)


def _failure_id(index: int, n: int) -> str:
    return f"failure-{index}-{n}"


def _failures(report: Report) -> str:
    items = [
        _failure(index, n, imp, test)
        for index, imp in enumerate(report.implementations)
        for n, test in enumerate(imp.tests)
        if test.verdict in _FAILED
    ]
    body = "".join(items) or "<p>No failures.</p>"
    return f'<section id="failures"><h2>Failures <small>({len(items)})</small></h2>{body}</section>'


def _failure(index: int, n: int, imp: ImplementationReport, test: TestResult) -> str:
    ident = _failure_id(index, n)
    badge = _tag("span", test.verdict, {"class": f"badge v-{test.verdict.lower()}"})
    summary = f"<summary>{badge} {_e(_label(index, imp))} \u00b7 <code>{_e(test.name)}</code></summary>"
    parts = [summary, _charged(imp, test), _message(test), _replay(ident, test), _transcript(test)]
    attrs = {"class": "failure", "id": ident, "data-implementation": index, "data-test": test.id, "data-verdict": test.verdict}
    return _tag("details", "".join(parts), attrs)


def _charged(imp: ImplementationReport, test: TestResult) -> str:
    known = {r.id: r for r in imp.requirements}
    heading = "Charged to" if test.failed_requirements else "Charged to no requirement; the test names"
    items = "".join(_charged_item(rid, known.get(rid)) for rid in test.failed_requirements or test.requirements)
    return f'<h4>{heading}</h4><ul class="charged">{items}</ul>'


def _charged_item(rid: str, requirement: RequirementResult | None) -> str:
    if requirement is None:
        return _tag("li", f"<code>{_e(rid)}</code>", {"data-requirement": rid})
    about = f"<code>{_e(rid)}</code> <strong>{requirement.level}</strong> \u00a7 {_e(requirement.section)}"
    return _tag("li", f"{about}<blockquote>{_e(requirement.quote)}</blockquote>", {"data-requirement": rid})


def _message(test: TestResult) -> str:
    return f'<h4>Message</h4><pre class="message">{_e(test.message)}</pre>' if test.message else ""


def _transcript(test: TestResult) -> str:
    if not test.transcript:
        return "<p>No transcript.</p>"
    text = json.dumps(test.transcript, indent=2, ensure_ascii=False, default=str)
    return f'<h4>Transcript</h4><pre class="transcript">{_e(text)}</pre>'


def _replay(ident: str, test: TestResult) -> str:
    if not test.replay:
        return "<p>No replay command in the report.</p>"
    code = _tag("code", _e(test.replay), {"id": f"{ident}-replay", "class": "replay-command"})
    button = _tag("button", "copy", {"type": "button", "class": "copy", "data-copy": f"{ident}-replay"})
    return f'<h4>Replay</h4><div class="replay">{code}{button}</div>'


def _events(report: Report) -> str:
    parts = [_implementation_events(i, imp) for i, imp in enumerate(report.implementations) if imp.events or imp.stale_baseline]
    body = "".join(parts) or "<p>No events and no stale baseline entries.</p>"
    return f'<section id="events"><h2>Events and stale baseline entries</h2>{body}</section>'


def _implementation_events(index: int, imp: ImplementationReport) -> str:
    rows = "".join(
        f'<tr><td class="num">{e.at_s:.1f} s</td><td>{e.kind}</td><td><code>{_e(e.test)}</code></td><td>{_e(e.message)}</td></tr>'
        for e in imp.events
    )
    head = "<thead><tr><th>at</th><th>event</th><th>test</th><th>message</th></tr></thead>"
    events = _tag("table", f"{head}<tbody>{rows}</tbody>", {"class": "events", "data-implementation": index}) if rows else ""
    entries = "".join(f"<li><code>{_e(entry)}</code></li>" for entry in imp.stale_baseline)
    title = "<h4>Stale baseline entries (they pass now: remove them)</h4>"
    stale = _tag("div", f"{title}<ul>{entries}</ul>", {"class": "stale", "id": f"stale-{index}"}) if entries else ""
    return f"<h3>{_e(_label(index, imp))}</h3>{events}{stale}"


def _config(report: Report) -> str:
    data: dict[str, Any] = {
        "bad": [v for v in VERDICTS if v in BAD],
        "verdicts": list(VERDICTS),
        "implementations": [{"adapter": i.adapter, "name": i.name, "status": i.status} for i in report.implementations],
    }
    text = json.dumps(data, ensure_ascii=False, sort_keys=True).translate(_SCRIPT_ESCAPES)
    return f'<script type="application/json" id="ctxconform-config">{text}</script>'
