"""The JSON Schemas: valid 2020-12, stable ids, the report schema in step with its model, and both validators agreeing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from ctxconform.conformance.judge._data import schemas_dir
from ctxconform.conformance.judge._schemas import _fast_validator, schema_errors, validator
from ctxconform.conformance.report._baseline import baseline_schema
from ctxconform.conformance.report._bench import bench_schema
from ctxconform.conformance.report._model import report_schema
from ctxconform.conformance.run._mutation import mutation_schema
from ctxconform.conformance.specdiff._diff import spec_diff_schema

SCHEMAS = sorted(p.relative_to(schemas_dir()).as_posix() for p in schemas_dir().rglob("*.json"))
BASE = "https://ctxconform.dev/schemas/"


@pytest.mark.parametrize("name", SCHEMAS)
def test_every_schema_is_valid_draft_2020_12_with_an_id_matching_its_path(name: str) -> None:
    """Each schema passes the 2020-12 meta-schema and its $id is the stable URL of its path."""
    schema = json.loads((schemas_dir() / name).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == BASE + name


@pytest.mark.parametrize(
    ("name", "generate"),
    [
        ("report", report_schema),
        ("mutants", mutation_schema),
        ("baseline", baseline_schema),
        ("spec-diff", spec_diff_schema),
        ("bench", bench_schema),
    ],
)
def test_the_committed_report_schemas_are_generated_from_the_models(name: str, generate: Any) -> None:
    """schemas/report/NAME.schema.json is what the pydantic model generates.

    Regenerate with `python -m ctxconform.conformance.report._model` (or `_mutation`, `_baseline`, `_specdiff`, `_bench`)
    > schemas/report/NAME.schema.json.
    """
    committed = json.loads((schemas_dir() / "report" / f"{name}.schema.json").read_text(encoding="utf-8"))
    assert committed == generate()


KEYS = st.one_of(st.from_regex(r"[a-z0-9_]{1,64}", fullmatch=True), st.text(max_size=70))
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=30), st.floats(allow_nan=False))
TIMESTAMPS = st.sampled_from(
    ["2026-02-20T14:30:00Z", "2026-02-20T14:30:00+01:00", "2026-02-20 14:30", "yesterday", "2026-02-30T00:00:00Z"]
)


def entries() -> st.SearchStrategy[dict[str, Any]]:
    """Entry-like objects, most nearly valid, some broken in one field."""
    return st.fixed_dictionaries(
        {
            "key": KEYS,
            "written_by": st.one_of(st.text(max_size=10), SCALARS),
            "written_at": TIMESTAMPS,
            "version": st.integers(-1, 5),
        },
        optional={"value": st.text(max_size=5), "value_size_tokens": st.integers(-1, 3), "extra": SCALARS},
    )


INSTANCES = st.one_of(
    entries(),
    st.fixed_dictionaries({"keys": st.lists(entries(), max_size=3)}, optional={"total_size_tokens": st.integers(-1, 9)}),
    st.fixed_dictionaries({"action": st.sampled_from(["write", "read", "nope"]), "key": KEYS}, optional={"value": SCALARS}),
    st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)),
)
NAMES = st.sampled_from(
    [
        "shared-context/read.response.json",
        "shared-context/list_keys.response.json",
        "shared-context/request.json",
        "protocol/reply.json",
    ]
)


@given(name=NAMES, instance=INSTANCES)
def test_the_fast_validator_never_accepts_what_jsonschema_rejects(name: str, instance: Any) -> None:
    """jsonschema-rs (the fast path) and jsonschema (the reference) agree on validity over generated instances."""
    fast = _fast_validator(name)
    if fast is None:
        pytest.skip("jsonschema-rs is not installed")
    assert fast.is_valid(instance) == validator(name).is_valid(instance)


@pytest.mark.parametrize("instance", [{"code": "A\ud800", "message": "x"}, {"code": "A", "message": "\udfff"}])
def test_a_lone_surrogate_is_judged_not_raised(instance: dict[str, str]) -> None:
    """The fast validator cannot take a lone surrogate; schema_errors still answers, and only for the bad field."""
    reply = {"type": "reply", "seq": 1, "error": instance}
    errors = schema_errors("protocol/reply.json", reply)
    assert all(line.startswith("error/code") for line in errors)
    assert bool(errors) == ("\ud800" in instance["code"])


@pytest.mark.parametrize("key", ["abc\n", "ABC", "a.b", "", "x" * 65, "caf\u00e9", "\uff41"])
def test_the_key_schema_refuses_keys_outside_the_naming_rules(key: str) -> None:
    """The key pattern holds in Python's regex dialect too (a trailing newline does not slip through)."""
    request = {"action": "read", "key": key}
    assert schema_errors("shared-context/read.request.json", request)
    assert not validator("shared-context/read.request.json").is_valid(request)


@pytest.mark.parametrize(
    ("written_at", "valid"),
    [
        ("2026-11-23T10:00:00Z", True),
        ("2026-11-23T10:00:00+00:00", True),
        ("2026-11-23T25:00:00Z", False),
        ("2026-02-30T10:00:00Z", False),
    ],
)
def test_timestamps_are_checked_as_rfc_3339_date_times(written_at: str, valid: bool) -> None:
    """The date-time format is asserted, not just annotated: a UTC-looking timestamp that is no RFC 3339 time is refused."""
    response = {"key": "scope", "version": 1, "written_by": "orchestrator", "written_at": written_at}
    assert validator("shared-context/write.response.json").is_valid(response) is valid
    assert (schema_errors("shared-context/write.response.json", response) == []) is valid


def test_schemas_ship_in_the_checkout_layout() -> None:
    """Every spec folder has an error schema and a request schema per tool action."""
    folder = schemas_dir() / "shared-context"
    assert (folder / "error.json").is_file()
    assert {p.name for p in folder.glob("*.request.json")} >= {
        f"{a}.request.json" for a in ("list_keys", "read", "write", "delete")
    }


def test_schemas_dir_points_at_this_checkout() -> None:
    """During development the loader reads the checkout's schemas, not a stale installed copy."""
    assert schemas_dir() == Path(__file__).resolve().parents[1] / "schemas"
