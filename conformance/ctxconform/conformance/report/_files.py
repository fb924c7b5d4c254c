"""A run's report files: the canonical JSON and each rendering, each file written all at once."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from ctxconform.conformance.report._badge import badge_for
from ctxconform.conformance.report._ctrf import render_ctrf
from ctxconform.conformance.report._html import render_html
from ctxconform.conformance.report._json import indented_json
from ctxconform.conformance.report._junit import render_junit
from ctxconform.conformance.report._markdown import render_markdown
from ctxconform.conformance.report._model import Report

__all__ = ["write_atomically", "write_reports"]

_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def write_reports(report: Report, folder: Path) -> list[Path]:
    """Write the report and every rendering of it into `folder`; return the files written."""
    documents = {
        "report.json": indented_json(report.model_dump(mode="json")),
        "junit.xml": render_junit(report),
        "ctrf.json": render_ctrf(report),
        "summary.md": render_markdown(report),
        "report.html": render_html(report),
    }
    for index, implementation in enumerate(report.implementations):
        badge, stem = badge_for(implementation), "badge" if index == 0 else f"badge-{index + 1}"
        documents |= {f"{stem}.svg": badge.svg(), f"{stem}.json": badge.endpoint()}
    return [write_atomically(folder / name, text) for name, text in documents.items()]


def write_atomically(path: Path, text: str) -> Path:
    """Write `text` to `path` all at once (through a temporary file), lone surrogates escaped."""
    # A lone surrogate an implementation sent back is written as its escape, as text: strict JSON parsers refuse
    # a lone surrogate even escaped, and UTF-8 cannot encode it.
    escape = "\\\\u{:04x}" if path.suffix == ".json" else "\\u{:04x}"
    clean = _LONE_SURROGATE.sub(lambda found: escape.format(ord(found.group())), text)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(clean, encoding="utf-8")
    temporary.replace(path)
    return path
