"""The recent log and recent gaps: the last entries of a JSON-lines file, newest first, malformed lines skipped."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Final

from ctxconform.reference.read_context._files import open_regular
from ctxconform.reference.read_context._tail import lines_from_end

__all__ = ["GAP_DEFAULTS", "RECENT", "gap", "json_object", "last_objects", "log_entry"]

RECENT: Final = 10
# The gap record of the ADR (plus the origin's `workaround`), in its order, with the defaults of absent fields.
GAP_DEFAULTS: Final[dict[str, Any]] = {
    "timestamp": None,
    "image_id": None,
    "description": "",
    "workaround": "",
    "session_id": None,
    "snapshot_hash": None,
    "intent": None,
    "intent_category": "uncategorized",
    "missing_capability": None,
    "operations_involved": [],
    "vocabulary_used": [],
    "satisfaction": None,
    "notes": "",
}
_SATISFACTION: Final = (-1, 0, 1)


def last_objects(path: Path, count: int = RECENT) -> list[dict[str, Any]]:
    """Return up to `count` JSON objects from the end of a JSON-lines file, newest first; [] when unreadable."""
    handle = open_regular(path)
    if handle is None:
        return []
    try:
        with handle:
            info = os.fstat(handle.fileno())
            found: list[dict[str, Any]] = []
            for line in lines_from_end(handle, info.st_size):
                record = json_object(line)
                if record is not None:
                    found.append(record)
                    if len(found) == count:
                        break
            return found
    except OSError:
        return []


def log_entry(record: dict[str, Any]) -> dict[str, Any]:
    """Shape one log line as {timestamp, op, details}; details holds every other key."""
    details = {k: v for k, v in record.items() if k not in ("timestamp", "op")}
    return {"timestamp": _string(record.get("timestamp")), "op": _string(record.get("op")), "details": details}


def gap(record: dict[str, Any]) -> dict[str, Any]:
    """Shape one gap line as the full gap record, absent or ill-typed fields at their defaults."""
    shaped = {}
    for field, default in GAP_DEFAULTS.items():
        value = record.get(field, default)
        shaped[field] = value if _fits(field, value) else default
    return shaped


def json_object(line: bytes) -> dict[str, Any] | None:
    """Parse one JSON line; None when it is blank, not UTF-8, not JSON or not an object."""
    if not line.strip():
        return None
    try:
        record = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) else None


def _string(value: object) -> str:
    return value if isinstance(value, str) else ""


def _fits(field: str, value: object) -> bool:
    default = GAP_DEFAULTS[field]
    if field == "satisfaction":
        return value is None or (type(value) is int and value in _SATISFACTION)
    if isinstance(default, list):
        return isinstance(value, list) and all(isinstance(item, str) for item in value)
    if default is None:
        return value is None or isinstance(value, str)
    return isinstance(value, str)
