"""Golden scripts: scripted sessions from fixtures/shared-context, each answer cut into parts compared with its snapshot.

Every step answers the same parts whether it succeeds or not (whether it was accepted, the error code, then the
action's fields), so a difference is charged to the requirement owning the first part that differs. Versions are
compared as counted from the key's last creation: a key written again after its delete may start at 1 or continue
its count (the two readings of 3.3/rewrite-after-delete-version-one), and both read the same.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Final

import pytest
from syrupy.assertion import SnapshotAssertion

from ctxconform.conformance.suites.shared_context import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.shared_context.client import SPEC, Session, token_readings
from ctxconform.conformance.testing import (
    Checked,
    GoldenPart,
    GoldenStep,
    fixtures_dir,
    golden_params,
    load_script,
    replay_script,
)

SPEC_CODES: Final = frozenset(
    {"KEY_NOT_FOUND", "VALUE_TOO_LARGE", "STORE_FULL", "INVALID_KEY", "SESSION_NOT_FOUND", "SESSION_ARCHIVED"}
)
# The fields the spec defines per action, in the order their parts are compared; anything else is not compared.
FIELDS: Final = {
    "write": ("key", "version", "written_by", "written_at"),
    "read": ("key", "value", "version", "written_by", "written_at"),
    "delete": ("deleted", "previous_version"),
    "list_keys": ("keys", "written_at", "sizes", "total_size_tokens"),
}
LISTED: Final = ("key", "written_by", "version")
SCRIPTS: Final = golden_params(fixtures_dir() / SPEC)


def stamp(value: object) -> object:
    """A UTC ISO 8601 timestamp as a placeholder; anything else as it came."""
    try:
        parsed = datetime.fromisoformat(str(value).replace("z", "Z"))
    except ValueError:
        return value
    return "<timestamp>" if isinstance(value, str) and parsed.utcoffset() == timedelta(0) else value


class Replayer:
    """Runs the steps of one script in one session, and cuts each answer into its parts."""

    def __init__(self, session: Session, owner: str, owners: set[str] | frozenset[str] = frozenset()) -> None:
        self.session = session
        self.owner = owner  # the script's owner: what a broken call of a step without its own owner serves
        self.owners = owners  # every requirement the script may charge
        self.lengths: dict[str, int] = {}  # key -> length of the value last written and accepted
        self.last: dict[str, int] = {}  # key -> the version its last accepted write answered
        self.deleted: dict[str, int] = {}  # key -> its version when it was deleted, until it is written again
        self.offsets: dict[str, int] = {}  # key -> the deleted version its count continued from (0: it started at 1)

    def answer(self, index: int, step: GoldenStep) -> Iterator[GoldenPart]:  # noqa: ARG002 - the replayer's signature
        """Make one step's call and yield its parts."""
        participant = (step.context or {}).get("participant", "orchestrator")
        if step.op != "shared_context":
            checked = self.session.lifecycle(step.op, serves=self.owner)
            yield GoldenPart(name="accepted", value=checked.ok)
            yield GoldenPart(name="code", value=checked.code)
            return
        args: dict[str, Any] = step.args
        checked = self.session.as_participant(participant).tool(args, serves=step.owner or self.owner)
        yield from self.outcome(checked, self.uncarried(args, checked))
        action = args.get("action")
        result = checked.raw if checked.ok and isinstance(checked.raw, dict) else {}
        if checked.ok:
            self.remember(args, result)
        for field in FIELDS.get(str(action), ()):
            yield GoldenPart(name=field, value=self.field(field, result) if checked.ok else None)

    def outcome(self, checked: Checked, owner: str = "") -> Iterator[GoldenPart]:
        """Whether the call was accepted (owned by `owner`, if given), and its error code (one the spec lacks as <refused>)."""
        yield GoldenPart(name="accepted", value=checked.ok, owner=owner)
        code = None if checked.ok else (checked.code if checked.code in SPEC_CODES else "<refused>")
        yield GoldenPart(name="code", value=code)

    def uncarried(self, args: object, checked: Checked) -> str:
        """The owner of whether a delete refused with a code the spec does not define was accepted, else "" (the step's).

        Such a delete was not carried out at all, whatever the step shows (a key that outlived its writer, say):
        that is the delete's own failure, removes-key's, when the script charges that requirement.
        """
        action = args.get("action") if isinstance(args, dict) else None
        if action != "delete" or checked.ok or checked.code in SPEC_CODES or R.S3_4_REMOVES_KEY not in self.owners:
            return ""
        return R.S3_4_REMOVES_KEY

    def remember(self, args: dict[str, Any], result: dict[str, Any]) -> None:
        """Track the value lengths and versions an accepted write or delete leaves (token readings, version counts)."""
        key = str(args.get("key"))
        if args.get("action") == "write":
            self.lengths[key] = len(str(args["value"]))
            version = result.get("version")
            if key in self.deleted:
                gone = self.deleted.pop(key)
                self.offsets[key] = gone if version == gone + 1 else 0
            if isinstance(version, int):
                self.last[key] = version
        elif args.get("action") == "delete":
            self.lengths.pop(key, None)
            if key in self.last:
                self.deleted[key] = self.last.pop(key)

    def counted(self, key: object, version: object) -> object:
        """A version as counted from the key's last creation (a count continued after a delete is taken back)."""
        offset = self.offsets.get(str(key), 0)
        return version - offset if isinstance(version, int) and not isinstance(version, bool) else version

    def field(self, name: str, result: dict[str, Any]) -> object:
        """One field of an accepted answer, normalized: timestamps as placeholders, token counts as readings."""
        items = [item for item in result.get("keys") or [] if isinstance(item, dict)]
        items.sort(key=lambda item: str(item.get("key")))
        if name == "keys":
            listed = [{field: item.get(field) for field in LISTED} for item in items]
            return [item | {"version": self.counted(item.get("key"), item.get("version"))} for item in listed]
        if name == "written_at" and "keys" in result:
            return {str(item.get("key")): stamp(item.get("written_at")) for item in items}
        if name == "sizes":
            return {str(item.get("key")): self.size(item) for item in items}
        if name == "total_size_tokens":
            return "<sum>" if "total_size_tokens" in result else "<absent>"
        if name in ("version", "previous_version"):
            return self.counted(result.get("deleted", result.get("key")), result.get(name))
        return stamp(result.get(name)) if name == "written_at" else result.get(name)

    def size(self, item: dict[str, Any]) -> object:
        """value_size_tokens as <len/4> when it is a reading of the value's length, else as it came."""
        size = item.get("value_size_tokens")
        length = self.lengths.get(str(item.get("key")))
        return "<len/4>" if length is not None and size in token_readings(length) else size


@pytest.mark.parametrize("script", SCRIPTS)
def test_scripted_session_matches_the_golden_snapshot(script: Path, session: Session, snapshot: SnapshotAssertion) -> None:
    """A scripted session's answers, with timestamps and token readings normalized, match the golden snapshot."""
    golden = load_script(script)
    replay_script(golden, Replayer(session, golden.owner, golden.owners()).answer, snapshot)
