"""Inputs at the edges (issue 20): hostile ids, wrong types, limits at equality, blank values, two writers at once.

Each test names its class of edge input with `edge`.

Stored records written by someone else have no place here: an implementation reads only the state it wrote itself,
and the protocol gives the harness no way to plant a record in it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from ctxconform.conformance.suites.shared_context import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.shared_context.client import (
    SPEC,
    Session,
    fresh_session,
    stored,
    unchanged,
)
from ctxconform.conformance.testing import (
    AWKWARD_TEXTS,
    DEGENERATE_TEXTS,
    HOSTILE_NAMES,
    NAME_PAIRS,
    WRONG_TYPES,
    Implementation,
    check,
    check_equal,
    edge,
    requirement,
    second_instance,
    sized_text,
    unique_hex,
)

Json = Any
ISOLATION = R.S8_1_PER_SESSION_ISOLATION
VALID_KEY = re.compile("[a-z0-9_]{1,64}")
VALID_HOSTILE_KEYS = sorted({name for name in HOSTILE_NAMES if VALID_KEY.fullmatch(name)})
INVALID_HOSTILE_KEYS = [name for name in HOSTILE_NAMES if not VALID_KEY.fullmatch(name)]
# Besides the kit's pairs: a parent reached through `..` or `.`, and a doubled separator.
PAIRS = [*NAME_PAIRS, ("a", "a/.."), ("a", "a/b/.."), ("a/b", "a/b/."), ("a/b", "a//b")]
ORDERED_PAIRS = [*PAIRS, *((b, a) for a, b in PAIRS)]
# Besides the kit's names: ids longer than any file name, of one and of two UTF-8 bytes per character.
SESSION_IDS = [*HOSTILE_NAMES, "a" * 256, "a" * 257, "\u00e9" * 300, "x/" * 200]
WITNESS = {"probe": "the witness's own value"}


def _ids(values: list[Any]) -> list[str]:
    return [ascii(value)[:40] for value in values]


@contextmanager
def created(implementation: Implementation, session_id: str, requirement_id: str) -> Iterator[Session]:
    """A session of a chosen id, created (a refusal fails `requirement_id`) and deleted afterwards."""
    made = Session(implementation, session_id)
    made.lifecycle("create_session", serves=requirement_id).expect(requirement_id)
    try:
        yield made
    finally:
        if implementation.broken is None:
            made.lifecycle("delete_session", serves=requirement_id)


def accepts_id(implementation: Implementation, session_id: str) -> bool:
    """Whether the implementation creates a session of this id at all (a session of its own, deleted again)."""
    probe = Session(implementation, session_id)
    made = probe.lifecycle("create_session", serves=ISOLATION).ok
    if made:
        probe.lifecycle("delete_session", serves=ISOLATION).expect(ISOLATION)
    return made


def value_of(session: Session, key: str, requirement_id: str) -> object:
    """The value read answers for `key`."""
    return session.read(key, serves=requirement_id).expect(requirement_id)["value"]


# --- identifiers the caller chooses: session ids, keys, participants ---------------------------------------------


@edge("identifiers")
@requirement(ISOLATION, R.S8_4_CREATE_EMPTY_STORE)
@pytest.mark.parametrize(("first", "second"), ORDERED_PAIRS, ids=_ids([f"{a}|{b}" for a, b in ORDERED_PAIRS]))
def test_confusable_session_ids_name_separate_sessions(implementation: Implementation, first: str, second: str) -> None:
    """Two session ids code may confuse (path parent, dot segment, case, normal form, NUL) are two separate stores."""
    prefix = f"ctxconform-{unique_hex(8)}/"
    for alone in (first, second):
        if not accepts_id(implementation, f"ctxconform-{unique_hex(8)}/{alone}"):
            pytest.skip(f"the implementation refuses the session id {alone!r} even alone")
    with created(implementation, prefix + first, R.S8_4_CREATE_EMPTY_STORE) as one:
        one.put("probe", "first", ISOLATION)
        # What the first session lists, as the implementation lists it: what a new store holds is create-empty-store's.
        listed = one.keys(ISOLATION)
        with created(implementation, prefix + second, ISOLATION) as two:
            keys = two.keys(ISOLATION)
            leaked = "probe" in keys
            check(ISOLATION, not leaked, "the new second session holds the first one's key", sent=two.session_id, received=keys)
            check_equal(R.S8_4_CREATE_EMPTY_STORE, keys, [], "the keys of the second session, just created", sent=two.session_id)
            two.put("probe", "second", ISOLATION)
            check_equal(ISOLATION, value_of(one, "probe", ISOLATION), "first", "the first session's value", sent=two.session_id)
        check_equal(ISOLATION, one.keys(ISOLATION), listed, "the first session after the second was deleted", sent=second)
        check_equal(ISOLATION, value_of(one, "probe", ISOLATION), "first", "the first session's value", sent=second)


@edge("identifiers")
@requirement(ISOLATION)
@pytest.mark.parametrize("session_id", SESSION_IDS, ids=_ids(SESSION_IDS))
def test_a_hostile_session_id_is_an_opaque_name(implementation: Implementation, session_id: str) -> None:
    """A session id of path segments, map-special names or controls is created and deleted (or refused) apart."""
    with fresh_session(implementation, WITNESS) as witness:
        before = witness.state(ISOLATION)
        hostile = Session(implementation, session_id, "subagent:hostile")
        if hostile.lifecycle("create_session", serves=ISOLATION).ok:
            hostile.put("probe", "hostile", ISOLATION)
            check_equal(ISOLATION, value_of(hostile, "probe", ISOLATION), "hostile", "its own value", sent=session_id)
            hostile.lifecycle("delete_session", serves=ISOLATION).expect(ISOLATION)
        unchanged(ISOLATION, witness, before, {"create_write_delete_session": session_id})


def _escaped(folders: list[Path], name: str) -> list[Path]:
    """What lies in `folders` under a name starting with `name`."""
    return [entry for folder in folders if folder.is_dir() for entry in folder.iterdir() if entry.name.startswith(name)]


@edge("identifiers")
@requirement(ISOLATION)
@pytest.mark.parametrize("climb", ["../", "../../", "a/../../", "./../"])
def test_a_session_id_climbing_out_of_the_state_creates_nothing_outside(implementation: Implementation, climb: str) -> None:
    """A session id with `..` segments is a name: nothing of it appears beside or above the implementation's state."""
    name = f"ctxconform-escape-{unique_hex(8)}"
    outside = [implementation.state_dir.parent, implementation.state_dir.parent.parent]
    session = Session(implementation, climb + name)
    try:
        if session.lifecycle("create_session", serves=ISOLATION).ok:
            session.put("probe", "escaped?", ISOLATION)
        found = _escaped(outside, name)
        check(ISOLATION, not found, "a session's data left the state folder", sent=session.session_id, received=found)
    finally:
        for stray in _escaped(outside, name):
            stray.unlink(missing_ok=True)
        session.lifecycle("delete_session", serves=ISOLATION)


PARTICIPANTS = [name for name in HOSTILE_NAMES if name] + ["subagent:investigation:3"]


@edge("identifiers")
@requirement(R.S3_3_WRITTEN_BY_SYSTEM_SET)
@pytest.mark.parametrize("participant", PARTICIPANTS, ids=_ids(PARTICIPANTS))
def test_a_hostile_participant_is_recorded_as_written(session: Session, participant: str) -> None:
    """Whatever the participant identity, written_by in write, read and list_keys is that identity, unchanged."""
    served = R.S3_3_WRITTEN_BY_SYSTEM_SET
    caller = session.as_participant(participant)
    written = caller.put("probe", "x", served)["written_by"]
    read = caller.read("probe", serves=served).expect(served)["written_by"]
    listed = session.listing(served)["probe"]["written_by"]
    check_equal(served, [written, read, listed], [participant] * 3, "written_by of write, read and list_keys", sent=participant)


@edge("identifiers")
@requirement(R.S3_2_KEY_NOT_FOUND, R.S5_KEY_NOT_FOUND, R.S2_4_AD_HOC_KEYS_PERMITTED)
@pytest.mark.parametrize("key", VALID_HOSTILE_KEYS)
def test_keys_named_like_language_internals_are_ordinary_keys(session: Session, key: str) -> None:
    """A valid key such as __proto__, constructor, __class__ or null is missing until written, then holds its own value."""
    session.put("other", "another key's value", R.S2_4_AD_HOC_KEYS_PERMITTED)
    missing = session.read(key, serves=R.S3_2_KEY_NOT_FOUND)
    missing.refused(R.S3_2_KEY_NOT_FOUND)
    session.put(key, f"value of {key}", R.S2_4_AD_HOC_KEYS_PERMITTED)
    # The code is judged once the key is known to be taken: a key refused as invalid is the key rules' failure.
    missing.refused(R.S5_KEY_NOT_FOUND, "KEY_NOT_FOUND")
    found = {k: value_of(session, k, R.S2_4_AD_HOC_KEYS_PERMITTED) for k in session.keys(R.S2_4_AD_HOC_KEYS_PERMITTED)}
    expected = {"other": "another key's value", key: f"value of {key}"}
    check_equal(R.S2_4_AD_HOC_KEYS_PERMITTED, found, expected, "the session's values", sent=key)


@edge("identifiers")
@requirement(R.S5_INVALID_KEY_ON_WRITE, R.S5_INVALID_KEY_ON_READ_DELETE)
@pytest.mark.parametrize("key", INVALID_HOSTILE_KEYS, ids=_ids(INVALID_HOSTILE_KEYS))
def test_a_hostile_key_is_invalid_and_changes_nothing(implementation: Implementation, key: str) -> None:
    """A key of path segments, capitals, controls or other characters outside [a-z0-9_] is refused by every action."""
    with fresh_session(implementation, {"a": "x", "b": "y", "a_b": "z"}) as session:
        before = session.state(R.S5_INVALID_KEY_ON_WRITE)
        write = {"action": "write", "key": key, "value": "x"}
        session.tool(write, serves=R.S5_INVALID_KEY_ON_WRITE).refused(R.S5_INVALID_KEY_ON_WRITE, "INVALID_KEY")
        for action in ("read", "delete"):
            outcome = session.tool({"action": action, "key": key}, serves=R.S5_INVALID_KEY_ON_READ_DELETE)
            outcome.refused(R.S5_INVALID_KEY_ON_READ_DELETE, "INVALID_KEY", "KEY_NOT_FOUND")
        unchanged(R.S5_INVALID_KEY_ON_WRITE, session, before, write)


# --- values of the wrong type or shape ---------------------------------------------------------------------------

NON_TEXT = [value for value in WRONG_TYPES if not isinstance(value, str)] + [
    ["a"] * 4004,
    ["a" * 4004],
    {"value": "a" * 4004},
    2**64,
]


@edge("wrong-types")
@requirement(R.S2_3_VALUE_IS_TEXT)
@pytest.mark.parametrize("value", NON_TEXT, ids=_ids(NON_TEXT))
def test_a_value_that_is_not_text_is_never_stored(implementation: Implementation, value: Json) -> None:
    """A value of any other type (a list of short strings too, however it would be counted) is refused and not stored."""
    with fresh_session(implementation, WITNESS) as session:
        before = session.state(R.S2_3_VALUE_IS_TEXT)
        request = {"action": "write", "key": "probe", "value": value}
        session.tool(request, serves=R.S2_3_VALUE_IS_TEXT).refused(R.S2_3_VALUE_IS_TEXT)
        unchanged(R.S2_3_VALUE_IS_TEXT, session, before, {"action": "write", "key": "probe", "value": ascii(value)[:80]})


LIFECYCLE = ("create_session", "archive_session", "delete_session")


@edge("wrong-types")
@requirement(R.S5_ERROR_CODE_AND_MESSAGE)
@pytest.mark.parametrize("session_id", WRONG_TYPES, ids=_ids(list(WRONG_TYPES)))
def test_a_session_id_that_is_not_a_name_is_refused_by_every_lifecycle_operation(
    implementation: Implementation, session_id: Json
) -> None:
    """A null, number, boolean, list, object or empty session_id is refused, never turned into a name like "None"."""
    served = R.S5_ERROR_CODE_AND_MESSAGE
    system = Session(implementation, "unused")
    for op in LIFECYCLE:
        system.call(op, {"session_id": session_id}, {"participant": "system"}, serves=served).refused(served)


def _surrogate(text: str) -> bool:
    return any(0xD800 <= ord(c) < 0xE000 for c in text)


@edge("wrong-types")
@requirement(R.S2_3_VALUE_IS_TEXT)
@pytest.mark.parametrize("value", AWKWARD_TEXTS, ids=_ids(list(AWKWARD_TEXTS)))
def test_awkward_text_is_stored_exactly(session: Session, value: str) -> None:
    """CR, CRLF, a BOM, NUL, escapes and combining marks come back exactly; a lone surrogate may be refused, never altered."""
    served = R.S2_3_VALUE_IS_TEXT
    before = session.state(served)
    outcome = session.write("probe", value, serves=served)
    if not outcome.ok and _surrogate(value):
        unchanged(served, session, before, {"action": "write", "key": "probe", "value": value})
        return
    outcome.expect(served)
    check_equal(served, value_of(session, "probe", served), value, "the value read back", sent=value)


# --- limits at equality ------------------------------------------------------------------------------------------

# Code points are what len/4 counts: accented letters are 2 UTF-8 bytes, an emoji 4 bytes and 2 UTF-16 units.
FILLS = ["a", "\u00e9", " ", "\n", "ab\r\n", "\U0001f600"]
UNDER_OR_AT = [3996, 3999, 4000]  # at most 1000 tokens under every reading of len/4
OVER = [4004, 4005]  # more than 1000 tokens under every reading


@edge("boundaries")
@requirement(R.S4_1_VALUE_LIMIT_BOUNDARY, R.S2_3_VALUE_IS_TEXT)
@pytest.mark.parametrize("fill", FILLS, ids=_ids(FILLS))
@pytest.mark.parametrize("length", UNDER_OR_AT)
def test_values_one_under_and_at_the_value_limit_are_accepted(session: Session, length: int, fill: str) -> None:
    """Values of 3996, 3999 and exactly 4000 characters are accepted and read back, whatever the characters."""
    served = R.S4_1_VALUE_LIMIT_BOUNDARY
    value = sized_text(length, fill=fill)
    # Refused as too large: the limit is misplaced; refused otherwise: the write itself failed (creates-or-overwrites).
    stored(session.write("probe", value, serves=served), "probe", value, served, otherwise=R.S3_3_CREATES_OR_OVERWRITES)
    # The value read back exactly is value-is-text's: the limit only decides whether the write is taken.
    read = value_of(session, "probe", R.S2_3_VALUE_IS_TEXT)
    sent, received = f"<{length} x {fill!r}>", f"<{read!r:.80}>"
    check(R.S2_3_VALUE_IS_TEXT, read == value, "the value read back differs", sent=sent, received=received)


@edge("boundaries")
@requirement(R.S4_1_VALUE_SIZE_LIMIT, R.S5_VALUE_TOO_LARGE)
@pytest.mark.parametrize("fill", FILLS, ids=_ids(FILLS))
@pytest.mark.parametrize("length", OVER)
def test_values_just_over_the_value_limit_are_refused(session: Session, length: int, fill: str) -> None:
    """Values of 4004 and 4005 characters are VALUE_TOO_LARGE and change nothing, blank or accented ones too."""
    session.put("probe", "before", R.S4_1_VALUE_SIZE_LIMIT)
    before = session.state(R.S4_1_VALUE_SIZE_LIMIT)
    outcome = session.write("probe", sized_text(length, fill=fill), serves=R.S4_1_VALUE_SIZE_LIMIT)
    outcome.refused(R.S4_1_VALUE_SIZE_LIMIT)
    outcome.refused(R.S5_VALUE_TOO_LARGE, "VALUE_TOO_LARGE")
    unchanged(R.S4_1_VALUE_SIZE_LIMIT, session, before, {"action": "write", "key": "probe", "value": f"<{length} x {fill!r}>"})


NINE_FULL = {f"slot_{n}": sized_text(4000) for n in range(9)}  # 9,000 tokens under every reading
# (characters of a tenth value beside them, characters of the last write): totals agree under every reading of len/4
FITTING = {"9999": (3992, 4), "10000": (3992, 8), "10000-value-at-limit": (0, 4000)}
OVERFILLING = {"10001": (3992, 12), "10001-value-at-limit": (4, 4000)}


def nine_thousand_and(session: Session, tail: int, requirement_id: str) -> None:
    """Seed 9,000 tokens and, unless `tail` is 0, a tenth value of `tail` characters."""
    session.seed(NINE_FULL | ({"tail": sized_text(tail)} if tail else {}), requirement_id)


@edge("boundaries")
@requirement(R.S4_2_STORE_SIZE_LIMIT)
@pytest.mark.parametrize(("tail", "last"), list(FITTING.values()), ids=list(FITTING))
def test_a_store_one_under_and_at_10000_tokens_takes_the_write(session: Session, tail: int, last: int) -> None:
    """A write taking the store to 9,999 or exactly 10,000 tokens (with a value at its own limit too) is accepted."""
    nine_thousand_and(session, tail, R.S4_2_STORE_SIZE_LIMIT)
    session.put("last", sized_text(last), R.S4_2_STORE_SIZE_LIMIT)


@edge("boundaries")
@requirement(R.S4_2_STORE_SIZE_LIMIT, R.S5_STORE_FULL)
@pytest.mark.parametrize(("tail", "last"), list(OVERFILLING.values()), ids=list(OVERFILLING))
def test_a_write_one_token_past_10000_is_store_full(session: Session, tail: int, last: int) -> None:
    """A write taking the store to 10,001 tokens is STORE_FULL and changes nothing, with a value at its limit too."""
    nine_thousand_and(session, tail, R.S4_2_STORE_SIZE_LIMIT)
    before = session.state(R.S4_2_STORE_SIZE_LIMIT)
    outcome = session.write("last", sized_text(last), serves=R.S4_2_STORE_SIZE_LIMIT)
    outcome.refused(R.S4_2_STORE_SIZE_LIMIT)
    outcome.refused(R.S5_STORE_FULL, "STORE_FULL")
    unchanged(R.S4_2_STORE_SIZE_LIMIT, session, before, {"action": "write", "key": "last", "value": f"<{last} characters>"})


@edge("boundaries")
@requirement(R.S4_3_KEY_MAX_LENGTH)
@pytest.mark.parametrize("length", [1, 63, 64])
def test_keys_up_to_exactly_64_characters_are_accepted(session: Session, length: int) -> None:
    """Keys of 1, 63 and exactly 64 characters are accepted and listed as written."""
    key = sized_text(length, fill="k_9")
    session.put(key, "x", R.S4_3_KEY_MAX_LENGTH)
    check_equal(R.S4_3_KEY_MAX_LENGTH, session.keys(R.S4_3_KEY_MAX_LENGTH), [key], "the keys listed", sent=key)


@edge("boundaries")
@requirement(R.S5_INVALID_KEY_ON_WRITE)
@pytest.mark.parametrize("length", [65, 66])
def test_keys_just_over_64_characters_are_invalid(session: Session, length: int) -> None:
    """Keys of 65 and 66 characters are INVALID_KEY on write and change nothing."""
    key = sized_text(length, fill="k_9")
    before = session.state(R.S5_INVALID_KEY_ON_WRITE)
    session.write(key, "x", serves=R.S5_INVALID_KEY_ON_WRITE).refused(R.S5_INVALID_KEY_ON_WRITE, "INVALID_KEY")
    unchanged(R.S5_INVALID_KEY_ON_WRITE, session, before, {"action": "write", "key": key, "value": "x"})


# --- empty and degenerate values ---------------------------------------------------------------------------------


@edge("degenerate")
@requirement(R.S2_3_VALUE_IS_TEXT, R.S3_3_CREATES_OR_OVERWRITES)
@pytest.mark.parametrize("value", DEGENERATE_TEXTS, ids=_ids(list(DEGENERATE_TEXTS)))
def test_empty_and_blank_values_are_stored_exactly(session: Session, value: str) -> None:
    """The empty value and values of only blanks or line breaks are stored, overwritten and read back exactly."""
    served = R.S2_3_VALUE_IS_TEXT
    session.put("probe", "before", R.S3_3_CREATES_OR_OVERWRITES)
    session.put("probe", value, R.S3_3_CREATES_OR_OVERWRITES)
    session.put("other", value, R.S3_3_CREATES_OR_OVERWRITES)
    # The key written once shows how the value is stored; the key overwritten, that the overwrite replaced the value.
    check_equal(served, value_of(session, "other", served), value, "the value read back", sent=value)
    overwritten = value_of(session, "probe", R.S3_3_CREATES_OR_OVERWRITES)
    check_equal(R.S3_3_CREATES_OR_OVERWRITES, overwritten, value, "the value read back after an overwrite", sent=value)


# --- two writers at once -----------------------------------------------------------------------------------------

# (which instance writes, key, value), in the order sent
INTERLEAVED = [
    (0, "shared", "one"),
    (1, "from_second", "b1"),
    (0, "from_first", "a1"),
    (1, "shared", "two"),
    (0, "from_first", "a2"),
    (1, "from_second", "b2"),
]


SECOND_STARTS = next(step for step, (index, _, _) in enumerate(INTERLEAVED) if index == 1)  # its first call


@edge("two-writers")
@requirement(
    R.S4_4_LAST_WRITE_WINS,
    R.S3_SYNCHRONOUS,
    R.S3_3_CREATE_VERSION_ONE,
    R.S3_3_VERSION_INCREMENTS,
    R.S3_3_WRITTEN_BY_SYSTEM_SET,
    R.S4_5_SURVIVES_SUBAGENT_COMPLETION,
    R.S8_1_DURABLE_ACROSS_RESTARTS,
)
def test_two_instances_writing_one_session_lose_no_write(implementation: Implementation, session: Session) -> None:
    """Two instances on one state write one session in turn: both read every acknowledged write, the last one winning.

    Each check is charged to the rule it is about: the second instance, started after the session was created, finds
    it as a restarted process would (durable-across-restarts); the shared key starts at 1 (create-version-one) and an
    overwrite from the other instance adds one to its version (version-increments); every acknowledged write is there
    (synchronous), the later write of the shared key is the one read (last-write-wins), with its own writer
    (written-by-system-set). Keys of a subagent that are gone once another participant wrote are what 4.5 says
    survive the subagent, as the stateful test charges them.
    """
    with second_instance(implementation, SPEC) as other:
        writers = [session, Session(other, session.session_id, "subagent:second")]
        acknowledged: dict[str, tuple[Any, Any, Any]] = {}
        outlived: set[str] = set()  # keys another participant wrote after (their writer moved on)
        shared_versions = []
        for step, (index, key, value) in enumerate(INTERLEAVED):
            served = R.S8_1_DURABLE_ACROSS_RESTARTS if step == SECOND_STARTS else R.S3_SYNCHRONOUS
            writer = writers[index]
            answer = writer.put(key, value, served)
            acknowledged[key] = (value, answer["version"], writer.participant)
            outlived = (outlived | {k for k, entry in acknowledged.items() if entry[2] != writer.participant}) - {key}
            if key == "shared":
                shared_versions.append(answer["version"])
        first, last = shared_versions
        check_equal(R.S3_3_CREATE_VERSION_ONE, first, 1, "the version of the shared key's first write", sent=INTERLEAVED)
        check(
            R.S3_3_VERSION_INCREMENTS,
            last == first + 1,
            "the other instance's overwrite of the shared key did not add one to its version",
            sent=INTERLEAVED,
            received=shared_versions,
        )
        by_subagents = {key for key in outlived if str(acknowledged[key][2]).startswith("subagent:")}
        for reader in writers:
            found = reader.values(R.S3_SYNCHRONOUS)
            lost = acknowledged.keys() - found.keys()
            gone = {"sent": INTERLEAVED, "received": sorted(found), "expected": sorted(acknowledged)}
            check(R.S4_5_SURVIVES_SUBAGENT_COMPLETION, not lost or not lost <= by_subagents, "a subagent's keys are gone", **gone)
            check(R.S3_SYNCHRONOUS, not lost, "acknowledged writes are gone", **gone)
            check_equal(R.S4_4_LAST_WRITE_WINS, found["shared"][0], "two", "the shared key's last value", sent=INTERLEAVED)
            check_equal(
                R.S3_SYNCHRONOUS,
                {key: entry[:2] for key, entry in found.items()},
                {key: entry[:2] for key, entry in acknowledged.items()},
                "the value and version of every acknowledged write",
                sent=INTERLEAVED,
            )
            check_equal(
                R.S3_3_WRITTEN_BY_SYSTEM_SET,
                {key: entry[2] for key, entry in found.items()},
                {key: entry[2] for key, entry in acknowledged.items()},
                "the writer of every acknowledged write",
                sent=INTERLEAVED,
            )
