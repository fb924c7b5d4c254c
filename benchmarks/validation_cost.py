"""Schema validation: cost per message with jsonschema and with jsonschema-rs, and the share of suite time it takes."""

from __future__ import annotations

import contextlib
import io
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest
from measure import timed_calls

import ctxconform.conformance.judge._schemas as schemas
from ctxconform.conformance.judge._specs import suite_root
from ctxconform.conformance.report._bench import Figure, figure

SECTION = "schema validation"
SUITES = suite_root()
# Messages of a typical exchange: a protocol call and reply, a write request and a full listing.
KEYS = [
    {"key": f"k{n}", "written_by": "orchestrator", "written_at": "2026-11-23T10:00:00Z", "version": 3, "value_size_tokens": 700}
    for n in range(12)
]
MESSAGES: list[tuple[str, Any]] = [
    (
        "protocol/call.json",
        {
            "type": "call",
            "seq": 7,
            "spec": "shared-context",
            "op": "shared_context",
            "args": {"action": "list_keys"},
            "context": {"session_id": "s", "participant": "orchestrator"},
        },
    ),
    ("shared-context/write.request.json", {"action": "write", "key": "problem_summary", "value": "x" * 3000}),
    ("shared-context/list_keys.response.json", {"keys": KEYS}),
]


def per_message(rounds: int, calls: int) -> list[Figure]:
    """Microseconds to validate one message (valid, as most are) with each library, and their ratio."""
    found: dict[str, list[float]] = {"jsonschema": [], "jsonschema-rs": []}
    for _ in range(rounds):
        for library, check in (("jsonschema", _slow), ("jsonschema-rs", _fast)):
            times = [t for name, message in MESSAGES for t in timed_calls(lambda: check(name, message), calls)]  # noqa: B023
            found[library].append(sum(times) / len(times) * 1e6)
    slow, fast = (figure(SECTION, f"{library} per message", "us", found[library]) for library in found)
    return [slow, fast.model_copy(update={"ratio": fast.median / slow.median, "ratio_to": "jsonschema per message"})]


def _slow(name: str, message: Any) -> bool:
    return schemas.validator(name).is_valid(message)


def _fast(name: str, message: Any) -> bool:
    fast = schemas._fast_validator(name)  # noqa: SLF001 - the fast path itself is what is measured
    return bool(fast.is_valid(message)) if fast is not None else _slow(name, message)


def suite_share(spec: str = "shared-context") -> list[Figure]:
    """The share of one in-process suite run spent in schema_errors, with and without the fast path."""
    found = []
    for label, validator in (("jsonschema-rs first", None), ("jsonschema only", "jsonschema")):
        spent, total = _timed_suite(spec, validator)
        found.append(figure(SECTION, f"share of {spec} suite time validating ({label})", "%", [100 * spent / total]))
    return found


def _timed_suite(spec: str, validator: str | None) -> tuple[float, float]:
    """Run the suite in this process, timing every schema_errors call; return (validating, total) seconds."""
    spent = [0.0]
    original = schemas.schema_errors
    timed = _timer(original, spent)
    modules = [
        m for name, m in sys.modules.items() if name.startswith("ctxconform") and getattr(m, "schema_errors", None) is original
    ]
    previous = os.environ.pop("CTXCONFORM_VALIDATOR", None)
    if validator:
        os.environ["CTXCONFORM_VALIDATOR"] = validator
    schemas._fast_validator.cache_clear()  # noqa: SLF001 - it reads the variable once per schema
    for module in modules:
        module.schema_errors = timed  # type: ignore[attr-defined]
    started = time.perf_counter()
    try:
        args = [str(SUITES / spec.replace("-", "_")), "-c", str(SUITES / "pytest.ini"), "--rootdir", str(SUITES)]
        args += ["-p", "no:cacheprovider", "--ctxconform-adapter=reference", "--hypothesis-seed=1"]
        with contextlib.redirect_stdout(io.StringIO()):
            code = pytest.main(args)
        if code != 0:
            raise RuntimeError(f"the {spec} suite did not pass in-process (pytest exit {code})")
        return spent[0], time.perf_counter() - started
    finally:
        for module in modules:
            module.schema_errors = original  # type: ignore[attr-defined]
        os.environ.pop("CTXCONFORM_VALIDATOR", None)
        if previous is not None:
            os.environ["CTXCONFORM_VALIDATOR"] = previous
        schemas._fast_validator.cache_clear()  # noqa: SLF001


def _timer(original: Callable[[str, object], list[str]], spent: list[float]) -> Callable[[str, object], list[str]]:
    def timed(name: str, instance: object) -> list[str]:
        started = time.perf_counter()
        try:
            return original(name, instance)
        finally:
            spent[0] += time.perf_counter() - started

    return timed
