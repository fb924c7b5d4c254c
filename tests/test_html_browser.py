"""The HTML report of a real run, in a real browser: headless Chromium from Debian's packages, driven by Selenium."""

from __future__ import annotations

import json
import shutil
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from ctxconform.conformance.judge._verdicts import BAD
from helpers import load_report

FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000")
MISSING = "the browser tests need headless Chromium: install the Debian packages `chromium chromium-driver` (CI installs them)"
# Every matrix row as [requirement, visible], and every cell as [requirement, implementation, data-verdict, shown text].
ROWS_JS = """return Array.from(document.querySelectorAll("tr.requirement"))
  .map(r => [r.dataset.requirement, r.getClientRects().length > 0]);"""
CELLS_JS = """return Array.from(document.querySelectorAll("td.cell"))
  .map(c => [c.dataset.requirement, c.dataset.implementation, c.dataset.verdict, c.innerText.trim()]);"""


@pytest.fixture(scope="module")
def report_dir(comparison: Path) -> Path:
    """The reports of a real run: the reference in-process and over stdio, and a mutant, side by side."""
    return comparison


@pytest.fixture(scope="module")
def report(report_dir: Path) -> dict[str, Any]:
    """The run's report.json."""
    return load_report(report_dir)


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    """Headless Chromium; the tests fail, never skip, when it is not installed."""
    binary, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if binary is None or driver is None:
        pytest.fail(MISSING)
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in FLAGS:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # Both paths given, so Selenium Manager never looks for (or downloads) a browser.
    chrome = webdriver.Chrome(options=options, service=Service(executable_path=driver))
    try:
        yield chrome
    finally:
        chrome.quit()


def open_page(browser: WebDriver, report_dir: Path, fragment: str = "") -> None:
    """Load report.html from a file:// URL, afresh."""
    browser.get("about:blank")
    browser.get_log("browser")  # drop what earlier pages logged
    browser.get((report_dir / "report.html").as_uri() + fragment)


def console_errors(browser: WebDriver) -> list[dict[str, Any]]:
    """What the page logged at error level (script errors, refused loads)."""
    return [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]


def verdicts(report: dict[str, Any]) -> dict[tuple[str, str], str]:
    """(requirement id, implementation index) -> the requirement's verdict in report.json."""
    return {(r["id"], str(i)): r["verdict"] for i, imp in enumerate(report["implementations"]) for r in imp["requirements"]}


def visible_rows(browser: WebDriver) -> dict[str, bool]:
    """Requirement id -> whether its matrix row is shown."""
    return dict(browser.execute_script(ROWS_JS))


def test_every_matrix_cell_shows_the_verdict_in_report_json(browser: WebDriver, report_dir: Path, report: dict[str, Any]) -> None:
    """For every implementation and requirement, the cell's data-verdict and visible text are report.json's verdict."""
    open_page(browser, report_dir)
    cells = browser.execute_script(CELLS_JS)
    assert {(rid, index): verdict for rid, index, verdict, _ in cells} == verdicts(report)
    assert all(verdict == text for _, _, verdict, text in cells)
    assert {(index, verdict) for _, index, verdict, _ in cells} >= {("0", "PASS"), ("1", "PASS"), ("2", "FAIL")}
    assert console_errors(browser) == []


def test_the_verdict_filter_shows_exactly_the_rows_with_that_verdict(
    browser: WebDriver, report_dir: Path, report: dict[str, Any]
) -> None:
    """Choosing FAIL leaves the rows where some implementation fails, says how many, and puts the filter in the URL."""
    open_page(browser, report_dir)
    Select(browser.find_element(By.ID, "filter-verdict")).select_by_value("FAIL")
    failing = {rid for (rid, _), verdict in verdicts(report).items() if verdict == "FAIL"}
    shown = visible_rows(browser)
    assert {rid for rid, visible in shown.items() if visible} == failing
    assert browser.find_element(By.ID, "visible-count").text == f"{len(failing)} of {len(shown)} requirements shown"
    assert browser.current_url.endswith("#verdict=FAIL")
    assert console_errors(browser) == []


def test_a_fragment_in_the_url_sets_the_filters(browser: WebDriver, report_dir: Path, report: dict[str, Any]) -> None:
    """`#level=MUST&failures=1` shows the MUST rows where some implementation has a bad verdict, and sets the controls."""
    open_page(browser, report_dir, "#level=MUST&failures=1")
    levels = {r["id"]: r["level"] for r in report["implementations"][0]["requirements"]}
    bad = {rid for (rid, _), verdict in verdicts(report).items() if verdict in BAD}
    assert {rid for rid, visible in visible_rows(browser).items() if visible} == {rid for rid in bad if levels[rid] == "MUST"}
    assert Select(browser.find_element(By.ID, "filter-level")).first_selected_option.get_attribute("value") == "MUST"
    assert browser.find_element(By.ID, "filter-failures").is_selected()
    assert console_errors(browser) == []


def test_a_failing_cell_opens_its_failure_with_the_replay_command(
    browser: WebDriver, report_dir: Path, report: dict[str, Any]
) -> None:
    """Clicking a FAIL cell opens the details of the failed test, which show the replay command of report.json."""
    open_page(browser, report_dir)
    cell = browser.find_element(By.CSS_SELECTOR, 'td.cell[data-implementation="2"][data-verdict="FAIL"]')
    cell.find_element(By.TAG_NAME, "a").click()
    details = browser.find_element(By.ID, browser.current_url.rsplit("#", 1)[1])
    assert details.get_property("open")
    tests = {t["id"]: t for t in report["implementations"][2]["tests"]}
    test = tests[details.get_attribute("data-test") or ""]
    assert cell.get_attribute("data-requirement") in test["failed_requirements"]
    assert details.find_element(By.CSS_SELECTOR, "code.replay-command").text == test["replay"]
    assert "--seed 7" in test["replay"]
    details.find_element(By.CSS_SELECTOR, "button.copy").click()
    assert details.find_element(By.CSS_SELECTOR, "button.copy").text in ("copied", "selected: press Ctrl+C")
    assert json.loads(details.find_element(By.CSS_SELECTOR, "pre.transcript").text) == test["transcript"]
    assert console_errors(browser) == []


def test_the_page_renders_to_a_screenshot_without_console_errors(browser: WebDriver, report_dir: Path) -> None:
    """The page loads with no script error or refused load, and renders to a PNG saved next to the report."""
    open_page(browser, report_dir, "#verdict=FAIL")
    assert console_errors(browser) == []
    png = report_dir / "report.png"
    assert browser.save_screenshot(str(png))
    data = png.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", data[16:24])
    assert width > 0
    assert height > 0
    assert len(data) > 10_000
