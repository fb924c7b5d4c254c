"""Reports: the canonical report of a run, baselines of known failures, and each rendering of a report."""

from __future__ import annotations

from ctxconform.conformance.report._badge import badge_for
from ctxconform.conformance.report._baseline import Baseline, apply_baseline
from ctxconform.conformance.report._ctrf import render_ctrf
from ctxconform.conformance.report._html import render_html
from ctxconform.conformance.report._junit import render_junit
from ctxconform.conformance.report._markdown import render_markdown
from ctxconform.conformance.report._model import ImplementationReport, Report, RequirementResult

__all__ = [
    "Baseline",
    "ImplementationReport",
    "Report",
    "RequirementResult",
    "apply_baseline",
    "badge_for",
    "render_ctrf",
    "render_html",
    "render_junit",
    "render_markdown",
]
