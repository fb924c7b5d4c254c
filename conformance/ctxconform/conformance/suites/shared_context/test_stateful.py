"""Stateful test: random operation sequences over several sessions and participants, each answer against a model of the spec.

The model keeps what the spec says each session holds. Where the spec allows more than one answer (which error
code, when a call breaks several rules; reads of an archived session) any of them is accepted. A difference is
charged to the requirement that says what the answer must be; an entry that is missing where the model holds it
is charged to what explains it (a delete in another session, the end of the subagent that wrote it) when one does.
A key written again after its delete may start at 1 or continue its count (3.3's two readings), the same way each time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, initialize, rule, run_state_machine_as_test

from ctxconform.conformance.suites.shared_context import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.shared_context.client import (
    ARCHIVED_READ_CODES,
    Session,
    misjudged,
    new_session_id,
    rewrite_reading,
    rewrite_versions,
)
from ctxconform.conformance.testing import Checked, Implementation, check, check_equal, requirement

KEYS: Final = st.sampled_from(["current_phase", "problem_summary", "scope", "open_questions", "k1", "x" * 64])
BAD_KEYS: Final = st.sampled_from(["", "Scope", "phase.status", "inv:findings", "x" * 65, "a-b", "caf\u00e9"])
PARTICIPANTS: Final = st.sampled_from(["orchestrator", "subagent:analysis", "subagent:analysis:3"])
# Lengths are multiples of four, so every reading of len/4 gives the same count; 0 is left out for the same reason.
TOKENS: Final = st.one_of(st.integers(1, 40), st.integers(900, 1000), st.integers(1001, 1010))
FILLER: Final = st.characters(codec="utf-8", exclude_categories=["Cs"])
SLOTS: Final = [f"slot_{n}" for n in range(11)]
VALID_KEY: Final = re.compile("[a-z0-9_]{1,64}")
MAX_VALUE: Final = 1000
MAX_STORE: Final = 10_000
ORCHESTRATOR: Final = "orchestrator"
SUBAGENT: Final = "subagent:analysis"

# Per error code: the requirement a call breaks when it is accepted where the code is due, and when it gets another code.
ACCEPTED_WRONGLY: Final = {
    "SESSION_NOT_FOUND": R.S8_4_DELETE_SESSION_GONE,
    "SESSION_ARCHIVED": R.S8_4_ARCHIVE_READ_ONLY,
    "INVALID_KEY": R.S4_3_KEY_PATTERN,
    "VALUE_TOO_LARGE": R.S4_1_VALUE_SIZE_LIMIT,
    "STORE_FULL": R.S4_2_STORE_SIZE_LIMIT,
}
WRONG_CODE: Final = {
    "SESSION_NOT_FOUND": R.S5_SESSION_NOT_FOUND,
    "SESSION_ARCHIVED": R.S5_SESSION_ARCHIVED,
    "INVALID_KEY": R.S5_INVALID_KEY_ON_WRITE,
    "VALUE_TOO_LARGE": R.S5_VALUE_TOO_LARGE,
    "STORE_FULL": R.S5_STORE_FULL,
    "KEY_NOT_FOUND": R.S5_KEY_NOT_FOUND,
}
ORDER: Final = ("SESSION_NOT_FOUND", "SESSION_ARCHIVED", "INVALID_KEY", "VALUE_TOO_LARGE", "STORE_FULL", "KEY_NOT_FOUND")


@dataclass
class Model:
    """What the spec says one session holds, and what happened around its entries."""

    entries: dict[str, tuple[str, int, str]] = field(default_factory=dict)  # key -> (value, version, written_by)
    archived: bool = False
    deleted: dict[str, int] = field(default_factory=dict)  # key -> its version when it was last deleted here
    outlived: set[str] = field(default_factory=set)  # keys another participant wrote after (their writer moved on)
    deleted_elsewhere: set[str] = field(default_factory=set)  # keys deleted in another session since written here

    def tokens(self) -> int:
        """The store's token total.

        Every value the machine writes is 4 characters or a multiple of 4 long, so every count 8.2 allows (len / 4
        rounded down, up or to nearest, or at least 1) is this one: a store the model fills to exactly 10,000 tokens
        is full under all of them, not one token over under some.
        """
        return sum(len(value) // 4 for value, _, _ in self.entries.values())

    def total_after(self, key: str, tokens: int) -> int:
        """The store's token total if `key` held a value of `tokens` tokens."""
        return self.tokens() - len(self.entries[key][0]) // 4 + tokens if key in self.entries else self.tokens() + tokens

    def wrote(self, key: str, value: str, version: int, participant: str) -> None:
        """Note a write."""
        self.entries[key] = (value, version, participant)
        self.outlived |= {k for k, (_, _, writer) in self.entries.items() if writer != participant}
        self.outlived.discard(key)
        self.deleted_elsewhere.discard(key)

    def missing(self, key: str, default: str) -> str:
        """The requirement an entry the model holds but the implementation lacks breaks."""
        if key in self.deleted_elsewhere:
            return R.S8_1_PER_SESSION_ISOLATION
        if key in self.outlived and self.entries[key][2].startswith("subagent:"):
            return R.S4_5_SURVIVES_SUBAGENT_COMPLETION
        return default


def refused(outcome: Checked, due: list[str], accepted_wrongly: str, misjudged: str | None = None) -> None:
    """The call must be refused (else `accepted_wrongly` fails) with one of the due codes (else the first one's code).

    A code of a rule the call does not break (`misjudged`: see the client's `misjudged`) is that rule's failure.
    """
    outcome.refused(accepted_wrongly)
    outcome.refused(misjudged or WRONG_CODE[min(due, key=ORDER.index)], *due)


def key_rule(key: str) -> str:
    """The requirement of 4.3 an invalid key breaks."""
    if len(key) > 64 and VALID_KEY.fullmatch(key[:64]):
        return R.S4_3_KEY_MAX_LENGTH
    return R.S4_3_NO_SEPARATORS if any(char in key for char in "./:\\") else R.S4_3_KEY_PATTERN


class SharedContextMachine(RuleBasedStateMachine):
    """Calls over several sessions; every answer must be one the model allows."""

    implementation: ClassVar[Implementation]
    sessions = Bundle("sessions")

    def __init__(self) -> None:
        super().__init__()
        self.models: dict[str, Model] = {}
        self.deletes_work = False  # a delete has succeeded: a refused one is then not delete being broken as a whole
        self.rewrite_reading: str | None = None  # which reading of rewrite-after-delete the implementation follows

    def session(self, session_id: str, participant: str = ORCHESTRATOR) -> Session:
        """The session as a participant sees it."""
        return Session(self.implementation, session_id, participant)

    # --- sessions ---------------------------------------------------------------------------------

    @rule(target=sessions)
    def create_session(self) -> str:
        """Create a session: it starts empty."""
        return self.new_session()

    def new_session(self) -> str:
        """Create a session and its model; it must list no keys."""
        session_id = new_session_id()
        created = self.session(session_id).lifecycle("create_session", serves=R.S8_4_CREATE_EMPTY_STORE)
        check(R.S8_4_CREATE_EMPTY_STORE, created.ok, "create_session was refused", received=created.error)
        self.models[session_id] = Model()
        keys = self.session(session_id).keys(R.S8_4_CREATE_EMPTY_STORE)
        check_equal(R.S8_4_CREATE_EMPTY_STORE, keys, [], "the keys of a new session")
        return session_id

    @rule(session_id=sessions)
    def archive_session(self, session_id: str) -> None:
        """Archive a live session."""
        model = self.models.get(session_id)
        if model is not None and not model.archived:
            self.session(session_id).lifecycle("archive_session").expect(R.S8_4_ARCHIVE_READ_ONLY)
            model.archived = True

    @rule(session_id=consumes(sessions))
    def delete_session(self, session_id: str) -> None:
        """Delete a session; later calls to it must get SESSION_NOT_FOUND."""
        if self.models.pop(session_id, None) is not None:
            self.session(session_id).lifecycle("delete_session").expect(R.S8_4_DELETE_SESSION_GONE)
        self.list_keys(session_id, ORCHESTRATOR)

    # --- writes -----------------------------------------------------------------------------------

    def write_and_compare(self, session_id: str, participant: str, key: str, value: str) -> None:
        """Write, and compare the answer with what the model allows."""
        outcome = self.session(session_id, participant).write(key, value, serves=R.S3_3_CREATES_OR_OVERWRITES)
        model = self.models.get(session_id)
        due = [code for code, applies in self.write_errors(model, key, len(value) // 4) if applies]
        if due:
            first = min(due, key=ORDER.index)
            # A code no due rule has names a key or value misjudged; but VALUE_TOO_LARGE on a write that overfills the
            # store is the store's code mislabelled (the two size codes), which store-full's check judges.
            mislabelled = outcome.code in due or (outcome.code == "VALUE_TOO_LARGE" and "STORE_FULL" in due)
            wrongly = None if mislabelled else misjudged(outcome, key, value)
            refused(outcome, due, key_rule(key) if first == "INVALID_KEY" else ACCEPTED_WRONGLY[first], wrongly)
            return
        if model is not None:
            self.accepted_write(model, outcome, session_id, (key, value, participant))

    def accepted_write(self, model: Model, outcome: Checked, session_id: str, write: tuple[str, str, str]) -> None:
        """A write the model accepts: check it was, with the version and writer it must have."""
        key, value, participant = write
        old = model.entries.get(key)
        check(self.refusal_rule(model, outcome, write), outcome.ok, "a valid write was refused", received=outcome.error)
        if old is not None and old[2] != participant:
            check(R.S4_4_LAST_WRITE_WINS, outcome.ok, "an overwrite of another participant's write was refused")
        if len(value) // 4 == MAX_VALUE:
            check(R.S4_1_VALUE_LIMIT_BOUNDARY, outcome.ok, "a value of exactly 1000 tokens was refused")
        if self.others_tokens(session_id) + model.total_after(key, len(value) // 4) > MAX_STORE:
            check(R.S2_1_ONE_STORE_PER_SESSION, outcome.ok, "a write was refused because other stores are full")
        result = outcome.expect(R.S3_3_CREATES_OR_OVERWRITES)
        version_rule = R.S3_3_VERSION_INCREMENTS if old else R.S3_3_CREATE_VERSION_ONE
        expected = old[1] + 1 if old else 1
        if old is None and key in model.deleted:
            version_rule = R.S3_3_REWRITE_AFTER_DELETE_VERSION_ONE
            # Either reading of 3.3 is accepted, the same one for every rewrite: the first rewrite tells which.
            reading = self.rewrite_reading or rewrite_reading(result["version"], model.deleted[key]) or "restart"
            self.rewrite_reading, expected = reading, rewrite_versions(model.deleted[key])[reading]
        check_equal(version_rule, result["version"], expected, f"the version of a write of {key}")
        check_equal(R.S3_3_WRITTEN_BY_SYSTEM_SET, result["written_by"], participant, "written_by")
        model.wrote(key, value, result["version"], participant)

    def refusal_rule(self, model: Model, outcome: Checked, write: tuple[str, str, str]) -> str:
        """The requirement a refused valid write breaks."""
        key, value, participant = write
        if outcome.code == "STORE_FULL":  # this session's store has room: another store was counted
            return R.S2_1_ONE_STORE_PER_SESSION
        wrongly = misjudged(outcome, key, value)  # a value within the limit, or a valid key, refused as breaking it
        if wrongly is not None:
            return wrongly
        old = model.entries.get(key)
        return R.S4_4_LAST_WRITE_WINS if old is not None and old[2] != participant else R.S3_3_CREATES_OR_OVERWRITES

    def others_tokens(self, session_id: str) -> int:
        """The tokens the other live sessions hold."""
        return sum(model.tokens() for sid, model in self.models.items() if sid != session_id)

    def write_errors(self, model: Model | None, key: str, tokens: int) -> list[tuple[str, bool]]:
        """Each error code, and whether a write of `tokens` tokens under `key` is due to get it."""
        valid = VALID_KEY.fullmatch(key) is not None
        return [
            ("SESSION_NOT_FOUND", model is None),
            ("SESSION_ARCHIVED", model is not None and model.archived),
            ("INVALID_KEY", not valid),
            ("VALUE_TOO_LARGE", tokens > MAX_VALUE),
            # Section 5 ranks no code: a write that would overfill the store earns STORE_FULL whatever else it earns.
            ("STORE_FULL", model is not None and model.total_after(key, tokens) > MAX_STORE),
        ]

    @rule(session_id=sessions, participant=PARTICIPANTS, key=KEYS, tokens=TOKENS, motif=st.text(FILLER, min_size=1, max_size=8))
    def write(self, session_id: str, participant: str, key: str, tokens: int, motif: str) -> None:
        """Write a value of a known token count, built from a short generated motif (drawing 4000 characters is slow)."""
        self.write_and_compare(session_id, participant, key, (motif * (4 * tokens))[: 4 * tokens])

    @rule(session_id=sessions, key=BAD_KEYS)
    def write_bad_key(self, session_id: str, key: str) -> None:
        """Write under a key outside the naming rules."""
        self.write_and_compare(session_id, ORCHESTRATOR, key, "v" * 8)

    @rule(session_id=sessions, tokens=st.integers(950, 1000))
    def fill(self, session_id: str, tokens: int) -> None:
        """Write large values under eleven keys: the store fills up on the way."""
        for key in SLOTS:
            self.write_and_compare(session_id, ORCHESTRATOR, key, "f" * (4 * tokens))

    @rule(session_id=sessions, data=st.data())
    def rewrite(self, session_id: str, data: st.DataObject) -> None:
        """Write again a key deleted before."""
        model = self.models.get(session_id)
        gone = sorted(model.deleted.keys() - model.entries.keys()) if model is not None else []
        if gone:
            self.write_and_compare(session_id, ORCHESTRATOR, data.draw(st.sampled_from(gone), label="key"), "anew")

    # --- reads and deletes ------------------------------------------------------------------------

    def some_key(self, session_id: str, data: st.DataObject) -> str:
        """A key of the session's store, or one of KEYS, mostly the former when the store holds any."""
        model = self.models.get(session_id)
        present = sorted(model.entries) if model is not None else []
        keys: st.SearchStrategy[str] = st.sampled_from(present) if bool(present) and data.draw(st.integers(0, 3)) > 0 else KEYS
        return data.draw(keys, label="key")

    @rule(session_id=sessions, participant=PARTICIPANTS, data=st.data())
    def read(self, session_id: str, participant: str, data: st.DataObject) -> None:
        """Read a key, present or not."""
        self.read_key(session_id, participant, self.some_key(session_id, data))

    def read_key(self, session_id: str, participant: str, key: str) -> None:
        """Read one key, and compare the answer with what the model allows."""
        outcome = self.session(session_id, participant).read(key, serves=R.S3_2_RETURNS_VALUE)
        model = self.models.get(session_id)
        if model is None:
            refused(outcome, ["SESSION_NOT_FOUND"], ACCEPTED_WRONGLY["SESSION_NOT_FOUND"])
        elif model.archived and not outcome.ok and outcome.code in ARCHIVED_READ_CODES:
            outcome.refused(R.S4_5_NOT_SURVIVE_ARCHIVAL, *ARCHIVED_READ_CODES)  # the other reading of 4.5
        elif key not in model.entries:
            outcome.refused(R.S4_5_NOT_SURVIVE_ARCHIVAL if model.archived else R.S3_2_KEY_NOT_FOUND)
            outcome.refused(R.S5_KEY_NOT_FOUND, "KEY_NOT_FOUND")
        else:
            owner = R.S4_5_NOT_SURVIVE_ARCHIVAL if model.archived else R.S3_2_RETURNS_VALUE
            rule_of_entry = model.missing(key, owner)
            check(rule_of_entry, outcome.code != "KEY_NOT_FOUND", f"{key} is gone", received=outcome.error)
            result = outcome.expect(owner)
            check_equal(owner, (result["value"], result["version"], result["written_by"]), model.entries[key], f"{key} read")

    @rule(session_id=sessions, participant=PARTICIPANTS, data=st.data())
    def delete(self, session_id: str, participant: str, data: st.DataObject) -> None:
        """Delete a key, present or not."""
        self.delete_key(session_id, participant, self.some_key(session_id, data))

    def delete_key(self, session_id: str, participant: str, key: str) -> None:
        """Delete one key, and compare the answer with what the model allows."""
        outcome = self.session(session_id, participant).delete(key, serves=R.S3_4_REMOVES_KEY)
        model = self.models.get(session_id)
        if model is None or model.archived:
            code = "SESSION_NOT_FOUND" if model is None else "SESSION_ARCHIVED"
            refused(outcome, [code], ACCEPTED_WRONGLY[code])
        elif key not in model.entries:
            refused(outcome, ["KEY_NOT_FOUND"], R.S3_4_KEY_NOT_FOUND)
        else:
            self.accepted_delete(session_id, model, outcome, (key, participant))

    def accepted_delete(self, session_id: str, model: Model, outcome: Checked, delete: tuple[str, str]) -> None:
        """A delete of an entry the model holds: check it was accepted, with the version the entry had."""
        key, participant = delete
        writer = model.entries[key][2]
        if outcome.code == "KEY_NOT_FOUND":
            rule_of_refusal = model.missing(key, R.S3_4_REMOVES_KEY)
        else:
            others = writer != participant and self.deletes_work
            rule_of_refusal = R.S2_2_EQUAL_ACCESS if others else R.S3_4_REMOVES_KEY
        check(rule_of_refusal, outcome.ok, "a delete of an existing key was refused", received=outcome.error)
        if writer != participant:
            check(R.S2_2_EQUAL_ACCESS, outcome.ok, "a delete of another participant's key was refused")
        for other, elsewhere in self.models.items():
            if other != session_id and key in elsewhere.entries:
                elsewhere.deleted_elsewhere.add(key)
        result = outcome.expect(R.S3_4_REMOVES_KEY)
        check_equal(R.S3_4_PREVIOUS_VERSION, result["previous_version"], model.entries[key][1], "previous_version")
        model.deleted[key] = model.entries.pop(key)[1]
        model.outlived.discard(key)
        self.deletes_work = True

    @rule(session_id=sessions, participant=PARTICIPANTS)
    def list_keys(self, session_id: str, participant: str) -> None:
        """List a session's keys."""
        outcome = self.session(session_id, participant).list_keys(serves=R.S3_1_RETURNS_ALL_KEYS)
        model = self.models.get(session_id)
        if model is None:
            refused(outcome, ["SESSION_NOT_FOUND"], ACCEPTED_WRONGLY["SESSION_NOT_FOUND"])
        elif model.archived and not outcome.ok and outcome.code in ARCHIVED_READ_CODES:
            outcome.refused(R.S4_5_NOT_SURVIVE_ARCHIVAL, *ARCHIVED_READ_CODES)  # the other reading of 4.5
        else:
            owner: str = R.S4_5_NOT_SURVIVE_ARCHIVAL if model.archived else R.S3_1_RETURNS_ALL_KEYS
            found = {item["key"]: (item["version"], item["written_by"]) for item in outcome.expect(owner)["keys"]}
            expected = {key: (version, writer) for key, (_, version, writer) in model.entries.items()}
            lost = {model.missing(key, owner) for key in expected.keys() - found.keys()}
            if found != expected and len(lost) == 1 and found.keys() <= expected.keys():
                owner = lost.pop()  # only entries are missing, and one thing explains them all
            check_equal(owner, found, expected, "the keys listed with their version and writer")

    # --- the start of every example ---------------------------------------------------------------

    @initialize(target=sessions)
    def known_history(self) -> str:
        """Start every example with a short known history, so every kind of answer the model checks is met."""
        first, second = self.new_session(), self.new_session()
        self.write_and_compare(first, ORCHESTRATOR, "k1", "v" * 8)
        self.write_and_compare(first, SUBAGENT, "k1", "w" * 8)  # an overwrite of another participant's write
        self.write_and_compare(second, ORCHESTRATOR, "k1", "s" * 8)
        self.read_key(first, ORCHESTRATOR, "k1")
        self.write_and_compare(first, SUBAGENT, "s1", "findings")
        self.write_and_compare(first, ORCHESTRATOR, "k2", "v" * 8)  # the subagent has completed
        self.read_key(first, ORCHESTRATOR, "s1")
        self.delete_key(first, ORCHESTRATOR, "k2")
        self.delete_key(first, ORCHESTRATOR, "k1")  # another participant's key
        self.read_key(second, ORCHESTRATOR, "k1")  # deleted in the first session only
        self.read_key(first, ORCHESTRATOR, "k1")
        self.delete_key(first, ORCHESTRATOR, "k1")
        for key in ("k1", "x" * 65, "a.b", "Scope"):
            self.write_and_compare(first, ORCHESTRATOR, key, "v" * 8)
        self.write_and_compare(first, ORCHESTRATOR, "big", "b" * 4004)
        self.fill(first, 1000)
        self.list_keys(first, ORCHESTRATOR)
        self.write_and_compare(second, ORCHESTRATOR, "k3", "v" * 8)  # the first store is full, this one is not
        self.archive_session(second)
        self.write_and_compare(second, ORCHESTRATOR, "k1", "v" * 8)
        self.read_key(second, ORCHESTRATOR, "k1")
        self.read_key(second, ORCHESTRATOR, "scope")
        self.delete_key(second, ORCHESTRATOR, "k1")
        self.list_keys(second, ORCHESTRATOR)
        self.delete_session(self.new_session())
        return first

    def teardown(self) -> None:
        """Delete what this run created, so the implementation's store stays small."""
        if self.implementation.broken is None:
            for session_id in self.models:
                self.session(session_id).lifecycle("delete_session")


@requirement(
    R.S8_4_CREATE_EMPTY_STORE,
    R.S8_4_ARCHIVE_READ_ONLY,
    R.S8_4_DELETE_SESSION_GONE,
    R.S2_1_ONE_STORE_PER_SESSION,
    R.S2_2_EQUAL_ACCESS,
    R.S4_3_KEY_PATTERN,
    R.S4_3_KEY_MAX_LENGTH,
    R.S4_3_NO_SEPARATORS,
    R.S4_1_VALUE_SIZE_LIMIT,
    R.S4_1_VALUE_LIMIT_BOUNDARY,
    R.S4_2_STORE_SIZE_LIMIT,
    R.S4_4_LAST_WRITE_WINS,
    R.S3_3_CREATES_OR_OVERWRITES,
    R.S3_3_CREATE_VERSION_ONE,
    R.S3_3_VERSION_INCREMENTS,
    R.S3_3_REWRITE_AFTER_DELETE_VERSION_ONE,
    R.S3_3_WRITTEN_BY_SYSTEM_SET,
    R.S3_2_RETURNS_VALUE,
    R.S3_2_KEY_NOT_FOUND,
    R.S3_4_REMOVES_KEY,
    R.S3_4_KEY_NOT_FOUND,
    R.S3_4_PREVIOUS_VERSION,
    R.S3_1_RETURNS_ALL_KEYS,
    R.S4_5_NOT_SURVIVE_ARCHIVAL,
    R.S4_5_SURVIVES_SUBAGENT_COMPLETION,
    R.S8_1_PER_SESSION_ISOLATION,
    R.S5_SESSION_NOT_FOUND,
    R.S5_SESSION_ARCHIVED,
    R.S5_INVALID_KEY_ON_WRITE,
    R.S5_VALUE_TOO_LARGE,
    R.S5_STORE_FULL,
    R.S5_KEY_NOT_FOUND,
)
def test_random_operation_sequences_agree_with_the_model(implementation: Implementation) -> None:
    """Random writes, reads, deletes, lists and lifecycle calls over sessions and participants answer as the spec says."""
    machine: Any = type("Machine", (SharedContextMachine,), {"implementation": implementation})
    run_state_machine_as_test(machine)
