"""A status badge of one implementation: an SVG, and the same text as a shields.io endpoint document."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import Final

from ctxconform.conformance.report._model import ImplementationReport

__all__ = ["Badge", "badge_for"]

_COLOURS: Final = {
    "conformant": "#2e7d32",
    "known-failures": "#b26a00",
    "partial": "#1565c0",
    "not-conformant": "#c62828",
    "unavailable": "#616161",
    "error": "#616161",
}
_STATUS_TEXT: Final = {
    "conformant": "conformant",
    "known-failures": "known failures",
    "partial": "partial run",
    "not-conformant": "not conformant",
    "unavailable": "unavailable",
    "error": "error",
}
# Average advance of an 11 px Verdana glyph; exact metrics would need the font, which a badge must not load.
_CHAR_WIDTH: Final = 6.8
_PADDING: Final = 12


@dataclass(frozen=True)
class Badge:
    """A badge's label, message and colour."""

    label: str
    message: str
    colour: str

    def svg(self) -> str:
        """Return the badge as a self-contained SVG document."""
        left, right = _width(self.label), _width(self.message)
        label, message = html.escape(self.label), html.escape(self.message)
        return _SVG.format(
            total=left + right,
            left=left,
            right=right,
            colour=self.colour,
            label=label,
            message=message,
            label_x=left / 2,
            message_x=left + right / 2,
        )

    def endpoint(self) -> str:
        """Return the badge as a shields.io endpoint document (JSON)."""
        document = {"schemaVersion": 1, "label": self.label, "message": self.message, "color": self.colour.lstrip("#")}
        return json.dumps(document) + "\n"


def badge_for(imp: ImplementationReport) -> Badge:
    """Return the badge of one implementation: its status and how many of the MUST requirements it ran pass."""
    musts = [
        r for r in imp.requirements if r.level == "MUST" and r.kind != "untestable" and r.verdict not in ("SKIP", "UNTESTED")
    ]
    passed = sum(r.verdict == "PASS" for r in musts)
    message = _STATUS_TEXT[imp.status]
    if imp.status not in ("unavailable", "error"):
        message += f" · MUST {passed}/{len(musts)}"
    return Badge("ctxconform", message, _COLOURS[imp.status])


def _width(text: str) -> int:
    return round(len(text) * _CHAR_WIDTH) + _PADDING


_SVG: Final = """\
<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="20" role="img" aria-label="{label}: {message}">
<title>{label}: {message}</title>
<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/>\
<stop offset="1" stop-opacity=".1"/></linearGradient>
<clipPath id="r"><rect width="{total}" height="20" rx="3" fill="#fff"/></clipPath>
<g clip-path="url(#r)">
<rect width="{left}" height="20" fill="#555"/>
<rect x="{left}" width="{right}" height="20" fill="{colour}"/>
<rect width="{total}" height="20" fill="url(#s)"/>
</g>
<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
<text x="{label_x}" y="15" fill="#010101" fill-opacity=".3">{label}</text>
<text x="{label_x}" y="14">{label}</text>
<text x="{message_x}" y="15" fill="#010101" fill-opacity=".3">{message}</text>
<text x="{message_x}" y="14">{message}</text>
</g>
</svg>
"""
