"""JUnit XML from a report: one testsuite per implementation, requirement ids as test properties."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Final

from ctxconform.conformance.report._model import ImplementationReport, Report, TestResult

__all__ = ["render_junit"]

_ERRORS: Final = frozenset({"ERRORED", "TIMEOUT", "CRASH", "PROTOCOL", "HARNESS"})
_FAILURES: Final = frozenset({"FAIL", "XPASS"})
_SKIPS: Final = frozenset({"SKIP", "XFAIL"})
# Characters XML 1.0 cannot hold at all, not even as references.
_NOT_XML: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def render_junit(report: Report) -> str:
    """Return the report as JUnit XML text."""
    root = ET.Element("testsuites", name="ctxconform", time=f"{report.duration_s:.3f}")
    for implementation in report.implementations:
        root.append(_suite(implementation))
    ET.indent(root)
    _clean(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _clean(root: ET.Element) -> None:
    """Replace what XML cannot carry by its Python escape, so an implementation's bytes never break the file."""
    for element in root.iter():
        element.text = _xml_text(element.text)
        for name, value in element.attrib.items():
            element.set(name, _xml_text(value) or "")


def _xml_text(text: str | None) -> str | None:
    return _NOT_XML.sub(lambda found: found.group().encode("unicode_escape").decode("ascii"), text) if text else text


def _suite(implementation: ImplementationReport) -> ET.Element:
    tests = implementation.tests
    suite = ET.Element(
        "testsuite",
        name=f"{implementation.name or implementation.adapter} ({implementation.adapter})",
        tests=str(len(tests)),
        failures=str(sum(t.verdict in _FAILURES for t in tests)),
        errors=str(sum(t.verdict in _ERRORS for t in tests)),
        skipped=str(sum(t.verdict in _SKIPS for t in tests)),
        time=f"{implementation.duration_s:.3f}",
    )
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", name="status", value=implementation.status)
    if implementation.message:
        ET.SubElement(properties, "property", name="message", value=implementation.message)
    levels = {r.id: r.level for r in implementation.requirements}
    for test in tests:
        suite.append(_case(test, levels))
    return suite


def _case(test: TestResult, levels: Mapping[str, str]) -> ET.Element:
    module = test.id.split("::")[0].removesuffix(".py").replace("/", ".")
    case = ET.Element("testcase", classname=f"{test.spec}.{module.split('.')[-1]}", name=test.name, time=f"{test.duration_s:.3f}")
    properties = ET.SubElement(case, "properties")
    for rid in test.requirements:
        ET.SubElement(properties, "property", name="requirement", value=rid)
        ET.SubElement(properties, "property", name="level", value=f"{rid} {levels.get(rid, '')}".strip())
    ET.SubElement(properties, "property", name="verdict", value=test.verdict)
    first_line = test.message.strip().splitlines()[-1][:300] if test.message.strip() else test.verdict
    if test.verdict in _FAILURES:
        ET.SubElement(case, "failure", message=first_line, type=test.verdict).text = _body(test)
    elif test.verdict in _ERRORS:
        ET.SubElement(case, "error", message=first_line, type=test.verdict).text = _body(test)
    elif test.verdict in _SKIPS:
        ET.SubElement(case, "skipped", message=first_line)
    return case


def _body(test: TestResult) -> str:
    charged = ", ".join(test.failed_requirements)
    return f"{test.message}\n\nrequirements: {charged}\nreplay: {test.replay}\n"
