"""Edge files: records written by someone else with nulls and wrong types, lines at block boundaries, degenerate texts."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

import pytest

from ctxconform.conformance.suites.read_context import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.read_context.client import (
    GAP_DEFAULTS,
    Workspace,
    as_text,
    check_line_breaks,
    gap_core,
    log_details,
    raw_of,
    taste_text,
    taste_texts,
)
from ctxconform.conformance.suites.read_context.notes import LONG, SHORT, check_notes
from ctxconform.conformance.suites.read_context.test_log_and_gaps import CHECKS, check_readings, check_recent
from ctxconform.conformance.testing import DEGENERATE_TEXTS, WRONG_TYPES, check, check_equal, check_in, edge, requirement

Json = dict[str, Any]

LOG: Final = "log.jsonl"
GAPS: Final = "vocabulary_gaps.jsonl"
FIELDS: Final = R.RESPONSE_SHAPE_GAP_RECORD_FIELDS
LOG_SHAPE: Final = R.RESPONSE_SHAPE_LOG_ENTRY_SHAPE
MISSING: Final = R.RESPONSE_SHAPE_LOG_ENTRY_MISSING_FIELDS
MALFORMED: Final = R.TOLERANCE_MALFORMED_JSONL_LINES

# --- stored records: nulls and wrong types in lines written by someone else -----------------------------

# Values of every JSON type for every field: each either fits the field's type (and must come back as written) or not.
STORED: Final[list[Any]] = [*WRONG_TYPES, "mask", "None", " ", 5, -2, 2**64]
NULLABLE: Final = frozenset({"timestamp", "image_id", "session_id", "snapshot_hash", "intent", "missing_capability"})
LISTS: Final = frozenset({"operations_involved", "vocabulary_used"})
GAP_FIELDS: Final = ("timestamp", "image_id", "description", *GAP_DEFAULTS)
# What a field that does not fit gives: the ADR's default; the required fields, which have none, '' or null.
FALLBACK: Final[dict[str, list[Any]]] = {
    **{field: [default] for field, default in GAP_DEFAULTS.items()},
    "timestamp": [None, ""],
    "image_id": [None, ""],
    "description": [""],
}


def fits(field: str, value: Any) -> bool:
    """Whether `value` has the type the record gives `field` (satisfaction: -1, 0, 1 or null; no bool as a number)."""
    if field == "satisfaction":
        return value is None or (type(value) is int and value in (-1, 0, 1))
    if field in LISTS:
        return isinstance(value, list) and all(isinstance(item, str) for item in value)
    return isinstance(value, str) or (value is None and field in NULLABLE)


def same(found: Any, wanted: Any) -> bool:
    """Equal as JSON: true is not 1, 1.0 is not 1."""
    return json.dumps(found, sort_keys=True) == json.dumps(wanted, sort_keys=True)


def chunks(values: list[Any], size: int = 10) -> list[list[Any]]:
    """`values` in runs of at most `size`: each run fits in the last 10 entries."""
    return [values[start : start + size] for start in range(0, len(values), size)]


@edge("stored-records")
@requirement(FIELDS, R.LOADING_ORDER_RECENT_GAPS_LAST_10, R.RESPONSE_SHAPE_GAP_WORKAROUND)
@pytest.mark.parametrize("field", GAP_FIELDS)
def test_a_gap_field_of_any_type_comes_back_as_written_or_its_default(workspace: Workspace, field: str) -> None:
    """A gap field of any JSON type comes back as the line's value if that fits the record, else as its default."""
    # Each record is matched to its line by a text field of its own (not by position: the order is newest-first's).
    name = "notes" if field == "description" else "description"
    for values in chunks(STORED):
        lines = [
            {"timestamp": f"2026-04-29T11:00:{n:02d}Z", "image_id": "i", name: f"d{n}", field: value}
            for n, value in enumerate(values)
        ]
        workspace.write(GAPS, "".join(json.dumps(line) + "\n" for line in lines))
        gaps = workspace.context(FIELDS)["recent_gaps"]
        check_equal(R.LOADING_ORDER_RECENT_GAPS_LAST_10, len(gaps), len(lines), "the number of gap records")
        written = {line[name]: line[field] for line in lines}
        for record in gaps:
            check(FIELDS, gap_core(record).get(name) in written, f"a record's {name} is no line's", received=record)
            value = written[gap_core(record)[name]]
            found = gap_core(record).get(field, "(absent)")
            allowed = [value] if fits(field, value) else FALLBACK[field]
            message = f"{field} written as {json.dumps(value)} came back as neither the line's value nor the default"
            check(FIELDS, any(same(found, a) for a in allowed), message, received=found, expected={"one of": allowed})


@edge("stored-records")
@requirement(LOG_SHAPE, MISSING, R.LOADING_ORDER_RECENT_LOG_LAST_10)
@pytest.mark.parametrize("field", ["timestamp", "op"])
def test_a_log_timestamp_or_op_of_any_type_never_comes_back_as_its_python_text(workspace: Workspace, field: str) -> None:
    """A null timestamp or op is '' or null, never "None"; another type is '', null or its JSON text; details never hold it."""
    odd = {"__proto__": {"polluted": True}, "constructor": None, "Timestamp": "T", "op ": 1}
    # Each entry is matched to its line by the other of timestamp and op (not by position: the order is newest-first's).
    name = "op" if field == "timestamp" else "timestamp"
    for values in chunks(STORED):
        lines = [
            {"timestamp": f"2026-04-29T10:00:{n:02d}Z", "op": f"op{n}", "n": n, **odd, "details": {"n": n, **odd}, field: value}
            for n, value in enumerate(values)
        ]
        workspace.write(LOG, "".join(json.dumps(line) + "\n" for line in lines))
        log = workspace.context(LOG_SHAPE)["recent_log"]
        check_equal(R.LOADING_ORDER_RECENT_LOG_LAST_10, len(log), len(lines), "the number of log entries")
        by_name = {line[name]: line for line in lines}
        for entry in log:
            line = by_name.get(entry[name], {})
            check(LOG_SHAPE, bool(line), f"an entry's {name} is no line's", received=entry)
            value = line[field]
            message = "details are neither the line's other keys nor its details object"
            check(LOG_SHAPE, any(same(entry["details"], d) for d in log_details(line)), message, received=entry)
            if value is None:
                check_in(MISSING, entry[field], ["", None], f"a null {field}")
                continue
            allowed = [value] if isinstance(value, str) else ["", None, json.dumps(value)]
            message = f"{field} written as {json.dumps(value)} came back as something else"
            check(LOG_SHAPE, any(same(entry[field], a) for a in allowed), message, received=entry, expected={"one of": allowed})


# JSON lines that are not objects, some of which a mapping constructor still accepts (pairs, an empty string).
NOT_OBJECTS: Final = ["[]", '[["op", "tag"], ["timestamp", "t"]]', '""', '["ab"]', "null", "0", "[{}]"]


@edge("stored-records")
@requirement(MALFORMED, *CHECKS[LOG])
@pytest.mark.parametrize("bad", NOT_OBJECTS)
def test_json_that_is_not_an_object_is_never_an_entry(workspace: Workspace, bad: str) -> None:
    """A line of JSON that is not an object (a list of pairs, an empty string) is never an entry; {} is one."""
    logs: list[Json | str] = [{"op": "tag", "timestamp": f"2026-04-29T10:00:{n:02d}Z", "n": n} for n in range(12)]
    logs[2:2] = [bad]
    logs[8:8] = [{}, bad]
    logs.append(bad)
    workspace.write(LOG, "".join((json.dumps(line) if isinstance(line, dict) else line) + "\n" for line in logs))
    check_readings(workspace.context(MALFORMED), LOG, logs)


@edge("stored-records")
@requirement(R.RESPONSE_SHAPE_GAP_RECORD_DEFAULTS, FIELDS, R.RESPONSE_SHAPE_GAP_WORKAROUND, R.LOADING_ORDER_RECENT_GAPS_LAST_10)
def test_an_empty_gap_object_gets_every_default(workspace: Workspace) -> None:
    """A gap line {} is a record with the ADR's defaults, and '' or null for the fields that have none."""
    workspace.write(GAPS, "{}\n")
    gaps = [gap_core(record) for record in workspace.context(FIELDS)["recent_gaps"]]
    check_equal(R.LOADING_ORDER_RECENT_GAPS_LAST_10, len(gaps), 1, "the number of gap records")
    defaults = {key: gaps[0].get(key, "(absent)") for key in GAP_DEFAULTS}
    check_equal(R.RESPONSE_SHAPE_GAP_RECORD_DEFAULTS, defaults, GAP_DEFAULTS, "the optional fields of {}")
    for field in ("timestamp", "image_id", "description"):
        check_in(FIELDS, gaps[0].get(field, "(absent)"), FALLBACK[field], f"{field} of {{}}")


# --- boundaries: the last 10 lines take exactly a common block size, one byte less or more -----------------


def sized_lines(make: Callable[[int, str], Json], total: int, ending: str) -> list[Json]:
    """Two older lines, then 10 whose text with `ending` takes exactly `total` bytes."""
    base = [len(json.dumps(make(n, "")) + ending) for n in range(2, 12)]
    extra = total - sum(base)
    pads = [extra // 10 + (1 if n < extra % 10 else 0) for n in range(10)]
    return [make(0, "old"), make(1, "old")] + [make(n + 2, "p" * pad) for n, pad in enumerate(pads)]


def log_of(n: int, pad: str) -> Json:
    """A log line with padding in its details."""
    return {"timestamp": f"2026-04-29T10:00:{n:02d}Z", "op": "tag", "n": n, "pad": pad}


def gap_of(n: int, pad: str) -> Json:
    """A gap line with padding in its notes."""
    return {"timestamp": f"2026-04-29T11:00:{n:02d}Z", "image_id": "img", "description": f"gap {n}", "notes": pad}


@edge("boundaries")
@requirement(*CHECKS[LOG], *CHECKS[GAPS])
@pytest.mark.parametrize("ending", ["\n", "\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize("delta", [-1, 0, 1], ids=["under", "at", "over"])
@pytest.mark.parametrize("block", [4096, 8192, 65536])
def test_the_last_10_lines_across_a_block_boundary(workspace: Workspace, block: int, delta: int, ending: str) -> None:
    """When the last 10 lines take a common block size exactly, one byte less or one more, all 10 come back."""
    logs, gaps = sized_lines(log_of, block + delta, ending), sized_lines(gap_of, block + delta, ending)
    workspace.write(LOG, "".join(json.dumps(line) + ending for line in logs))
    workspace.write(GAPS, "".join(json.dumps(line) + ending for line in gaps))
    check_recent(workspace.read(R.LOADING_ORDER_RECENT_LOG_LAST_10), {LOG: logs, GAPS: gaps})


@edge("boundaries")
@requirement(*CHECKS[LOG], *CHECKS[GAPS])
@pytest.mark.parametrize(
    "delta",
    [
        pytest.param(-1, id="under", marks=requirement(*SHORT)),
        pytest.param(0, id="at", marks=requirement(*SHORT)),
        pytest.param(1, id="over", marks=requirement(*LONG)),
    ],
)
def test_every_limit_at_once(workspace: Workspace, delta: int) -> None:
    """Notes of 40 lines and 10 log and gap lines, all one under, at or one over together, each follow their own rule."""
    notes = "".join(f"note {n}\r\n" for n in range(40 + delta))
    logs = [log_of(n, "") for n in range(10 + delta)]
    gaps = [gap_of(n, "") for n in range(10 + delta)]
    workspace.write("notes.md", notes)
    workspace.write(LOG, "\n".join(json.dumps(line) for line in logs) + "\n\n")
    workspace.write(GAPS, "\n".join(json.dumps(line) for line in gaps))
    checked = workspace.read(R.LOADING_ORDER_RECENT_LOG_LAST_10)
    check_recent(checked, {LOG: logs, GAPS: gaps})
    check_notes(checked.result["notes"], notes)


# --- degenerate texts: empty, white space only, line breaks only --------------------------------------

DEGENERATE_IDS: Final = [repr(text) for text in DEGENERATE_TEXTS]


@edge("degenerate")
@requirement(*SHORT)
@pytest.mark.parametrize("text", DEGENERATE_TEXTS, ids=DEGENERATE_IDS)
def test_degenerate_notes_come_back_raw(workspace: Workspace, text: str) -> None:
    """Notes that are empty, white space or line breaks only come back as written, not truncated."""
    workspace.write("notes.md", text)
    check_notes(workspace.context(R.SUMMARIZATION_SHORT_NOTES_RAW)["notes"], text)


ONLY_DECLARATIONS: Final = [
    ("Tastes: underwater", ["underwater"]),
    ("Tastes: underwater\n", ["underwater"]),
    ("\n\nTastes: underwater\n\n", ["underwater"]),
    ("\r\nTastes: underwater\r\n", ["underwater"]),
    ("Tastes:", []),
    ("Tastes:\n", []),
    ("Tastes: , ,\n", []),
]
BRIEFS: Final = [*((text, []) for text in DEGENERATE_TEXTS), *ONLY_DECLARATIONS]


def bare(text: str) -> str:
    """A text without surrounding white space or byte order mark (whether a BOM is white space differs by language)."""
    return text.strip().strip("\ufeff").strip()


@edge("degenerate")
@requirement(
    R.RESPONSE_SHAPE_BRIEF_RAW,
    R.RESPONSE_SHAPE_BRIEF_INTENT,
    R.LOADING_ORDER_BRIEF_TASTES_DECLARATION,
    R.RESPONSE_SHAPE_MARKDOWN_LINE_BREAKS,
)
@pytest.mark.parametrize(("text", "declared"), BRIEFS, ids=[repr(text) for text, _ in BRIEFS])
def test_degenerate_briefs_and_briefs_of_only_a_declaration(workspace: Workspace, text: str, declared: list[str]) -> None:
    """A blank brief or one holding only a Tastes: line is raw as written, its intent empty, its tastes the line's names."""
    workspace.taste("underwater", "Restore reds.\n")
    workspace.write("brief.md", text)
    brief = workspace.context(R.RESPONSE_SHAPE_BRIEF_RAW)["brief"]
    check_equal(R.RESPONSE_SHAPE_BRIEF_RAW, as_text(brief["raw"]), as_text(text), r"brief.raw, line breaks read as \n")
    check_line_breaks(brief["raw"], text, "brief.raw")
    check_equal(R.RESPONSE_SHAPE_BRIEF_INTENT, bare(brief["intent"]), "", "brief.intent, trimmed")
    check_equal(R.LOADING_ORDER_BRIEF_TASTES_DECLARATION, brief["tastes"], declared, "brief.tastes")


# A line holding only a byte order mark is not empty: whether it conflicts is left open.
BLANK_TASTES: Final = [text for text in DEGENERATE_TEXTS if "\ufeff" not in text]


@edge("degenerate")
@requirement(R.LOADING_ORDER_DEFAULT_TASTE_ALWAYS_LOADS, R.TOLERANCE_MISSING_GENRE_FILE, R.CONFLICTS_EMPTY_LINES_NEVER_CONFLICT)
@pytest.mark.parametrize("text", BLANK_TASTES, ids=[repr(text) for text in BLANK_TASTES])
def test_degenerate_taste_files_give_empty_texts_and_no_conflict(workspace: Workspace, text: str) -> None:
    """Blank _default.md and genre files give blank texts (a blank genre may be left out) and no conflict."""
    workspace.taste("_default", text)
    workspace.taste("underwater", text)
    workspace.taste("wildlife", text)
    workspace.write("brief.md", "Tastes: underwater, wildlife\n")
    default = R.LOADING_ORDER_DEFAULT_TASTE_ALWAYS_LOADS
    checked = workspace.read(default)
    raw = raw_of(checked, default)
    # On the raw reply, before the schema (whose point is never empty): a blank line's conflict fails this requirement.
    raw_tastes = raw.get("tastes") if isinstance(raw, dict) else None
    conflicts = raw_tastes.get("conflicts") if isinstance(raw_tastes, dict) else None
    check(R.CONFLICTS_EMPTY_LINES_NEVER_CONFLICT, not conflicts, "blank lines conflict", received=conflicts, expected=[])
    tastes = checked.expect(default)["tastes"]
    check_equal(default, bare(taste_text(tastes["default"])), bare(text), "tastes.default, trimmed")
    genres = {name: bare(found) for name, found in taste_texts(tastes["genres"]).items()}
    check(R.TOLERANCE_MISSING_GENRE_FILE, not any(genres.values()), "a blank genre file gave text", received=genres)
    check_equal(R.CONFLICTS_EMPTY_LINES_NEVER_CONFLICT, tastes["conflicts"], [], "tastes.conflicts")


@edge("degenerate")
@requirement(R.LOADING_ORDER_RECENT_LOG_LAST_10, R.LOADING_ORDER_RECENT_GAPS_LAST_10)
@pytest.mark.parametrize("text", DEGENERATE_TEXTS, ids=DEGENERATE_IDS)
def test_degenerate_jsonl_files_hold_no_entry(workspace: Workspace, text: str) -> None:
    """log.jsonl and vocabulary_gaps.jsonl holding only blank text (repeated) give empty lists, never an error."""
    workspace.write(LOG, text * 3)
    workspace.write(GAPS, text * 3)
    context = workspace.answered(R.LOADING_ORDER_RECENT_LOG_LAST_10)
    check_equal(R.LOADING_ORDER_RECENT_LOG_LAST_10, context["recent_log"], [], "recent_log")
    check_equal(R.LOADING_ORDER_RECENT_GAPS_LAST_10, context["recent_gaps"], [], "recent_gaps")
