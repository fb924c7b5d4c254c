"""Malformed tool requests: each gets an error reply (never a crash) and leaves the store exactly as it was."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance.suites.shared_context import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.shared_context.client import SPEC, Session, fresh_session, unchanged
from ctxconform.conformance.testing import (
    Implementation,
    RequirementId,
    check,
    check_equal,
    requirement,
    schema_errors,
)

KEY_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"
VALID_KEY = re.compile("[a-z0-9_]{1,64}")
ACTIONS = ("list_keys", "read", "write", "delete", "read_batch", "read_history", "snapshot", "read_snapshot")
SEED = {
    "problem_summary": "Throughput dropped 30% after config change on Feb 18.",
    "current_phase": "analysis",
    "open_questions": "Was the pool size change intentional?",
}
CALLER = "subagent:analysis"
MEGABYTE = 1024 * 1024
Json = Any

# --- building blocks ----------------------------------------------------------------------------

seed_keys = st.sampled_from(sorted(SEED))  # existing keys: a lax implementation would visibly change them
target_keys = st.one_of(seed_keys, st.text(KEY_CHARS, min_size=1, max_size=64))
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20)
)
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12
)
non_strings = json_values.filter(lambda v: not isinstance(v, str))
non_text_values = st.one_of(non_strings, st.sampled_from([["x"], {"text": "x"}, 0, True]))
non_objects = json_values.filter(lambda v: not isinstance(v, dict))
invalid_keys = st.one_of(
    st.just(""),
    st.text(KEY_CHARS, min_size=65, max_size=100),
    st.sampled_from(
        ["Problem_Summary", "problem.summary", "inv:findings", "a/b", "a-b", "key ", "key\n", "k\x00ey", "\u200fkey", "ké", "ａ"]
    ),
    st.text(max_size=70),
).filter(lambda k: VALID_KEY.fullmatch(k) is None)
NEAR_MISS_ACTIONS = [
    "",
    "READ",
    "Write",
    "LIST_KEYS",
    " read",
    "read ",
    "read\n",
    "read\x00",
    "list-keys",
    "listKeys",
    "list_key",
    "lists_keys",
    "get",
    "set",
    "put",
    "update",
    "remove",
    "del",
    "shared_context",
    "\u202eread",
    "rea\u200bd",
]
# The lifecycle operations are left out: that the tool refuses them is lifecycle-not-agent-facing's to check.
LIFECYCLE = ("create_session", "archive_session", "delete_session")
unknown_actions = st.one_of(st.sampled_from(NEAR_MISS_ACTIONS), st.text(max_size=30)).filter(
    lambda a: a not in ACTIONS and a not in LIFECYCLE
)


def nested(depth: int, leaf: Json = "x") -> Json:
    """A list nested `depth` levels deep, with dicts at every other level."""
    for level in range(depth):
        leaf = [leaf] if level % 2 else {"v": leaf}
    return leaf


def core_request(action: str, key: Json) -> dict[str, Json]:
    """A read, write or delete of `key`; a write carries a valid value."""
    return {"action": action, "key": key} | ({"value": "x"} if action == "write" else {})


def write_with(key: str, field: str, value: Json) -> dict[str, Json]:
    """A valid write of `key`, except that `field` holds `value`."""
    return {"action": "write", "key": key, "value": "x"} | {field: value}


def bad_extension_requests(key: str) -> st.SearchStrategy[dict[str, Json]]:
    """Extension requests with a missing or mistyped field: refused whether or not the extension is implemented."""
    return st.sampled_from(
        [
            {"action": "read_batch", "keys": key},
            {"action": "read_batch", "keys": {"0": key}},
            {"action": "read_batch", "keys": [key, 7]},
            {"action": "read_batch", "keys": None},
            {"action": "read_batch"},
            {"action": "read_history"},
            {"action": "read_history", "key": [key]},
            {"action": "read_history", "key": key, "versions": "1,2"},
            {"action": "snapshot"},
            {"action": "snapshot", "label": 7},
            {"action": "snapshot", "label": ["pre_approval"]},
            {"action": "read_snapshot"},
        ]
    )


core_actions = st.sampled_from(["read", "write", "delete"])
# Every way a request can be malformed, except extra fields (which a conforming implementation may ignore), and
# the two flaws of a write that have requirements of their own: a value that is not text, and an invalid key.
malformed_requests = st.one_of(
    non_objects,
    st.fixed_dictionaries(
        {}, optional={"key": seed_keys, "value": st.text(max_size=10), "Action": st.just("write"), "op": st.just("read")}
    ),  # no action
    st.builds(write_with, target_keys, st.just("action"), non_strings),  # action not a string
    st.builds(write_with, target_keys, st.just("action"), unknown_actions),
    target_keys.flatmap(
        lambda key: st.sampled_from(
            [
                {"action": "write", "value": "x"},
                {"action": "write", "key": key},
                {"action": "write"},
                {"action": "read"},
                {"action": "delete"},
            ]
        )
    ),  # a field missing
    st.builds(core_request, core_actions, non_strings),  # key not a string
    st.builds(core_request, st.sampled_from(["read", "delete"]), invalid_keys),
    st.builds(
        lambda key, field, depth: write_with(key, field, nested(depth, key)),
        target_keys,
        st.sampled_from(["key", "action"]),
        st.integers(10, 200),
    ),  # deeply nested
    seed_keys.flatmap(bad_extension_requests),
)


@contextmanager
def seeded_session(implementation: Implementation) -> Iterator[Session]:
    """A new session holding SEED, called by CALLER; deleted afterwards."""
    with fresh_session(implementation, SEED) as created:
        yield created.as_participant(CALLER)


def refused_and_unchanged(session: Session, request: Json, requirement_id: RequirementId, *codes: str) -> str:
    """Send a malformed request: it must get an error (one of `codes` when given) and change nothing."""
    before = session.state(requirement_id)
    code = session.tool(request, serves=requirement_id).refused(requirement_id, *codes)
    unchanged(requirement_id, session, before, request)
    return code


# --- the properties -----------------------------------------------------------------------------


@requirement(R.S5_ERROR_CODE_AND_MESSAGE)
@given(request=malformed_requests)
def test_any_malformed_request_is_refused_and_changes_nothing(implementation: Implementation, request: Json) -> None:
    """Any request the request schema rejects (bar extra fields) gets an error with a code and message; the store is unchanged."""
    if not schema_errors(f"{SPEC}/request.json", request):
        raise RuntimeError(f"the strategy drew a request that is not malformed: {request!r}")
    with seeded_session(implementation) as session:
        refused_and_unchanged(session, request, R.S5_ERROR_CODE_AND_MESSAGE)


@requirement(R.S2_3_VALUE_IS_TEXT)
@given(key=target_keys, value=non_text_values)
def test_any_value_that_is_not_text_is_refused_and_changes_nothing(implementation: Implementation, key: str, value: Json) -> None:
    """A write whose value is not a string gets an error and changes nothing: structured data must be serialized."""
    with seeded_session(implementation) as session:
        refused_and_unchanged(session, {"action": "write", "key": key, "value": value}, R.S2_3_VALUE_IS_TEXT)


# --- each kind, spelled out ---------------------------------------------------------------------


@requirement(R.S5_ERROR_CODE_AND_MESSAGE)
@pytest.mark.parametrize(
    "request_",
    [["write", "k", "v"], "write", "", None, 0, 3.5, True, [], [{"action": "list_keys"}]],
    ids=["list", "string", "empty-string", "null", "zero", "float", "true", "empty-list", "wrapped"],
)
def test_a_request_that_is_not_an_object_is_refused(implementation: Implementation, request_: Json) -> None:
    """A request that is a list, string, null, number or boolean gets an error."""
    with seeded_session(implementation) as session:
        refused_and_unchanged(session, request_, R.S5_ERROR_CODE_AND_MESSAGE)


@requirement(R.S5_ERROR_CODE_AND_MESSAGE)
@pytest.mark.parametrize(
    "request_",
    [
        {},
        {"key": "problem_summary", "value": "x"},
        {"Action": "write", "key": "problem_summary", "value": "x"},
        {"action": None, "key": "problem_summary"},
        {"action": 3},
        {"action": ["read"], "key": "problem_summary"},
        {"action": {"name": "delete"}, "key": "problem_summary"},
        {"action": True},
    ],
    ids=["empty", "no-action", "capitalised-field", "null", "number", "list", "object", "bool"],
)
def test_a_missing_or_non_string_action_is_refused(implementation: Implementation, request_: Json) -> None:
    """A request without an action, or with an action that is not a string, gets an error."""
    with seeded_session(implementation) as session:
        refused_and_unchanged(session, request_, R.S5_ERROR_CODE_AND_MESSAGE)


@requirement(R.S5_ERROR_CODE_AND_MESSAGE)
@pytest.mark.parametrize("action", NEAR_MISS_ACTIONS, ids=[repr(a) for a in NEAR_MISS_ACTIONS])
def test_an_unknown_action_is_refused(implementation: Implementation, action: str) -> None:
    """An action that is not one of the tool's, however close to one, gets an error and does nothing."""
    with seeded_session(implementation) as session:
        refused_and_unchanged(session, {"action": action, "key": "problem_summary", "value": "x"}, R.S5_ERROR_CODE_AND_MESSAGE)


@requirement(R.S5_ERROR_CODE_AND_MESSAGE)
@pytest.mark.parametrize(
    "request_",
    [
        {"action": "write", "value": "x"},
        {"action": "write", "key": "problem_summary"},
        {"action": "write"},
        {"action": "read"},
        {"action": "delete"},
    ],
    ids=["write-no-key", "write-no-value", "write-nothing", "read-no-key", "delete-no-key"],
)
def test_a_missing_field_is_refused(implementation: Implementation, request_: Json) -> None:
    """A write without key or value, and a read or delete without key, get an error."""
    with seeded_session(implementation) as session:
        refused_and_unchanged(session, request_, R.S5_ERROR_CODE_AND_MESSAGE)


WRONG_TYPES = [7, 0, 2.5, True, False, None, ["problem_summary"], {"key": "problem_summary"}, [], {}]
WRONG_TYPE_IDS = ["int", "zero", "float", "true", "false", "null", "list", "dict", "empty-list", "empty-dict"]


@requirement(R.S5_ERROR_CODE_AND_MESSAGE)
@pytest.mark.parametrize("action", ["read", "write", "delete"])
@pytest.mark.parametrize("key", WRONG_TYPES, ids=WRONG_TYPE_IDS)
def test_a_key_that_is_not_a_string_is_refused(implementation: Implementation, action: str, key: Json) -> None:
    """A key of any type but string gets an error; it is never converted to a string and used."""
    request = {"action": action, "key": key} | ({"value": "x"} if action == "write" else {})
    with seeded_session(implementation) as session:
        refused_and_unchanged(session, request, R.S5_ERROR_CODE_AND_MESSAGE)


@requirement(R.S2_3_VALUE_IS_TEXT)
@pytest.mark.parametrize("value", WRONG_TYPES, ids=WRONG_TYPE_IDS)
@pytest.mark.parametrize("key", ["problem_summary", "new_key"])
def test_a_value_that_is_not_a_string_is_refused(implementation: Implementation, key: str, value: Json) -> None:
    """A value of any type but string gets an error: structured data must be serialized by the caller."""
    with seeded_session(implementation) as session:
        refused_and_unchanged(session, {"action": "write", "key": key, "value": value}, R.S2_3_VALUE_IS_TEXT)


HIDDEN_CHARACTER_KEYS = {
    "nul-inside": "problem\x00summary",
    "nul-alone": "\x00",
    "nul-trailing": "problem_summary\x00",
    "soh": "problem\x01summary",
    "escape": "problem\x1bsummary",
    "del": "problem\x7fsummary",
    "rlm-leading": "\u200fproblem_summary",
    "lrm-trailing": "problem_summary\u200e",
    "rlo": "\u202eyrammus_melborp",
    "line-separator": "problem\u2028summary",
    "bom": "\ufeffproblem_summary",
}


@requirement(R.S5_INVALID_KEY_ON_WRITE)
@pytest.mark.parametrize("key", list(HIDDEN_CHARACTER_KEYS.values()), ids=list(HIDDEN_CHARACTER_KEYS))
def test_keys_with_control_and_bidi_characters_are_invalid_on_write(implementation: Implementation, key: str) -> None:
    """Keys hiding NUL, control or right-to-left characters around a real key get INVALID_KEY on write and change nothing."""
    with seeded_session(implementation) as session:
        refused_and_unchanged(session, {"action": "write", "key": key, "value": "x"}, R.S5_INVALID_KEY_ON_WRITE, "INVALID_KEY")


@requirement(R.S5_INVALID_KEY_ON_READ_DELETE)
@pytest.mark.parametrize("key", list(HIDDEN_CHARACTER_KEYS.values()), ids=list(HIDDEN_CHARACTER_KEYS))
def test_keys_with_control_and_bidi_characters_are_refused_on_read_and_delete(implementation: Implementation, key: str) -> None:
    """Read and delete of such keys get INVALID_KEY or KEY_NOT_FOUND and change nothing."""
    with seeded_session(implementation) as session:
        for action in ("read", "delete"):
            refused_and_unchanged(
                session, {"action": action, "key": key}, R.S5_INVALID_KEY_ON_READ_DELETE, "INVALID_KEY", "KEY_NOT_FOUND"
            )


MEGABYTE_CHARS = pytest.mark.parametrize("char", ["a", " ", "é", "🎉", "\x00"], ids=["ascii", "space", "accent", "emoji", "nul"])


@requirement(R.S5_VALUE_TOO_LARGE)
@MEGABYTE_CHARS
def test_a_megabyte_value_is_value_too_large(implementation: Implementation, char: str) -> None:
    """A 1 MB value gets VALUE_TOO_LARGE (or STORE_FULL, which it also earns) and changes nothing."""
    request = {"action": "write", "key": "problem_summary", "value": char * MEGABYTE}
    with seeded_session(implementation) as session:
        # Such a write would also take the store past 10,000 tokens; section 5 does not rank the two codes.
        refused_and_unchanged(session, request, R.S5_VALUE_TOO_LARGE, "VALUE_TOO_LARGE", "STORE_FULL")


@requirement(R.S5_INVALID_KEY_ON_WRITE)
@MEGABYTE_CHARS
def test_a_megabyte_key_is_invalid_key(implementation: Implementation, char: str) -> None:
    """A 1 MB key, of valid characters or not, gets INVALID_KEY and changes nothing."""
    with seeded_session(implementation) as session:
        for key in ("k" * MEGABYTE, char * MEGABYTE):
            refused_and_unchanged(
                session, {"action": "write", "key": key, "value": "x"}, R.S5_INVALID_KEY_ON_WRITE, "INVALID_KEY"
            )


@requirement(R.S5_ERROR_CODE_AND_MESSAGE)
@MEGABYTE_CHARS
def test_a_megabyte_action_is_refused(implementation: Implementation, char: str) -> None:
    """A 1 MB action gets an error and changes nothing."""
    with seeded_session(implementation) as session:
        refused_and_unchanged(session, {"action": char * MEGABYTE}, R.S5_ERROR_CODE_AND_MESSAGE)


@requirement(R.S5_ERROR_CODE_AND_MESSAGE)
@pytest.mark.parametrize("field", ["action", "key"])
@pytest.mark.parametrize("depth", [50, 500])
def test_deeply_nested_fields_are_refused(implementation: Implementation, field: str, depth: int) -> None:
    """A deeply nested list or object in place of the action or key gets an error, not a crash."""
    request = {"action": "write", "key": "problem_summary", "value": "x", field: nested(depth)}
    with seeded_session(implementation) as session:
        refused_and_unchanged(session, request, R.S5_ERROR_CODE_AND_MESSAGE)


@requirement(R.S2_3_VALUE_IS_TEXT)
@pytest.mark.parametrize("depth", [50, 500])
def test_a_deeply_nested_value_is_refused(implementation: Implementation, depth: int) -> None:
    """A deeply nested list or object in place of the value gets an error, not a crash."""
    request = {"action": "write", "key": "problem_summary", "value": nested(depth)}
    with seeded_session(implementation) as session:
        refused_and_unchanged(session, request, R.S2_3_VALUE_IS_TEXT)


# --- extra fields: refused, or ignored --------------------------------------------------------

TEMPTING = [
    "written_by",
    "participant",
    "session_id",
    "version",
    "written_at",
    "value_size_tokens",
    "previous_version",
    "deleted",
    "key",
    "value",
    "keys",
    "label",
]
field_names = st.one_of(st.sampled_from(TEMPTING), st.text(min_size=1, max_size=12))


def extra_fields(request: dict[str, str]) -> st.SearchStrategy[dict[str, Json]]:
    """One to four fields that `request` does not have, with any JSON values."""
    return st.dictionaries(field_names.filter(lambda name: name not in request), json_values, min_size=1, max_size=4)


NEW_KEY = "extra_fields_key"


def base_requests(key: str) -> dict[str, dict[str, str]]:
    """A well-formed request of each core action; a write creates a new key, so its answer owes nothing to `key`'s past."""
    return {
        "list_keys": {"action": "list_keys"},
        "read": {"action": "read", "key": key},
        "write": {"action": "write", "key": NEW_KEY, "value": "new value"},
        "delete": {"action": "delete", "key": key},
    }


def answered(action: str, answer: Json, key: str) -> tuple[object, object]:
    """The part of an accepted answer that extra fields must not change, and what it must be.

    Versions are version-increments' and previous-version's to check, so only what the extra fields could spoof is.
    """
    if action == "write":
        return (answer.get("key"), answer.get("written_by")), (NEW_KEY, CALLER)
    if action == "read":
        return answer.get("value"), SEED[key]
    if action == "list_keys":
        return sorted(item.get("key") for item in answer.get("keys", [])), sorted(SEED)
    return answer.get("deleted"), key


def entries_after(action: str, key: str) -> dict[str, str]:
    """The values the seeded session holds after the well-formed request of `action` on `key`."""
    after = dict(SEED)
    if action == "write":
        after[NEW_KEY] = "new value"
    elif action == "delete":
        del after[key]
    return after


@requirement(R.S3_3_EXTRA_REQUEST_FIELDS)
@given(action=st.sampled_from(["list_keys", "read", "write", "delete"]), key=seed_keys, data=st.data())
def test_extra_fields_are_refused_or_ignored(implementation: Implementation, action: str, key: str, data: st.DataObject) -> None:
    """A request with fields its action does not define is refused and changes nothing, or acts as if they were absent."""
    served = R.S3_3_EXTRA_REQUEST_FIELDS
    request = base_requests(key)[action]
    request = request | data.draw(extra_fields(request), label="extra")
    with seeded_session(implementation) as session:
        # Nothing is read before the call: what a read answers later must not come from a cache of an earlier read.
        outcome = session.tool(request, serves=served)
        if outcome.ok:
            received, expected = answered(action, outcome.expect(served), key)
            check_equal(served, received, expected, f"the {action} answer", sent=request)
        after = entries_after(action, key) if outcome.ok else dict(SEED)
        values = {k: session.read(k, serves=served).expect(served)["value"] for k in after}
        check_equal(served, values, after, "the values after the request", sent=request)


@requirement(R.S3_3_EXTRA_REQUEST_FIELDS)
def test_a_session_id_in_the_body_does_not_redirect_the_write(implementation: Implementation) -> None:
    """A write whose body names another session_id is refused, or applied to the caller's own session."""
    served = R.S3_3_EXTRA_REQUEST_FIELDS
    with seeded_session(implementation) as session, seeded_session(implementation) as victim:
        request = {"action": "write", "key": "problem_summary", "value": "hijack", "session_id": victim.session_id}
        outcome = session.tool(request, serves=served)
        expected = "hijack" if outcome.ok else SEED["problem_summary"]
        read = session.read("problem_summary", serves=served).expect(served)["value"]
        check_equal(served, read, expected, "the caller's own entry after the write", sent=request)


@requirement(R.S8_1_PER_SESSION_ISOLATION)
def test_a_session_id_in_the_body_leaves_the_other_session_alone(implementation: Implementation) -> None:
    """A write whose body names another session_id never changes that other session."""
    served = R.S8_1_PER_SESSION_ISOLATION
    with seeded_session(implementation) as session, seeded_session(implementation) as victim:
        before = victim.state(served)
        request = {"action": "write", "key": "problem_summary", "value": "hijack", "session_id": victim.session_id}
        session.tool(request, serves=served)
        after = victim.state(served)
        check(served, after == before, "a write in one session changed another", sent=request, received=after, expected=before)
