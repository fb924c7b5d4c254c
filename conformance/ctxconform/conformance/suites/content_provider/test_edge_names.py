"""Names and ids the caller chooses, at the edges (4.2, 5.1, 6.2): hostile spellings are opaque, limits hold exactly.

Register names, session ids and execution ids are drawn from the kit's hostile alphabet (path separators and dot
segments, prototype members, control characters, case and normalization variants), narrowed to what the schemas let
through: each is a name like any other, kept exactly and never confused with another. Names that differ only in
case are left out of register pairs (4.2/stable-name's readings differ there); session ids are exact keys.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import pytest

from ctxconform.conformance.suites.content_provider import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.content_provider.client import (
    SPEC,
    Execution,
    fresh_execution,
    input_lanes,
    key,
    register_view,
    registers,
    rehydrated,
)
from ctxconform.conformance.testing import (
    HOSTILE_NAMES,
    NAME_PAIRS,
    Implementation,
    check,
    check_equal,
    edge,
    requirement,
    schema_errors,
    sized_text,
)

Json = dict[str, Any]
ROUND_TRIP: Final = R.S6_2_PERSIST_AND_REHYDRATE
LIMIT: Final = 256  # the kit's bound on names and ids (schemas/content-provider/defs.json)
FILLS: Final = {"ascii": "a", "two-byte": "\u00e9", "astral": "\U0001f600", "combining": "e\u0301"}


def valid(op: str, **fields: object) -> bool:
    """Whether a request with these fields (and a plain executionId) is well formed."""
    return not schema_errors(f"{SPEC}/{op}.request.json", {"executionId": "e", **fields})


def _caseless(pair: tuple[str, str]) -> bool:
    a, b = pair
    return a.lower() == b.lower() or a.upper() == b.upper() or a.casefold() == b.casefold()


REGISTER_NAMES: Final = [n for n in HOSTILE_NAMES if valid("add_register", name=n, classification="Session")]
REGISTER_PAIRS: Final = [
    p for p in NAME_PAIRS if not _caseless(p) and all(valid("add_register", name=n, classification="Session") for n in p)
]
SESSION_IDS: Final = [n for n in HOSTILE_NAMES if valid("persist", sessionId=n)]
SESSION_PAIRS: Final = [p for p in NAME_PAIRS if all(valid("persist", sessionId=n) for n in p)]
EXECUTION_PAIRS: Final = [p for p in NAME_PAIRS if all(valid("get_provider", executionId=n) for n in p)]


def by_name(execution: Execution, serves: str) -> dict[str, Json]:
    """The provider's registers by their exact name."""
    return {register["name"]: register_view(register) for register in execution.document(serves)["registers"]}


def filed(execution: Execution, name: str, text: str, classification: str, serves: str) -> None:
    """Add a register and append one item to it, each charged to `serves`."""
    execution.add(name, classification, serves=serves)
    execution.append(name, text, serves=serves)


@edge("identifiers")
@requirement(R.S4_2_STABLE_NAME, R.S4_2_MULTIPLE_REGISTERS, R.S4_3_CONSUMABLE_IN_INPUT_ITEMS)
@pytest.mark.parametrize("name", REGISTER_NAMES, ids=ascii)
def test_a_hostile_register_name_is_an_opaque_name(execution: Execution, name: str) -> None:
    """A register named like a path, a prototype member or a control sequence holds its items under its exact name."""
    many = R.S4_2_MULTIPLE_REGISTERS
    filed(execution, "Other", "kept", "Consumable", many)
    filed(execution, name, "mine", "Consumable", many)
    found = by_name(execution, many)
    mine = {"name": name, "classification": "Consumable", "items": ["mine"]}
    check_equal(R.S4_2_STABLE_NAME, found.get(name), mine, f"the register {name!r}, by its exact name", sent=name)
    check_equal(many, found.get("Other"), {**mine, "name": "Other", "items": ["kept"]}, "the register beside it")
    lanes = input_lanes(execution.compose())
    check_equal(R.S4_3_CONSUMABLE_IN_INPUT_ITEMS, lanes.get(key(name)), ["mine"], f"the input items of {name!r}")


@edge("identifiers")
@requirement(R.S4_2_MULTIPLE_REGISTERS)
@pytest.mark.parametrize("pair", REGISTER_PAIRS, ids=ascii)
def test_register_names_code_may_confuse_are_two_registers(execution: Execution, pair: tuple[str, str]) -> None:
    """Two names one may take for the other (a path parent, a normalization variant, a prototype member) stay apart."""
    many = R.S4_2_MULTIPLE_REGISTERS
    for name in pair:
        filed(execution, name, f"item of {name!r}", "Session", many)
    found = by_name(execution, many)
    for name in pair:
        expected = {"name": name, "classification": "Session", "items": [f"item of {name!r}"]}
        check_equal(many, found.get(name), expected, f"the register {name!r} beside {pair}", sent=pair)


def escape(state_dir: Path, session: str) -> Path | None:
    """Where a session id read as a path relative to the state folder lands, when that is outside the folder."""
    try:
        home = state_dir.resolve()
        target = (home / session.replace("\\", "/")).resolve()
    except (OSError, ValueError):
        return None
    return None if target == home or home in target.parents or target in home.parents else target


def landed(target: Path | None) -> set[str]:
    """The entries beside `target` whose name starts with its name (what a path-joined id would have written)."""
    if target is None or not target.parent.is_dir():
        return set()
    return {entry.name for entry in target.parent.iterdir() if entry.name.startswith(target.name)}


@edge("identifiers")
@requirement(ROUND_TRIP)
@pytest.mark.parametrize("session", SESSION_IDS, ids=ascii)
def test_a_hostile_session_id_persists_and_rehydrates(implementation: Implementation, session: str) -> None:
    """A session id that looks like a path or a prototype member is a plain key, and writes nothing outside the state."""
    target = escape(implementation.state_dir, session)
    before = landed(target)
    with fresh_execution(implementation) as execution:
        filed(execution, "Notes", session, "Session", ROUND_TRIP)
        saved = execution.registers(ROUND_TRIP)
        execution.persist(session, serves=ROUND_TRIP)
    copy = rehydrated(implementation, ROUND_TRIP, sessionId=session)
    check_equal(ROUND_TRIP, copy.registers(ROUND_TRIP), saved, f"the provider rehydrated from {session!r}", sent=session)
    copy.end_execution()
    appeared = sorted(landed(target) - before)
    check(ROUND_TRIP, not appeared, "persisting made files outside the state folder", sent=session, received=appeared)


@edge("identifiers")
@requirement(ROUND_TRIP)
@pytest.mark.parametrize("pair", SESSION_PAIRS, ids=ascii)
def test_session_ids_code_may_confuse_are_two_sessions(implementation: Implementation, pair: tuple[str, str]) -> None:
    """Two session ids one may take for the other (a path parent, a case or dot-segment variant) keep two providers."""
    saved = {}
    for session in pair:
        with fresh_execution(implementation) as execution:
            filed(execution, "Notes", f"saved under {session!r}", "Session", ROUND_TRIP)
            saved[session] = execution.registers(ROUND_TRIP)
            execution.persist(session, serves=ROUND_TRIP)
    for session in pair:
        copy = rehydrated(implementation, ROUND_TRIP, sessionId=session)
        check_equal(ROUND_TRIP, copy.registers(ROUND_TRIP), saved[session], f"the provider of {session!r}", sent=pair)
        copy.end_execution()


@edge("identifiers")
@requirement(R.S5_1_ONE_PROVIDER_PER_EXECUTION)
@pytest.mark.parametrize("pair", EXECUTION_PAIRS, ids=ascii)
def test_execution_ids_code_may_confuse_are_two_executions(implementation: Implementation, pair: tuple[str, str]) -> None:
    """Two execution ids one may take for the other each get a provider of their own; ending one leaves the other."""
    one = R.S5_1_ONE_PROVIDER_PER_EXECUTION
    first, second = (Execution(implementation, execution_id) for execution_id in pair)
    # These ids recur across cases: whatever fails here, neither execution is left to the next case to find.
    left = [first, second]
    try:
        first.create(serves=one)
        second.create(serves=one)
        filed(first, "Notes", "first", "Session", one)
        check_equal(one, key("Notes") in second.registers(one), False, f"a register of {pair[0]!r} in {pair[1]!r}", sent=pair)
        left.remove(first)
        first.end_execution()
        check_equal(one, sorted(second.registers(one)), [key("ToolCallManifest")], f"{pair[1]!r} after {pair[0]!r} ended")
    finally:
        if implementation.broken is None:
            for execution in left:
                execution.end_execution()


# Each limited field, and the requirement a name or id of it kept exactly serves.
LIMITED: Final = {
    "name": R.S4_2_STABLE_NAME,
    "sessionId": ROUND_TRIP,
    "executionId": R.S5_1_ONE_PROVIDER_PER_EXECUTION,
}


def limit_cases() -> list[Any]:
    """Ids and names one under, at and one over the limit, in fills of 1 to 4 UTF-8 bytes and of combining marks."""
    return [
        pytest.param(field, size, fill, id=f"{field}-{size}-{name}", marks=requirement(rid))
        for field, rid in LIMITED.items()
        for size in (LIMIT - 1, LIMIT, LIMIT + 1)
        for name, fill in FILLS.items()
    ]


@edge("boundaries")
@pytest.mark.parametrize(("field", "size", "fill"), limit_cases())
def test_names_and_ids_up_to_the_limit_are_kept_and_longer_ones_refused(
    implementation: Implementation, field: str, size: int, fill: str
) -> None:
    """A name or id of up to 256 characters (whatever its UTF-8 size) is kept exactly; one of 257 is refused."""
    value = sized_text(size, fill=fill)
    accepted = {"name": _name_kept, "sessionId": _session_kept, "executionId": _execution_kept}[field]
    accepted(implementation, value, size <= LIMIT)


def _name_kept(implementation: Implementation, name: str, fits: bool) -> None:
    rid = R.S4_2_STABLE_NAME
    with fresh_execution(implementation) as execution:
        sent = {"executionId": execution.execution_id, "name": name, "classification": "Session"}
        outcome = execution.send("add_register", sent, serves=rid)
        if not fits:
            outcome.refused(rid)
            check_equal(rid, sorted(by_name(execution, rid)), ["ToolCallManifest"], "the registers after the refusal")
            return
        check_equal(rid, register_view(outcome.expect(rid)["register"])["name"], name, "the name answered", sent=len(name))
        check_equal(rid, name in by_name(execution, rid), True, f"a register named with {len(name)} characters")


def _session_kept(implementation: Implementation, session: str, fits: bool) -> None:
    rid = ROUND_TRIP
    with fresh_execution(implementation) as execution:
        filed(execution, "Notes", "x", "Session", rid)
        saved = execution.registers(rid)
        outcome = execution.send("persist", {"executionId": execution.execution_id, "sessionId": session}, serves=rid)
        if not fits:
            outcome.refused(rid)
            return
        outcome.expect(rid)
    copy = rehydrated(implementation, rid, sessionId=session)
    check_equal(rid, copy.registers(rid), saved, f"the provider of a session id of {len(session)} characters")
    copy.end_execution()


def _execution_kept(implementation: Implementation, execution_id: str, fits: bool) -> None:
    rid = R.S5_1_ONE_PROVIDER_PER_EXECUTION
    execution = Execution(implementation, execution_id)
    outcome = execution.send("create_provider", {"executionId": execution_id}, serves=rid)
    if not fits:
        outcome.refused(rid)
        execution.send("get_provider", {"executionId": execution_id}, serves=rid).refused(rid)
        return
    outcome.expect(rid)
    check_equal(rid, sorted(registers(execution.document(rid))), [key("ToolCallManifest")], "the new provider")
    execution.end_execution()
