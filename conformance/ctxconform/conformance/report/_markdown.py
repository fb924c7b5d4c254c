"""A Markdown summary of a report, short enough for a CI job summary.

CI appends this file to the job summary, which renders Markdown and HTML: every string the kit did not write itself
(names, versions, messages, adapters, baseline entries) goes through `markdown()` and renders as itself.
"""

from __future__ import annotations

from ctxconform.conformance.judge._verdicts import BAD
from ctxconform.conformance.report._model import ImplementationReport, Report, RequirementResult, RunEvent
from ctxconform.conformance.report._text import NAME_CHARS, markdown

__all__ = ["render_markdown"]

_SHOWN = 30


def render_markdown(report: Report) -> str:
    """Return the report as Markdown."""
    known = {i.status for i in report.implementations} == {"known-failures"}
    partial = {i.status for i in report.implementations} == {"partial"}
    verdict = (
        "conformant"
        if report.conformant
        else (
            "known failures only" if known else "partial run: no failure, but not every test ran" if partial else "NOT conformant"
        )
    )
    lines = [
        "# ctxconform report",
        "",
        f"**{verdict}** · level {report.level} · profile {report.profile} · seed {report.seed} · {report.duration_s:.1f} s",
        "",
        "| implementation | adapter | status | tests | pass | fail | other |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for imp in report.implementations:
        total = sum(imp.counts.values())
        passed, failed = imp.counts.get("PASS", 0), imp.counts.get("FAIL", 0)
        other = total - passed - failed - imp.counts.get("SKIP", 0)
        name = f"{_name(imp.name or '?')} {_name(imp.version or '')}"
        lines.append(f"| {name} | {_name(imp.adapter)} | {imp.status} | {total} | {passed} | {failed} | {other} |")
    if len(report.implementations) > 1:
        lines += _comparison(report.implementations)
    for imp in report.implementations:
        lines += _implementation(imp)
    return "\n".join(lines) + "\n"


def _comparison(imps: list[ImplementationReport]) -> list[str]:
    names = [f"{_name(imp.name or imp.adapter)} ({index + 1})" for index, imp in enumerate(imps)]
    lines = ["", "## Side by side", "", "Requirements passed, per spec:", ""]
    lines += [f"| spec | {' | '.join(names)} |", f"|---|{'---:|' * len(imps)}"]
    # Merged reports may hold implementations run on different specs: cells are matched by id, "-" where not run.
    summaries = [{summary.spec: summary for summary in imp.specs} for imp in imps]
    for spec in dict.fromkeys(summary.spec for imp in imps for summary in imp.specs):
        cells = [f"{s[spec].counts.get('PASS', 0)}/{s[spec].requirements}" if spec in s else "-" for s in summaries]
        lines.append(f"| {spec} | {' | '.join(cells)} |")
    rows = _requirement_rows(imps)
    differing = [row for row in rows if len({r.verdict for r in row if r is not None}) > 1]
    lines += ["", f"{len(differing)} requirements where the verdicts differ" + (":" if differing else "."), ""]
    if differing:
        lines += [f"| requirement | level | {' | '.join(names)} |", f"|---|---|{'---|' * len(imps)}"]
        lines += [_differing_row(row) for row in differing[:_SHOWN]]
        if len(differing) > _SHOWN:
            lines.append(f"| … {len(differing) - _SHOWN} more in report.html | | {' | ' * (len(imps) - 1)}|")
    return lines


def _requirement_rows(imps: list[ImplementationReport]) -> list[tuple[RequirementResult | None, ...]]:
    """Each requirement any implementation was judged on, with each one's result (None where its spec was not run)."""
    results = [{r.id: r for r in imp.requirements} for imp in imps]
    ids = dict.fromkeys(r.id for imp in imps for r in imp.requirements)
    return [tuple(found.get(rid) for found in results) for rid in ids]


def _differing_row(row: tuple[RequirementResult | None, ...]) -> str:
    first = next(r for r in row if r is not None)
    return f"| `{first.id}` | {first.level} | {' | '.join(r.verdict if r else '-' for r in row)} |"


def _implementation(imp: ImplementationReport) -> list[str]:
    lines = ["", f"## {_name(imp.name or imp.adapter)}", ""]
    if imp.message:
        lines += [f"> {markdown(imp.message)}", ""]
    lines += [
        "| spec | version | declared | requirements | pass | fail | skip | untested |",
        "|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for spec in imp.specs:
        c = spec.counts
        failing = sum(n for v, n in c.items() if v in BAD)
        lines.append(
            f"| {spec.spec} | {spec.version} | {_name(spec.declared_version or 'not implemented')} | {spec.requirements}"
            f" | {c.get('PASS', 0)} | {failing} | {c.get('SKIP', 0)} | {c.get('UNTESTED', 0)} |"
        )
    broken = [r for r in imp.requirements if r.verdict in BAD]
    if broken:
        lines += ["", "| requirement | level | verdict | quote |", "|---|---|---|---|"]
        for r in broken[:_SHOWN]:
            quote = markdown(r.quote, 120)
            lines.append(f"| `{r.id}` | {r.level} | {r.verdict} | {quote} |")
        if len(broken) > _SHOWN:
            lines.append(f"| … {len(broken) - _SHOWN} more in report.json | | | |")
    if imp.stale_baseline:
        lines += ["", "Stale baseline entries (they pass now: remove them):", ""]
        lines += [f"- {markdown(entry)}" for entry in imp.stale_baseline]
    if imp.events:
        lines += ["", "What happened to the implementation:", ""]
        lines += [_event(e) for e in imp.events]
    return lines


def _event(event: RunEvent) -> str:
    where = f" at {markdown(event.test)}" if event.test else ""
    return f"- {event.at_s:.1f} s, {event.kind}{where}: {markdown(event.message)}"


def _name(text: str) -> str:
    return markdown(text, NAME_CHARS)
