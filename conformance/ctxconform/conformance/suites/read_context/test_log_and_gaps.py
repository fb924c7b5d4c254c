"""The recent log and recent gaps: the last 10 JSON lines, newest first, shaped as the ADR's records."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance.suites.read_context import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.read_context.client import GAP_DEFAULTS as DEFAULT_GAP_FIELDS
from ctxconform.conformance.suites.read_context.client import (
    Workspace,
    fresh_workspace,
    gap_core,
    log_details,
    log_entry,
    newest_first,
    origin_details,
    within_limits,
)
from ctxconform.conformance.testing import Checked, Implementation, check, check_equal, check_in, requirement

Json = dict[str, Any]
Line = Json | str  # a JSON object, or a malformed line as written

LOG: Final = "log.jsonl"
GAPS: Final = "vocabulary_gaps.jsonl"
OPS: Final = ("snapshot", "checkout", "reset", "branch", "tag")
DEFAULTS: Final = DEFAULT_GAP_FIELDS
PIECE: Final = {LOG: "recent_log", GAPS: "recent_gaps"}
LAST_10: Final = {LOG: R.LOADING_ORDER_RECENT_LOG_LAST_10, GAPS: R.LOADING_ORDER_RECENT_GAPS_LAST_10}
NEWEST_FIRST: Final = {LOG: R.LOADING_ORDER_RECENT_LOG_NEWEST_FIRST, GAPS: R.LOADING_ORDER_RECENT_GAPS_NEWEST_FIRST}
SHAPE: Final = {LOG: R.RESPONSE_SHAPE_LOG_ENTRY_SHAPE, GAPS: R.RESPONSE_SHAPE_GAP_RECORD_FIELDS}
MALFORMED_ID: Final = R.TOLERANCE_MALFORMED_JSONL_LINES
MISSING: Final = R.RESPONSE_SHAPE_LOG_ENTRY_MISSING_FIELDS
# The keys of the ADR's gap record (workaround, which gap_core checks and removes, aside).
RECORD_KEYS: Final = frozenset({"timestamp", "image_id", "description", *DEFAULTS})
# What check_recent checks of each file.
CHECKS: Final = {
    LOG: (LAST_10[LOG], NEWEST_FIRST[LOG], SHAPE[LOG]),
    GAPS: (
        LAST_10[GAPS],
        NEWEST_FIRST[GAPS],
        SHAPE[GAPS],
        R.RESPONSE_SHAPE_GAP_RECORD_DEFAULTS,
        R.RESPONSE_SHAPE_GAP_WORKAROUND,
    ),
}
# Characters of generated lines: none that any line splitter (str.splitlines included) breaks at.
line_chars = st.characters(exclude_characters="\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029", exclude_categories=["Cs"])


def log_line(n: int) -> Json:
    """The n-th log line: timestamp, op and details."""
    return {"timestamp": f"2026-04-29T10:{n // 60:02d}:{n % 60:02d}Z", "op": OPS[n % len(OPS)], "seq": n, "ref": f"r{n}"}


def gap_line(n: int) -> Json:
    """The n-th gap line: the required fields and one optional field."""
    return {
        "timestamp": f"2026-04-29T11:{n // 60:02d}:{n % 60:02d}Z",
        "image_id": "img",
        "description": f"gap {n}",
        "notes": f"n{n}",
    }


def entry(line: Json) -> Json:
    """The log entry a line becomes (details as the origin reads them: log-entry-shape's other reading is read back)."""
    return log_entry(line)


def record(line: Json) -> Json:
    """The gap record a line becomes (without workaround)."""
    return {**DEFAULTS, **{k: v for k, v in line.items() if k != "workaround"}}


def shaped(name: str, line: Json) -> Json:
    """What a line of `name` becomes in the response."""
    return entry(line) if name == LOG else record(line)


def text_of(lines: Sequence[Line]) -> str:
    """The file: JSON objects dumped one per line, malformed lines as written."""
    return "".join((json.dumps(line) if isinstance(line, dict) else line) + "\n" for line in lines)


def canonical(items: list[Json]) -> list[str]:
    """The items as sorted JSON texts: equal for the same entries in any order and with any key order."""
    return sorted(json.dumps(item, sort_keys=True) for item in items)


def items_of(context: Json, name: str, lines: Sequence[Line]) -> list[Json]:
    """The piece of `name`, as the origin's readings give it, for comparing with the lines.

    A null timestamp or op is read as '' (log-entry-missing-fields'), details that are the line's own details object
    as the line's other keys (log-entry-shape's readings); gap records come without workaround.
    """
    found: list[Json] = context[PIECE[name]]
    if name == LOG:
        items = [{**item, **{key: "" for key in ("timestamp", "op") if item.get(key) is None}} for item in found]
        return origin_details(items, objects(lines))
    workarounds = {(line.get("timestamp"), line.get("description")): line.get("workaround", "") for line in objects(lines)}
    return [gap_core(item, workarounds.get((item["timestamp"], item["description"]), "")) for item in found]


def objects(lines: Sequence[Line]) -> list[Json]:
    """The lines that are JSON objects."""
    return [line for line in lines if isinstance(line, dict)]


def check_shapes(name: str, items: list[Json], lines: Sequence[Line]) -> None:
    """Each item is what some line of the file becomes: a log entry as a whole, a gap record field by field."""
    if name == LOG:
        candidates = [shaped(name, line) for line in objects(lines)]
        for item in items:
            check(SHAPE[LOG], item in candidates, "recent_log holds an entry no line of the file becomes", received=item)
        return
    for item in items:
        line = next((ln for ln in objects(lines) if ln.get("description") == item.get("description")), {})
        written = {key: item.get(key) for key in line if key in RECORD_KEYS}
        check(
            SHAPE[GAPS],
            written == {key: value for key, value in line.items() if key in RECORD_KEYS} and set(item) <= RECORD_KEYS,
            "a gap record does not hold its line's fields (or holds other keys)",
            received=item,
            expected=line,
        )
        absent = {key: item.get(key, "(absent)") for key in DEFAULTS if key not in line}
        check_equal(
            R.RESPONSE_SHAPE_GAP_RECORD_DEFAULTS, absent, {key: DEFAULTS[key] for key in absent}, "the fields the line lacks"
        )


def identity(name: str, item: Json) -> str:
    """What names a line's entry: timestamp and op (a missing one read as ''), or a gap's description."""
    if name == LOG:
        return json.dumps([item.get("timestamp") or "", item.get("op") or ""])
    return json.dumps(item.get("description"))


def check_recent(checked: Checked, files: dict[str, list[Json]]) -> None:
    """Each piece is the last 10 lines of its file, newest first, each shaped as the ADR says."""
    context = within_limits(checked, LAST_10[next(iter(files))], *(PIECE[name] for name in files))
    for name, lines in files.items():
        items = items_of(context, name, lines)
        check_equal(LAST_10[name], len(items), min(len(lines), 10), f"the number of entries of {PIECE[name]}")
        check_shapes(name, items, lines)
        expected = [shaped(name, line) for line in lines][-10:][::-1]
        check_equal(LAST_10[name], canonical(items), canonical(expected), f"{PIECE[name]}, in any order")
        message = f"{PIECE[name]} is neither in reverse file order nor newest first by timestamp"
        check(NEWEST_FIRST[name], newest_first(items, expected), message, received=items, expected=expected)


def check_readings(context: Json, name: str, lines: Sequence[Line]) -> None:
    """With malformed lines the piece is one reading's list; a right list in the wrong order fails newest-first."""
    items = items_of(context, name, lines)
    # First, before the shapes: each JSON object line gives at most one entry, so more entries naming a line than there
    # are such lines (the suite's lines name themselves by timestamp and op, or description) came from other lines.
    named = Counter(identity(name, line) for line in objects(lines))
    extra = Counter(identity(name, item) for item in items) - named
    message = f"{PIECE[name]} holds entries that no JSON object line gives: a line that is not an object became one"
    check(MALFORMED_ID, not extra, message, received=items)
    check_shapes(name, items, lines)
    good = [shaped(name, line) for line in lines if isinstance(line, dict)]
    among_last_10 = [shaped(name, line) for line in lines[-10:] if isinstance(line, dict)]
    readings = [good[-10:][::-1], among_last_10[::-1], []]
    right = any(newest_first(items, reading) for reading in readings)
    reordered = any(canonical(items) == canonical(reading) for reading in readings)
    check(NEWEST_FIRST[name], right or not reordered, f"{PIECE[name]} is a reading's list in another order", received=items)
    recent = [*good[-10:], *among_last_10]
    check(LAST_10[name], right or all(item in recent for item in items), f"{PIECE[name]} holds older entries", received=items)
    cut = len(items) < len(readings[0]) and items == readings[0][: len(items)]
    check(LAST_10[name], right or not cut, f"{PIECE[name]} stops before the last 10 well-formed entries", received=items)
    check(MALFORMED_ID, right, f"{PIECE[name]} follows no reading", received=items, expected={"one of": readings})


@requirement(*CHECKS[LOG])
@given(count=st.integers(0, 40), blanks=st.lists(st.booleans(), min_size=41, max_size=41))
def test_log_holds_the_last_10_entries_newest_first(implementation: Implementation, count: int, blanks: list[bool]) -> None:
    """For 0 to 40 log lines (blank lines among them) recent_log is the last 10 entries, last line first."""
    lines = [log_line(n) for n in range(count)]
    text = "".join(("\n" if blank else "") + json.dumps(line) + "\n" for line, blank in zip(lines, blanks, strict=False))
    with fresh_workspace(implementation) as workspace:
        workspace.write(LOG, text + ("\n   \n" if blanks[-1] else ""))
        check_recent(workspace.read(LAST_10[LOG]), {LOG: lines})


@requirement(*CHECKS[GAPS])
@given(count=st.integers(0, 40), blanks=st.lists(st.booleans(), min_size=41, max_size=41))
def test_gaps_hold_the_last_10_records_newest_first(implementation: Implementation, count: int, blanks: list[bool]) -> None:
    """For 0 to 40 gap lines (blank lines among them) recent_gaps is the last 10 records, last line first."""
    lines = [gap_line(n) for n in range(count)]
    text = "".join(("\n" if blank else "") + json.dumps(line) + "\n" for line, blank in zip(lines, blanks, strict=False))
    with fresh_workspace(implementation) as workspace:
        workspace.write(GAPS, text)
        check_recent(workspace.read(LAST_10[GAPS]), {GAPS: lines})


@requirement(*CHECKS[LOG], *CHECKS[GAPS], R.CONSEQUENCES_SIZE_BOUNDED)
@pytest.mark.parametrize("count", [9, 10, 11, 1000])
def test_both_lists_are_cut_at_10(workspace: Workspace, count: int) -> None:
    """9 and 10 lines come back whole; 11 and 1000 lines give their last 10."""
    logs, gaps = [log_line(n) for n in range(count)], [gap_line(n) for n in range(count)]
    workspace.write(LOG, text_of(logs))
    workspace.write(GAPS, text_of(gaps))
    check_recent(workspace.read(LAST_10[LOG]), {LOG: logs, GAPS: gaps})
    context = workspace.context(R.CONSEQUENCES_SIZE_BOUNDED)
    sizes = [len(context["recent_log"]), len(context["recent_gaps"])]
    check(R.CONSEQUENCES_SIZE_BOUNDED, max(sizes) <= 10, "a list holds more than 10 entries", received=sizes)


@requirement(*CHECKS[LOG], *CHECKS[GAPS])
def test_newest_first_follows_a_reading(workspace: Workspace) -> None:
    """Entries whose timestamps are not in file order come back in reverse file order, or by timestamp newest first."""
    stamps = ["2026-04-29T12:00:00Z", "2026-04-29T09:00:00Z", "2026-04-30T08:00:00Z", "2026-04-28T23:00:00Z"]
    logs = [{"timestamp": t, "op": "tag", "name": f"t{n}"} for n, t in enumerate(stamps)]
    gaps = [{"timestamp": t, "image_id": "img", "description": f"d{n}"} for n, t in enumerate(stamps)]
    workspace.write(LOG, text_of(logs))
    workspace.write(GAPS, text_of(gaps))
    # The timestamps are distinct: each reading allows one order, and any other order fails newest-first.
    check_recent(workspace.read(NEWEST_FIRST[LOG]), {LOG: logs, GAPS: gaps})


@requirement(*CHECKS[LOG], MISSING)
def test_log_details_follow_a_reading(workspace: Workspace) -> None:
    """The details follow a reading of log-entry-shape, the same for every entry.

    Every key besides timestamp and op (nested values and nulls included; {} when there is none), or the line's own
    details object ({} when there is none).
    """
    lines: list[Json] = [
        {"timestamp": "2026-04-29T10:00:00Z", "op": "snapshot"},
        {
            "op": "branch",
            "timestamp": "2026-04-29T10:01:00Z",
            "name": "cool-wb",
            "parent": None,
            "meta": {"tags": ["a", "b"], "depth": 2, "ok": True},
            "score": 0.5,
        },
        {"op": "reset", "hash": "a1b2"},
        {"timestamp": "2026-04-29T10:03:00Z", "note": "no op"},
        {"unrelated": 1},
        {"timestamp": "2026-04-29T10:05:00Z", "op": "tag", "details": {"name": "v1", "meta": {"a": [1, None]}}, "by": "me"},
        {"timestamp": "2026-04-29T10:06:00Z", "op": "note", "details": {}},
    ]
    workspace.write(LOG, text_of(lines))
    checked = workspace.read(SHAPE[LOG])
    check_recent(checked, {LOG: lines})
    # Each entry's line, found by the entry as the origin reads it (check_recent checked that every entry has one).
    found = checked.result["recent_log"]
    by_entry = {json.dumps(entry(line), sort_keys=True): line for line in lines}
    owners = [by_entry[json.dumps(item, sort_keys=True)] for item in items_of(checked.result, LOG, lines)]
    followed = [
        {n for n, details in enumerate(log_details(line)) if item["details"] == details}
        for item, line in zip(found, owners, strict=True)
    ]
    check(SHAPE[LOG], bool(set.intersection(*followed)), "the entries' details follow different readings", received=found)
    # What the two lines lacking a timestamp and the two lacking an op give.
    missing = [item[key] for item, line in zip(found, owners, strict=True) for key in ("timestamp", "op") if key not in line]
    check_in(MISSING, missing, [[""] * 4, [None] * 4], "the missing timestamps and ops")


@requirement(SHAPE[GAPS], NEWEST_FIRST[GAPS], R.RESPONSE_SHAPE_GAP_WORKAROUND, LAST_10[GAPS])
def test_gap_fields_hold_the_line_values(workspace: Workspace) -> None:
    """Every field of a full gap line comes back with its value; keys outside the record are not passed through."""
    full = {
        "timestamp": "2026-04-29T10:07:00Z",
        "image_id": "manta",
        "session_id": "s-1",
        "snapshot_hash": "a1b2",
        "description": "no graduated red restore",
        "intent": "reds near the surface",
        "intent_category": "color",
        "missing_capability": "graduated mask",
        "operations_involved": ["white_balance", "mask"],
        "vocabulary_used": ["warm"],
        "satisfaction": 1,
        "notes": "two snapshots",
    }
    values = (-1, 0, 1, None)
    # Distinct timestamps, in file order: both readings of newest-first give one order.
    lines = [
        {**full, "timestamp": f"2026-04-29T10:0{n}:00Z", "description": f"gap {value}", "satisfaction": value, "private": {}}
        for n, value in enumerate(values)
    ]
    workspace.write(GAPS, text_of(lines))
    gaps = items_of(workspace.context(SHAPE[GAPS]), GAPS, lines)
    check_equal(LAST_10[GAPS], len(gaps), len(lines), "the number of gap records")
    expected = [{key: value for key, value in line.items() if key != "private"} for line in reversed(lines)]
    check_equal(SHAPE[GAPS], canonical(gaps), canonical(expected), "recent_gaps, in any order")
    check_equal(NEWEST_FIRST[GAPS], gaps, expected, "recent_gaps")


@requirement(R.RESPONSE_SHAPE_GAP_RECORD_DEFAULTS, R.RESPONSE_SHAPE_GAP_WORKAROUND, LAST_10[GAPS])
def test_a_minimal_gap_line_gets_the_adr_defaults(workspace: Workspace) -> None:
    """{timestamp, image_id, description} comes back with every other field at the ADR's default."""
    minimal = {"timestamp": "2026-04-29T10:08:00Z", "image_id": "manta", "description": "cannot name blue hour"}
    workspace.write(GAPS, text_of([minimal]))
    gaps = items_of(workspace.context(R.RESPONSE_SHAPE_GAP_RECORD_DEFAULTS), GAPS, [minimal])
    check_equal(LAST_10[GAPS], len(gaps), 1, "the number of gap records")
    # The fields the line lacks: the line's own fields are gap-record-fields'.
    absent = [{key: gap.get(key, "(absent)") for key in DEFAULTS} for gap in gaps]
    check_equal(R.RESPONSE_SHAPE_GAP_RECORD_DEFAULTS, absent, [DEFAULTS], "the fields the line lacks, in recent_gaps")


@requirement(R.RESPONSE_SHAPE_GAP_WORKAROUND, SHAPE[GAPS], LAST_10[GAPS], R.RESPONSE_SHAPE_GAP_RECORD_DEFAULTS)
def test_workaround_is_absent_or_the_line_value(workspace: Workspace) -> None:
    """A gap record has no workaround, or has the line's workaround ('' when the line has none), in every record alike."""
    lines = [gap_line(1), {**gap_line(2), "workaround": "masked by hand"}]
    workspace.write(GAPS, text_of(lines))
    gaps = workspace.context(R.RESPONSE_SHAPE_GAP_WORKAROUND)["recent_gaps"]
    check_equal(LAST_10[GAPS], len(gaps), 2, "the number of records")
    # Each record by its description, not by position: the order is newest-first's.
    by_description = {record.get("description"): record for record in gaps}
    newest = gap_core(by_description.get(lines[1]["description"], {}), "masked by hand")
    oldest = gap_core(by_description.get(lines[0]["description"], {}), "")
    check(
        R.RESPONSE_SHAPE_GAP_WORKAROUND,
        ("workaround" in gaps[0]) == ("workaround" in gaps[1]),
        "workaround is in one record only",
        received=gaps,
    )
    check_shapes(GAPS, [newest, oldest], lines)
    check_equal(SHAPE[GAPS], [newest, oldest], [record(lines[1]), record(lines[0])], "recent_gaps without workaround")


@requirement(*CHECKS[LOG], *CHECKS[GAPS])
@pytest.mark.parametrize("blank", ["", "   ", "\t", " \t "], ids=["empty", "spaces", "tab", "mixed"])
def test_blank_lines_are_not_entries(workspace: Workspace, blank: str) -> None:
    """Empty and whitespace-only lines, anywhere and many, are not entries and do not count towards 10."""
    logs, gaps = [log_line(n) for n in range(12)], [gap_line(n) for n in range(12)]
    pad = f"{blank}\n" * 15
    workspace.write(LOG, pad + pad.join(json.dumps(line) + "\n" for line in logs) + pad)
    workspace.write(GAPS, pad + pad.join(json.dumps(line) + "\n" for line in gaps) + pad)
    check_recent(workspace.read(LAST_10[LOG]), {LOG: logs, GAPS: gaps})


MALFORMED: Final = ["{not json", '{"op": "tag"', "[1, 2]", "42", '"a string"', "null", "true", "}{", '{"a": 1}{"b": 2}']


@requirement(MALFORMED_ID, *CHECKS[LOG], *CHECKS[GAPS])
@pytest.mark.parametrize("bad", MALFORMED)
def test_a_malformed_line_follows_a_reading(workspace: Workspace, bad: str) -> None:
    """Invalid JSON and JSON that is not an object, among 14 good lines, are skipped or empty the list; never an error."""
    logs: list[Line] = [log_line(n) for n in range(14)]
    gaps: list[Line] = [gap_line(n) for n in range(14)]
    for lines in (logs, gaps):
        lines[3:3] = [bad]
        lines[10:10] = [bad, bad]
        lines.append(bad)
    workspace.write(LOG, text_of(logs))
    workspace.write(GAPS, text_of(gaps))
    context = within_limits(workspace.read(MALFORMED_ID), MALFORMED_ID, PIECE[LOG], PIECE[GAPS])
    check_readings(context, LOG, logs)
    check_readings(context, GAPS, gaps)


def is_json_object(text: str) -> bool:
    """Whether a line parses as a JSON object (generated text rarely does; such lines are left out)."""
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


@requirement(MALFORMED_ID, *CHECKS[LOG])
@given(shape=st.lists(st.one_of(st.just("good"), st.sampled_from(MALFORMED), st.text(line_chars, max_size=20)), max_size=30))
def test_generated_malformed_lines_follow_a_reading(implementation: Implementation, shape: list[str]) -> None:
    """Any mix of good lines, malformed lines and arbitrary text gives one of the readings' lists, never an error."""
    logs: list[Line] = []
    for n, kind in enumerate(shape):
        if kind == "good":
            logs.append(log_line(n))
        elif kind.strip() and not is_json_object(kind):
            logs.append(kind)
    with fresh_workspace(implementation) as workspace:
        workspace.write(LOG, text_of(logs))
        context = within_limits(workspace.read(MALFORMED_ID), MALFORMED_ID, PIECE[LOG])
    check_readings(context, LOG, logs)
