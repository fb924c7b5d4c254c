"""The recent log and recent gaps: the last 10 JSON lines, newest first, shaped as the ADR's records."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance.exceptions import RequirementFailure
from ctxconform.conformance.suites.read_context.client import GAP_DEFAULTS as DEFAULT_GAP_FIELDS
from ctxconform.conformance.suites.read_context.client import (
    Outcome,
    Workspace,
    fresh_workspace,
    gap_core,
    limited_context,
    require,
)

requirement = pytest.mark.requirement
Json = dict[str, Any]
Line = Json | str  # a JSON object, or a malformed line as written

LOG: Final = "log.jsonl"
GAPS: Final = "vocabulary_gaps.jsonl"
OPS: Final = ("snapshot", "checkout", "reset", "branch", "tag")
DEFAULTS: Final = DEFAULT_GAP_FIELDS
PIECE: Final = {LOG: "recent_log", GAPS: "recent_gaps"}
LAST_10: Final = {LOG: "read-context/loading-order/recent-log-last-10", GAPS: "read-context/loading-order/recent-gaps-last-10"}
NEWEST_FIRST: Final = {
    LOG: "read-context/loading-order/recent-log-newest-first",
    GAPS: "read-context/loading-order/recent-gaps-newest-first",
}
SHAPE: Final = {LOG: "read-context/response-shape/log-entry-shape", GAPS: "read-context/response-shape/gap-record-fields"}
GAP_DEFAULTS: Final = "read-context/response-shape/gap-record-defaults"
MALFORMED_ID: Final = "read-context/tolerance/malformed-jsonl-lines"
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
    """The log entry a line becomes."""
    details = {k: v for k, v in line.items() if k not in ("timestamp", "op")}
    return {"timestamp": line.get("timestamp", ""), "op": line.get("op", ""), "details": details}


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
    """The piece of `name`, gap records without workaround (checked against the lines' own)."""
    found: list[Json] = context[PIECE[name]]
    if name == LOG:
        return found
    workarounds = {(line.get("timestamp"), line.get("description")): line.get("workaround", "") for line in objects(lines)}
    return [gap_core(item, workarounds.get((item["timestamp"], item["description"]), "")) for item in found]


def objects(lines: Sequence[Line]) -> list[Json]:
    """The lines that are JSON objects."""
    return [line for line in lines if isinstance(line, dict)]


def check_shapes(name: str, items: list[Json], lines: Sequence[Line]) -> None:
    """Each item is what some line of the file becomes; else the shape (or the gap defaults) requirement fails."""
    candidates = [shaped(name, line) for line in objects(lines)]
    for item in items:
        if item in candidates:
            continue
        if name == GAPS:
            for line in objects(lines):
                wrong = {k for k in set(item) | set(record(line)) if item.get(k) != record(line).get(k)}
                if line.get("description") == item.get("description") and wrong and not wrong & set(line):
                    raise RequirementFailure(GAP_DEFAULTS, f"fields {sorted(wrong)} absent from the line came back as {item}")
        raise RequirementFailure(SHAPE[name], f"{PIECE[name]} holds {item}, which no line of the file becomes")


def check_recent(outcome: Outcome, files: dict[str, list[Json]]) -> None:
    """Each piece is the last 10 lines of its file, newest first, each shaped as the ADR says."""
    context = limited_context(outcome)
    for name, lines in files.items():
        items = items_of(context, name, lines)
        require(len(items) == min(len(lines), 10), LAST_10[name], f"{len(items)} entries for {len(lines)} lines")
        check_shapes(name, items, lines)
        expected = [shaped(name, line) for line in lines][-10:][::-1]
        require(canonical(items) == canonical(expected), LAST_10[name], f"{PIECE[name]} holds other than the last 10 lines")
        require(items == expected, NEWEST_FIRST[name], f"{PIECE[name]} is not in reverse file order: {items}")


def check_readings(context: Json, name: str, lines: Sequence[Line]) -> None:
    """With malformed lines the piece is one reading's list; a right list in the wrong order fails newest-first."""
    items = items_of(context, name, lines)
    check_shapes(name, items, lines)
    good = [shaped(name, line) for line in lines if isinstance(line, dict)]
    among_last_10 = [shaped(name, line) for line in lines[-10:] if isinstance(line, dict)]
    readings = [good[-10:][::-1], among_last_10[::-1], []]
    if items in readings:
        return
    if any(canonical(items) == canonical(reading) for reading in readings):
        raise RequirementFailure(NEWEST_FIRST[name], f"{PIECE[name]} is a reading's list in another order")
    if len(items) < len(readings[0]) and items == readings[0][: len(items)]:
        raise RequirementFailure(LAST_10[name], f"{PIECE[name]} stops after {len(items)} of the last 10 well-formed entries")
    raise RequirementFailure(MALFORMED_ID, f"{PIECE[name]} {items} follows no reading")


@requirement(
    "read-context/loading-order/recent-log-last-10",
    "read-context/loading-order/recent-log-newest-first",
    "read-context/response-shape/log-entry-shape",
    "read-context/consequences/size-bounded",
)
@given(count=st.integers(0, 40), blanks=st.lists(st.booleans(), min_size=41, max_size=41))
def test_log_holds_the_last_10_entries_newest_first(implementation: Implementation, count: int, blanks: list[bool]) -> None:
    """For 0 to 40 log lines (blank lines among them) recent_log is the last 10 entries, last line first."""
    lines = [log_line(n) for n in range(count)]
    text = "".join(("\n" if blank else "") + json.dumps(line) + "\n" for line, blank in zip(lines, blanks, strict=False))
    with fresh_workspace(implementation) as workspace:
        workspace.write(LOG, text + ("\n   \n" if blanks[-1] else ""))
        check_recent(workspace.read(), {LOG: lines})


@requirement(
    "read-context/loading-order/recent-gaps-last-10",
    "read-context/loading-order/recent-gaps-newest-first",
    "read-context/response-shape/gap-record-fields",
    "read-context/response-shape/gap-record-defaults",
    "read-context/consequences/size-bounded",
)
@given(count=st.integers(0, 40), blanks=st.lists(st.booleans(), min_size=41, max_size=41))
def test_gaps_hold_the_last_10_records_newest_first(implementation: Implementation, count: int, blanks: list[bool]) -> None:
    """For 0 to 40 gap lines (blank lines among them) recent_gaps is the last 10 records, last line first."""
    lines = [gap_line(n) for n in range(count)]
    text = "".join(("\n" if blank else "") + json.dumps(line) + "\n" for line, blank in zip(lines, blanks, strict=False))
    with fresh_workspace(implementation) as workspace:
        workspace.write(GAPS, text)
        check_recent(workspace.read(), {GAPS: lines})


@requirement(
    "read-context/loading-order/recent-log-last-10",
    "read-context/loading-order/recent-gaps-last-10",
    "read-context/consequences/size-bounded",
)
@pytest.mark.parametrize("count", [9, 10, 11, 1000])
def test_both_lists_are_cut_at_10(workspace: Workspace, count: int) -> None:
    """9 and 10 lines come back whole; 11 and 1000 lines give their last 10."""
    logs, gaps = [log_line(n) for n in range(count)], [gap_line(n) for n in range(count)]
    workspace.write(LOG, text_of(logs))
    workspace.write(GAPS, text_of(gaps))
    check_recent(workspace.read(), {LOG: logs, GAPS: gaps})


@requirement("read-context/loading-order/recent-log-newest-first", "read-context/loading-order/recent-gaps-newest-first")
def test_newest_first_is_file_order_not_timestamp_order(workspace: Workspace) -> None:
    """Entries come back in reverse file order even when their timestamps are not in order."""
    stamps = ["2026-04-29T12:00:00Z", "2026-04-29T09:00:00Z", "2026-04-30T08:00:00Z", "2026-04-28T23:00:00Z"]
    logs = [{"timestamp": t, "op": "tag", "name": f"t{n}"} for n, t in enumerate(stamps)]
    gaps = [{"timestamp": t, "image_id": "img", "description": f"d{n}"} for n, t in enumerate(stamps)]
    workspace.write(LOG, text_of(logs))
    workspace.write(GAPS, text_of(gaps))
    check_recent(workspace.read(), {LOG: logs, GAPS: gaps})


@requirement(
    "read-context/response-shape/log-entry-shape",
    "read-context/response-shape/structured-top-prose-body",
    "read-context/loading-order/recent-log-newest-first",
)
def test_log_details_hold_every_other_key(workspace: Workspace) -> None:
    """The details are every key besides timestamp and op, nested values and nulls included; {} when there is none."""
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
    ]
    workspace.write(LOG, text_of(lines))
    check_recent(workspace.read(), {LOG: lines})


@requirement(
    "read-context/response-shape/gap-record-fields",
    "read-context/response-shape/structured-top-prose-body",
    "read-context/loading-order/recent-gaps-newest-first",
)
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
    lines = [{**full, "description": f"gap {value}", "satisfaction": value, "private": {"x": 1}} for value in values]
    workspace.write(GAPS, text_of(lines))
    gaps = items_of(workspace.read().context(), GAPS, lines)
    expected = [{**full, "description": f"gap {value}", "satisfaction": value} for value in reversed(values)]
    require(canonical(gaps) == canonical(expected), "read-context/response-shape/gap-record-fields", f"gaps {gaps}")
    require(gaps == expected, "read-context/loading-order/recent-gaps-newest-first", f"gaps {gaps}")


@requirement("read-context/response-shape/gap-record-defaults")
def test_a_minimal_gap_line_gets_the_adr_defaults(workspace: Workspace) -> None:
    """{timestamp, image_id, description} comes back with every other field at the ADR's default."""
    minimal = {"timestamp": "2026-04-29T10:08:00Z", "image_id": "manta", "description": "cannot name blue hour"}
    workspace.write(GAPS, text_of([minimal]))
    gaps = items_of(workspace.read().context(), GAPS, [minimal])
    require(gaps == [{**minimal, **DEFAULTS}], "read-context/response-shape/gap-record-defaults", f"gaps {gaps}")


@requirement("read-context/response-shape/gap-workaround", "read-context/response-shape/gap-record-fields")
def test_workaround_is_absent_or_the_line_value(workspace: Workspace) -> None:
    """A gap record has no workaround, or has the line's workaround ('' when the line has none), in every record alike."""
    lines = [gap_line(1), {**gap_line(2), "workaround": "masked by hand"}]
    workspace.write(GAPS, text_of(lines))
    gaps = workspace.read().context()["recent_gaps"]
    require(len(gaps) == 2, "read-context/response-shape/gap-record-fields", f"{len(gaps)} records")
    newest, oldest = gap_core(gaps[0], "masked by hand"), gap_core(gaps[1], "")
    require(
        ("workaround" in gaps[0]) == ("workaround" in gaps[1]),
        "read-context/response-shape/gap-workaround",
        "workaround in one record only",
    )
    require(
        [newest, oldest] == [record(lines[1]), record(lines[0])],
        "read-context/response-shape/gap-record-fields",
        f"gaps {[newest, oldest]}",
    )


@requirement(
    "read-context/loading-order/recent-log-last-10",
    "read-context/loading-order/recent-gaps-last-10",
)
@pytest.mark.parametrize("blank", ["", "   ", "\t", " \t "], ids=["empty", "spaces", "tab", "mixed"])
def test_blank_lines_are_not_entries(workspace: Workspace, blank: str) -> None:
    """Empty and whitespace-only lines, anywhere and many, are not entries and do not count towards 10."""
    logs, gaps = [log_line(n) for n in range(12)], [gap_line(n) for n in range(12)]
    pad = f"{blank}\n" * 15
    workspace.write(LOG, pad + pad.join(json.dumps(line) + "\n" for line in logs) + pad)
    workspace.write(GAPS, pad + pad.join(json.dumps(line) + "\n" for line in gaps) + pad)
    check_recent(workspace.read(), {LOG: logs, GAPS: gaps})


MALFORMED: Final = ["{not json", '{"op": "tag"', "[1, 2]", "42", '"a string"', "null", "true", "}{", '{"a": 1}{"b": 2}']


@requirement(
    "read-context/tolerance/malformed-jsonl-lines",
    "read-context/loading-order/recent-log-newest-first",
    "read-context/loading-order/recent-gaps-newest-first",
    "read-context/loading-order/recent-log-last-10",
    "read-context/loading-order/recent-gaps-last-10",
)
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
    context = limited_context(workspace.read(), MALFORMED_ID)
    check_readings(context, LOG, logs)
    check_readings(context, GAPS, gaps)


def is_json_object(text: str) -> bool:
    """Whether a line parses as a JSON object (generated text rarely does; such lines are left out)."""
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


@requirement(
    "read-context/tolerance/malformed-jsonl-lines",
    "read-context/loading-order/recent-log-newest-first",
    "read-context/loading-order/recent-log-last-10",
)
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
        context = limited_context(workspace.read(), MALFORMED_ID)
    check_readings(context, LOG, logs)
