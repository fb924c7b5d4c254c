"""The context-snapshot schemas accept what the origin crate (version 0.6.0) writes with serde.

`fixtures/context-snapshot/documents/serde-snapshot.json` is a snapshot in that shape (../shared/ORIGINS.md): the header
flattened with fields the page never lists, Options without `skip_serializing_if` written as `null`, hashes as tagged
byte arrays. The page defines none of these fields, so the schemas must not forbid them.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any, Final

import pytest

from ctxconform.conformance.judge._data import fixtures_dir
from ctxconform.conformance.judge._schemas import schema_errors

Json = dict[str, Any]
SNAPSHOT: Final = "context-snapshot/snapshot.json"
DOCUMENT: Final = fixtures_dir() / "context-snapshot" / "documents" / "serde-snapshot.json"
# The 0.6.0 header, in the order ORIGINS.md lists it, then the snapshot's own fields.
HEADER: Final = (
    "object_id",
    "object_type",
    "header_version",
    "schema_version",
    "created_at",
    "updated_at",
    "created_by",
    "visibility",
    "tags",
    "external_ids",
    "checksum",
)


def serde_snapshot() -> Json:
    """The serde-shaped example snapshot."""
    document: Json = json.loads(DOCUMENT.read_text(encoding="utf-8"))
    return document


def changed(change: Callable[[Json], None]) -> Json:
    """The example with one change made to a copy."""
    document = copy.deepcopy(serde_snapshot())
    change(document)
    return document


def test_the_example_follows_the_origin_serde_shape() -> None:
    """The example has the 0.6.0 header first, in order, then selection_strategy, items and summary.

    Options are null where serde writes them so, hashes tagged byte arrays.
    """
    document = serde_snapshot()
    assert list(document) == [*HEADER, "selection_strategy", "items", "summary"]
    assert document["created_by"] == {"kind": "agent", "id": "agent-7", "display_name": None, "auth_context": None}
    assert document["checksum"] is None
    assert all(list(item["blob"]) == ["Sha1"] and len(item["blob"]["Sha1"]) == 20 for item in document["items"])


def test_the_serde_snapshot_is_valid() -> None:
    """The example is a valid snapshot, alone and as the snapshot of a get_snapshot answer."""
    assert schema_errors(SNAPSHOT, serde_snapshot()) == []
    answer = {"snapshot": serde_snapshot(), "state": "finalized"}
    assert schema_errors("context-snapshot/get_snapshot.response.json", answer) == []


ALLOWED: Final[dict[str, Callable[[Json], None]]] = {
    "display-name-given": lambda d: d["created_by"].update(display_name="Coding agent"),
    "display-name-absent": lambda d: d["created_by"].pop("display_name"),
    "auth-context-absent": lambda d: d["created_by"].pop("auth_context"),
    "auth-context-set": lambda d: d["created_by"].update(auth_context={"session": "s-1", "scopes": ["read"]}),
    "actor-kind-mcp-client": lambda d: d["created_by"].update(kind="mcp_client"),
    "actor-kind-any-string": lambda d: d["created_by"].update(kind=" "),
    "summary-null": lambda d: d.update(summary=None),
    "summary-absent": lambda d: d.pop("summary"),
    "items-omitted-when-empty": lambda d: d.pop("items"),
    "items-empty": lambda d: d.update(items=[]),
    "preview-null": lambda d: d["items"][0].update(preview=None),
    "preview-absent": lambda d: d["items"][0].pop("preview"),
    "preview-long": lambda d: d["items"][0].update(preview="x" * 5000),
    "blob-null-in-draft": lambda d: d["items"][1].update(blob=None),
    "blob-absent-in-draft": lambda d: d["items"][1].pop("blob"),
    "blob-in-hex": lambda d: d["items"][0].update(blob=bytes(d["items"][0]["blob"]["Sha1"]).hex()),
    "blob-sha256": lambda d: d["items"][0].update(blob={"Sha256": list(range(32))}),
    "other-kind-blank-name": lambda d: d["items"][2].update(kind={"other": ""}),
    "path-blank": lambda d: d["items"][2].update(path="  "),
    "path-long": lambda d: d["items"][2].update(path="p" * 5000),
    "public": lambda d: d.update(visibility="public"),
    "checksum-hex": lambda d: d.update(checksum="ab" * 32),
    "header-version-absent": lambda d: d.pop("header_version"),
    "unknown-header-field": lambda d: d.update(parent_id=None, revision=3),
    "created-at-offset-form": lambda d: d.update(created_at="2026-02-20T14:30:00+00:00"),
    "created-at-lower-case": lambda d: d.update(created_at="2026-02-20t14:30:00z"),
}


@pytest.mark.parametrize("case", list(ALLOWED))
def test_what_the_origin_may_write_is_valid(case: str) -> None:
    """Each other value serde writes, or the page leaves open, is a valid snapshot too."""
    assert schema_errors(SNAPSHOT, changed(ALLOWED[case])) == []


REFUSED: Final[dict[str, Callable[[Json], None]]] = {
    "other-object-type": lambda d: d.update(object_type="plan"),
    "object-id-not-uuid": lambda d: d.update(object_id="snapshot-1"),
    "no-created-by": lambda d: d.pop("created_by"),
    "actor-id-number": lambda d: d["created_by"].update(id=7),
    "display-name-number": lambda d: d["created_by"].update(display_name=7),
    "unknown-strategy": lambda d: d.update(selection_strategy="random"),
    "unknown-kind": lambda d: d["items"][0].update(kind="video"),
    "short-tagged-blob": lambda d: d["items"][0].update(blob={"Sha1": [0] * 19}),
    "created-at-not-utc": lambda d: d.update(created_at="2026-02-20T15:30:00+01:00"),
    "summary-number": lambda d: d.update(summary=3),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_what_breaks_a_defined_field_is_still_refused(case: str) -> None:
    """Opening the schema for the origin's shape leaves the fields the kit does define checked."""
    assert schema_errors(SNAPSHOT, changed(REFUSED[case])) != []
