"""A bench run against a saved one: each figure's change, flagged when it got more than 1.5x worse."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pydantic import ValidationError

from ctxconform.conformance.report._bench import BenchReport, Figure

__all__ = ["FLAG_FACTOR", "Comparison", "SavedReportError", "compare", "comparison_table", "load_saved"]

FLAG_FACTOR: Final = 1.5
_SAME: Final = 0.005  # a change smaller than this reads as "same" in the table


class SavedReportError(ValueError):
    """The saved report cannot be compared with: missing, unreadable, not JSON or not a bench report."""


@dataclass(frozen=True)
class Comparison:
    """One figure in the saved run and in this one (either may be absent), and how much worse it got."""

    section: str
    name: str
    saved: Figure | None
    now: Figure | None

    @property
    def worse_by(self) -> float | None:
        """This run's median over the saved one, turned so that above 1 is worse; None when the two cannot be compared."""
        if self.saved is None or self.now is None or self.why_not_compared:
            return None
        if self.now.better == "higher":  # this run's direction: a saved file may predate the field
            return self.saved.median / self.now.median
        return self.now.median / self.saved.median

    @property
    def flagged(self) -> bool:
        """Whether the figure got more than FLAG_FACTOR worse."""
        worse_by = self.worse_by
        return worse_by is not None and worse_by > FLAG_FACTOR

    @property
    def why_not_compared(self) -> str:
        """Why the two medians cannot be compared ("" when they can)."""
        if self.saved is None:
            return "new"
        if self.now is None:
            return "missing"
        if self.saved.unit != self.now.unit:
            return f"unit changed from {self.saved.unit}"
        if self.saved.median <= 0 or self.now.median <= 0:
            return "not measured in one run"
        return ""


def compare(saved: BenchReport, now: BenchReport) -> list[Comparison]:
    """Pair figures by (section, name): this run's in order, then those of the saved run it measured no more.

    Sections this run did not measure at all (`--only`) are left out rather than listed as missing.
    """
    before = {(f.section, f.name): f for f in saved.figures}
    after = {(f.section, f.name): f for f in now.figures}
    measured = {f.section for f in now.figures}
    rows = [Comparison(f.section, f.name, before.get(key), f) for key, f in after.items()]
    rows += [Comparison(f.section, f.name, f, None) for key, f in before.items() if key not in after and f.section in measured]
    return rows


def comparison_table(rows: list[Comparison]) -> str:
    """The comparison as a Markdown table, with a closing line that counts the flagged figures."""
    lines = ["| section | figure | saved | now | change | flagged |", "|---|---|---:|---:|---|---|"]
    for row in rows:
        flagged = f"FLAGGED: more than {FLAG_FACTOR:g}x worse" if row.flagged else ""
        lines.append(f"| {row.section} | {row.name} | {_median(row.saved)} | {_median(row.now)} | {_change(row)} | {flagged} |")
    flagged_count = sum(row.flagged for row in rows)
    lines.append(f"\n{flagged_count} of {len(rows)} figures more than {FLAG_FACTOR:g}x worse than the saved run")
    return "\n".join(lines)


def load_saved(path: Path) -> BenchReport:
    """Read a bench report written by an earlier run; SavedReportError says in one line what is wrong and what to do."""
    written_by = "pass a reports/bench.json that benchmarks/bench.py wrote"
    try:
        text = path.read_bytes()
    except FileNotFoundError:
        raise SavedReportError(f"{path}: no such file; {written_by} (--output saves one)") from None
    except OSError as error:
        raise SavedReportError(f"{path}: cannot read it ({error.strerror or error}); check the path") from None
    try:
        document = json.loads(text)
    except ValueError as error:  # JSONDecodeError, or bytes that are not text at all
        raise SavedReportError(f"{path}: not JSON ({_one_line(str(error))}); {written_by}") from None
    try:
        return BenchReport.model_validate(document)
    except ValidationError as error:
        raise SavedReportError(f"{path}: not a bench report ({_first_error(error)}); {written_by}") from None


def _median(found: Figure | None) -> str:
    return "" if found is None else f"{found.median:.4g} {found.unit}"


def _change(row: Comparison) -> str:
    worse_by = row.worse_by
    if worse_by is None:
        return row.why_not_compared
    if abs(worse_by - 1) < _SAME:
        return "same"
    return f"{worse_by:.2f}x worse" if worse_by > 1 else f"{1 / worse_by:.2f}x better"


def _first_error(error: ValidationError) -> str:
    errors = error.errors()
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"]) or "the document"
    more = f", and {len(errors) - 1} more" if len(errors) > 1 else ""
    return _one_line(f"{where}: {first['msg']}{more}")


def _one_line(text: str) -> str:
    return " ".join(text.split())
