"""Malformed tool requests: each gets an error reply (never a crash) and leaves the store exactly as it was."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance._schemas import schema_errors
from ctxconform.conformance.suites.shared_context.client import SPEC, Outcome, Session, check, fresh_session

requirement = pytest.mark.requirement

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
State = tuple[dict[str, tuple[str, int, str]], dict[str, Any]]

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
    "create_session",
    "archive_session",
    "delete_session",
    "shared_context",
    "\u202eread",
    "rea\u200bd",
]
unknown_actions = st.one_of(st.sampled_from(NEAR_MISS_ACTIONS), st.text(max_size=30)).filter(lambda a: a not in ACTIONS)


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
# Every way a request can be malformed, except extra fields (which a conforming implementation may ignore).
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
    st.builds(
        write_with, target_keys, st.just("value"), st.one_of(non_strings, st.sampled_from([["x"], {"text": "x"}, 0, True]))
    ),
    st.builds(core_request, core_actions, invalid_keys),
    st.builds(
        lambda key, field, depth: write_with(key, field, nested(depth, key)),
        target_keys,
        st.sampled_from(["key", "value", "action"]),
        st.integers(10, 200),
    ),  # deeply nested
    seed_keys.flatmap(bad_extension_requests),
)


@contextmanager
def seeded_session(implementation: Implementation) -> Iterator[Session]:
    """A new session holding SEED, called by CALLER; deleted afterwards."""
    with fresh_session(implementation, SEED) as created:
        yield created.as_participant(CALLER)


@pytest.fixture(scope="module")
def seeded(implementation: Implementation) -> Iterator[Session]:
    """One session holding SEED for all examples of the property: none of them may change it."""
    with seeded_session(implementation) as session:
        yield session


def state(session: Session) -> State:
    """Everything observable about the store: every entry and the list_keys answer."""
    return session.values(), session.list_keys().result


def send(session: Session, request: Json) -> Outcome:
    """Call the tool where a refusal is expected.

    Unlike Session.tool this takes actions that are lists or objects, and does not check a result against the
    action's response schema, so a request wrongly accepted fails the requirement the test names.
    """
    context = {"session_id": session.session_id, "participant": session.participant}
    return check("", session.implementation.call(SPEC, "shared_context", request, context))


def assert_refused_and_unchanged(session: Session, request: Json, requirement_id: str, *codes: str) -> str:
    """Send a malformed request: it must get an error (one of `codes` when given) and change nothing."""
    before = state(session)
    code = send(session, request).refused(requirement_id, *codes)
    assert state(session) == before, f"the refused request {request!r:.200} changed the store"
    return code


# --- the property -------------------------------------------------------------------------------


@requirement(
    "shared-context/5/error-code-and-message", "shared-context/2.3/value-is-text", "shared-context/5/invalid-key-on-write"
)
@given(request=malformed_requests)
def test_any_malformed_request_is_refused_and_changes_nothing(seeded: Session, request: Json) -> None:
    """Any request the request schema rejects (bar extra fields) gets an error with a code and message; the store is unchanged."""
    assert schema_errors(f"{SPEC}/request.json", request), f"not malformed: {request!r}"
    code = assert_refused_and_unchanged(seeded, request, "shared-context/5/error-code-and-message")
    if is_write_with_invalid_string_key(request):
        assert code == "INVALID_KEY", f"write with key {request['key']!r} refused with {code}, not INVALID_KEY"


def is_write_with_invalid_string_key(request: Json) -> bool:
    """Whether the request is a write whose only flaw is a string key outside [a-z0-9_]{1,64}."""
    if not (isinstance(request, dict) and request.get("action") == "write" and set(request) == {"action", "key", "value"}):
        return False
    key, value = request["key"], request["value"]
    return isinstance(key, str) and isinstance(value, str) and VALID_KEY.fullmatch(key) is None


# --- each kind, spelled out ---------------------------------------------------------------------


@requirement("shared-context/5/error-code-and-message")
@pytest.mark.parametrize(
    "request_",
    [["write", "k", "v"], "write", "", None, 0, 3.5, True, [], [{"action": "list_keys"}]],
    ids=["list", "string", "empty-string", "null", "zero", "float", "true", "empty-list", "wrapped"],
)
def test_a_request_that_is_not_an_object_is_refused(implementation: Implementation, request_: Json) -> None:
    """A request that is a list, string, null, number or boolean gets an error."""
    with seeded_session(implementation) as session:
        assert_refused_and_unchanged(session, request_, "shared-context/5/error-code-and-message")


@requirement("shared-context/5/error-code-and-message")
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
        assert_refused_and_unchanged(session, request_, "shared-context/5/error-code-and-message")


@requirement("shared-context/5/error-code-and-message")
@pytest.mark.parametrize("action", NEAR_MISS_ACTIONS, ids=[repr(a) for a in NEAR_MISS_ACTIONS])
def test_an_unknown_action_is_refused(implementation: Implementation, action: str) -> None:
    """An action that is not one of the tool's, however close to one, gets an error and does nothing."""
    with seeded_session(implementation) as session:
        assert_refused_and_unchanged(
            session, {"action": action, "key": "problem_summary", "value": "x"}, "shared-context/5/error-code-and-message"
        )


@requirement("shared-context/5/error-code-and-message", "shared-context/3.3/request-and-response-shape")
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
        assert_refused_and_unchanged(session, request_, "shared-context/5/error-code-and-message")


WRONG_TYPES = [7, 0, 2.5, True, False, None, ["problem_summary"], {"key": "problem_summary"}, [], {}]
WRONG_TYPE_IDS = ["int", "zero", "float", "true", "false", "null", "list", "dict", "empty-list", "empty-dict"]


@requirement("shared-context/5/error-code-and-message")
@pytest.mark.parametrize("action", ["read", "write", "delete"])
@pytest.mark.parametrize("key", WRONG_TYPES, ids=WRONG_TYPE_IDS)
def test_a_key_that_is_not_a_string_is_refused(implementation: Implementation, action: str, key: Json) -> None:
    """A key of any type but string gets an error; it is never converted to a string and used."""
    request = {"action": action, "key": key} | ({"value": "x"} if action == "write" else {})
    with seeded_session(implementation) as session:
        assert_refused_and_unchanged(session, request, "shared-context/5/error-code-and-message")


@requirement("shared-context/2.3/value-is-text", "shared-context/5/error-code-and-message")
@pytest.mark.parametrize("value", WRONG_TYPES, ids=WRONG_TYPE_IDS)
@pytest.mark.parametrize("key", ["problem_summary", "new_key"])
def test_a_value_that_is_not_a_string_is_refused(implementation: Implementation, key: str, value: Json) -> None:
    """A value of any type but string gets an error: structured data must be serialized by the caller."""
    with seeded_session(implementation) as session:
        assert_refused_and_unchanged(session, {"action": "write", "key": key, "value": value}, "shared-context/2.3/value-is-text")


@requirement("shared-context/5/invalid-key-on-write", "shared-context/4.3/key-pattern")
@pytest.mark.parametrize(
    "key",
    [
        "problem\x00summary",
        "\x00",
        "problem_summary\x00",
        "problem\x01summary",
        "problem\x1bsummary",
        "problem\x7fsummary",
        "\u200fproblem_summary",
        "problem_summary\u200e",
        "\u202eyrammus_melborp",
        "problem\u2028summary",
        "\ufeffproblem_summary",
    ],
    ids=[
        "nul-inside",
        "nul-alone",
        "nul-trailing",
        "soh",
        "escape",
        "del",
        "rlm-leading",
        "lrm-trailing",
        "rlo",
        "line-separator",
        "bom",
    ],
)
def test_keys_with_control_and_bidi_characters_are_invalid_on_write(implementation: Implementation, key: str) -> None:
    """Keys hiding NUL, control or right-to-left characters around a real key get INVALID_KEY on write and change nothing."""
    with seeded_session(implementation) as session:
        assert_refused_and_unchanged(
            session, {"action": "write", "key": key, "value": "x"}, "shared-context/5/invalid-key-on-write", "INVALID_KEY"
        )
        for action in ("read", "delete"):
            assert_refused_and_unchanged(
                session,
                {"action": action, "key": key},
                "shared-context/5/invalid-key-on-read-delete",
                "INVALID_KEY",
                "KEY_NOT_FOUND",
            )


@requirement(
    "shared-context/5/value-too-large", "shared-context/5/invalid-key-on-write", "shared-context/5/error-code-and-message"
)
@pytest.mark.parametrize("char", ["a", " ", "é", "🎉", "\x00"], ids=["ascii", "space", "accent", "emoji", "nul"])
def test_megabyte_fields_are_refused(implementation: Implementation, char: str) -> None:
    """A 1 MB value gets VALUE_TOO_LARGE, a 1 MB key INVALID_KEY, a 1 MB action an error; nothing changes."""
    with seeded_session(implementation) as session:
        huge = char * MEGABYTE
        assert_refused_and_unchanged(
            session,
            {"action": "write", "key": "problem_summary", "value": huge},
            "shared-context/5/value-too-large",
            "VALUE_TOO_LARGE",
        )
        assert_refused_and_unchanged(
            session,
            {"action": "write", "key": "k" * MEGABYTE, "value": "x"},
            "shared-context/5/invalid-key-on-write",
            "INVALID_KEY",
        )
        assert_refused_and_unchanged(
            session, {"action": "write", "key": huge, "value": "x"}, "shared-context/5/invalid-key-on-write", "INVALID_KEY"
        )
        assert_refused_and_unchanged(session, {"action": huge}, "shared-context/5/error-code-and-message")


@requirement("shared-context/5/error-code-and-message", "shared-context/2.3/value-is-text")
@pytest.mark.parametrize("field", ["action", "key", "value"])
@pytest.mark.parametrize("depth", [50, 500])
def test_deeply_nested_fields_are_refused(implementation: Implementation, field: str, depth: int) -> None:
    """A deeply nested list or object in place of the action, key or value gets an error, not a crash."""
    request = {"action": "write", "key": "problem_summary", "value": "x", field: nested(depth)}
    with seeded_session(implementation) as session:
        assert_refused_and_unchanged(session, request, "shared-context/5/error-code-and-message")


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


def base_requests(key: str) -> dict[str, dict[str, str]]:
    """A well-formed request of each core action on `key`."""
    return {
        "list_keys": {"action": "list_keys"},
        "read": {"action": "read", "key": key},
        "write": {"action": "write", "key": key, "value": "new value"},
        "delete": {"action": "delete", "key": key},
    }


def expected_after(before: dict[str, tuple[str, int, str]], action: str, key: str) -> dict[str, tuple[str, int, str]]:
    """What values() gives after the well-formed request of `action` on `key`, called by CALLER."""
    after = dict(before)
    if action == "write":
        after[key] = ("new value", before[key][1] + 1 if key in before else 1, CALLER)
    elif action == "delete":
        del after[key]
    return after


@requirement("shared-context/3.3/extra-request-fields", "shared-context/3.3/written-by-not-spoofable")
@given(action=st.sampled_from(["list_keys", "read", "write", "delete"]), key=seed_keys, data=st.data())
def test_extra_fields_are_refused_or_ignored(seeded: Session, action: str, key: str, data: st.DataObject) -> None:
    """A request with fields its action does not define is refused and changes nothing, or acts as if they were absent."""
    request = base_requests(key)[action]
    request = request | data.draw(extra_fields(request), label="extra")
    assert schema_errors(f"{SPEC}/request.json", request), f"not malformed: {request!r}"
    before = state(seeded)
    outcome = seeded.tool(request)
    if not outcome.ok:
        assert state(seeded) == before, "a refused request changed the store"
        return
    assert seeded.values() == expected_after(before[0], action, key)
    if action == "write":
        assert (outcome.result["written_by"], outcome.result["version"]) == (CALLER, before[0][key][1] + 1)
    if action == "read":
        assert (outcome.result["value"], outcome.result["version"]) == before[0][key][:2]
    if action == "list_keys":
        assert sorted(item["key"] for item in outcome.result["keys"]) == sorted(SEED)
    if action == "delete":  # put the key back for the next example
        seeded.write(key, SEED[key]).expect("shared-context/3.3/creates-or-overwrites")


@requirement("shared-context/3.3/extra-request-fields", "shared-context/8.1/per-session-isolation")
def test_a_session_id_in_the_body_does_not_redirect_the_call(implementation: Implementation) -> None:
    """A write whose body names another session_id is refused or applied to the caller's own session only."""
    with seeded_session(implementation) as session, seeded_session(implementation) as victim:
        before = state(victim)
        outcome = session.tool({"action": "write", "key": "problem_summary", "value": "hijack", "session_id": victim.session_id})
        assert state(victim) == before
        expected = "hijack" if outcome.ok else SEED["problem_summary"]
        assert session.read("problem_summary").result["value"] == expected
