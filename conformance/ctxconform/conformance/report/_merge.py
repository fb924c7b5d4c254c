"""Merging the reports of parallel runs (one job per implementation or per spec) into one comparison."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Final

from pydantic import ValidationError

from ctxconform.conformance.exceptions import ConfigurationError
from ctxconform.conformance.report._model import ImplementationReport, Report, Status

__all__ = ["merge_reports", "read_report"]

# The worst status among an implementation's jobs is its status: one failed spec fails the implementation.
_SEVERITY: Final[tuple[Status, ...]] = ("unavailable", "error", "not-conformant", "partial", "known-failures", "conformant")


def read_report(path: Path) -> Report:
    """Read a `report.json` (or the folder holding one); raise ConfigurationError when it is missing or not one."""
    file = path / "report.json" if path.is_dir() else path
    try:
        return Report.model_validate(json.loads(file.read_text(encoding="utf-8")))
    except OSError as error:
        raise ConfigurationError(f"cannot read {file}: {error.strerror or error}; give a folder a run wrote") from error
    except (ValueError, ValidationError) as error:
        first = str(error).splitlines()[0][:300]
        raise ConfigurationError(f"{file} is not a ctxconform report.json ({first})") from error


def merge_reports(reports: list[Report], argv: list[str]) -> Report:
    """One report of every implementation in `reports`; the runs of one adapter on different specs become one entry.

    Raise ConfigurationError when the reports cannot be compared: different kit versions, profiles or levels, or two
    reports of the same spec for the same adapter.
    """
    if not reports:
        raise ConfigurationError("give at least one report folder to merge")
    for field in ("kit", "profile", "level"):
        values = {json.dumps(getattr(report, field), sort_keys=True) for report in reports}
        if len(values) > 1:
            raise ConfigurationError(f"the reports differ in {field} ({', '.join(sorted(values))}): run every job alike")
    by_adapter: dict[str, list[ImplementationReport]] = {}
    for report in reports:
        for implementation in report.implementations:
            by_adapter.setdefault(implementation.adapter, []).append(implementation)
    implementations = [_merged(adapter, entries) for adapter, entries in by_adapter.items()]
    first = reports[0]
    return Report(
        kit=first.kit,
        started_at=min(report.started_at for report in reports),
        finished_at=max(report.finished_at for report in reports),
        duration_s=round(max(report.duration_s for report in reports), 3),
        seed=first.seed,
        profile=first.profile,
        level=first.level,
        argv=argv,
        partial=any(report.partial for report in reports),
        conformant=all(i.status == "conformant" for i in implementations),
        implementations=implementations,
    )


def _merged(adapter: str, entries: list[ImplementationReport]) -> ImplementationReport:
    if len(entries) == 1:
        return entries[0]
    specs = [summary.spec for entry in entries for summary in entry.specs]
    repeated = sorted(spec for spec, count in Counter(specs).items() if count > 1)
    if repeated:
        raise ConfigurationError(
            f"two reports of {adapter!r} both ran {', '.join(repeated)}: merge the jobs of different specs or adapters"
        )
    counts: Counter[str] = Counter()
    for entry in entries:
        counts.update(entry.counts)
    return ImplementationReport(
        adapter=adapter,
        name=next((e.name for e in entries if e.name is not None), None),
        version=next((e.version for e in entries if e.version is not None), None),
        language=next((e.language for e in entries if e.language is not None), None),
        status=min((e.status for e in entries), key=_SEVERITY.index),
        message="\n".join(e.message for e in entries if e.message),
        stale_baseline=[item for e in entries for item in e.stale_baseline],
        events=[event for e in entries for event in e.events],
        duration_s=round(sum(e.duration_s for e in entries), 3),
        specs=[summary for e in entries for summary in e.specs],
        counts=dict(counts),
        tests=[test for e in entries for test in e.tests],
        requirements=[requirement for e in entries for requirement in e.requirements],
    )
