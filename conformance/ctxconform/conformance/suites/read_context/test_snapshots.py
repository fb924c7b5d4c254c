"""Golden scripts: the fixture workspaces of fixtures/read-context, answers normalized and compared with the snapshots."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from syrupy.assertion import SnapshotAssertion

from ctxconform.conformance.suites.read_context.client import (
    GAP_DEFAULTS,
    Workspace,
    as_text,
    check_repeats,
    origin_details,
    raw_of,
    taste_text,
)
from ctxconform.conformance.testing import (
    GoldenPart,
    GoldenScript,
    GoldenStep,
    check,
    fixtures_dir,
    golden_params,
    load_script,
    replay_script,
)

Json = dict[str, Any]

FIXTURES: Final = fixtures_dir() / "read-context"
# The part whose owner a refusal fails, as a difference in every part would; and the part owning each list's limit.
FIRST_PART: Final = "tastes.default"
MARKER: Final = re.compile(r"\n\n\.\.\. \[\d+ lines elided\] \.\.\.\n\n")
LIMITED: Final = {"recent_log": "recent_log.timestamps", "recent_gaps": "recent_gaps.timestamps"}


def install(fixture: Path, workspace: Workspace) -> None:
    """Copy the fixture's workspace/ and tastes/ files into the image's workspace and the tastes folder."""
    if not fixture.is_dir():
        raise RuntimeError(f"golden script names the fixture folder {fixture}, which does not exist")
    for part, target in (("workspace", workspace.folder), ("tastes", workspace.tastes_dir)):
        if (fixture / part).is_dir():
            shutil.copytree(fixture / part, target, dirs_exist_ok=True)


def log_lines(fixture: Path) -> list[Json]:
    """The JSON objects of the fixture's log.jsonl."""
    path = fixture / "workspace" / "log.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    return [record for record in map(json.loads, filter(str.strip, lines)) if isinstance(record, dict)]


def line_workarounds(fixture: Path) -> dict[Any, str]:
    """The workaround of each gap line by description; '' where a line has none."""
    path = fixture / "workspace" / "vocabulary_gaps.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    records = [json.loads(line) for line in lines if line.strip()]
    return {record.get("description"): record.get("workaround", "") for record in records}


def conflicts(context: Json) -> list[Json]:
    """tastes.conflicts, files as sorted genre names ("x.md" read as "x"), entries sorted: repeats stay visible."""
    entries = [
        {"point": entry["point"], "files": sorted(name.removesuffix(".md") for name in entry["files"])}
        for entry in context["tastes"]["conflicts"]
    ]
    return sorted(entries, key=lambda entry: json.dumps(entry, sort_keys=True))


def workarounds(gaps: list[Json], fixture: Path) -> list[list[Any]]:
    """[description, workaround] per record; gap-workaround allows the field absent, read as the line's own."""
    lines = line_workarounds(fixture)
    return sorted([record["description"], record.get("workaround", lines.get(record["description"], ""))] for record in gaps)


def parts(context: Json, fixture: Path) -> Iterator[GoldenPart]:
    """What conforming implementations share under every reading of the registry, cut into the parts compared."""
    tastes, brief, notes = context["tastes"], context["brief"], context["notes"]
    # log-entry-shape: details that are the line's own details object are read as the line's other keys.
    log = origin_details(context["recent_log"], log_lines(fixture))
    gaps = [{key: value for key, value in record.items() if key != "workaround"} for record in context["recent_gaps"]]
    summary = as_text(notes["summary"])  # markdown-line-breaks: \r\n may come back as \n
    if notes["truncated"]:  # tail-last-30: the file's final line break may be kept (the fixtures' last lines are not blank)
        summary = summary.removesuffix("\n")
    # taste-text-whitespace: a taste text may come back without its surrounding whitespace.
    yield GoldenPart(name="tastes.default", value=taste_text(tastes["default"]))
    # missing-genre-file: a declared genre without a file is left out or ''.
    trimmed = {name: taste_text(text) for name, text in tastes["genres"].items()}
    yield GoldenPart(name="tastes.genres", value={name: text for name, text in trimmed.items() if text})
    genres = {name.removesuffix(".md") for name in tastes["genres"]}
    named = {name for entry in conflicts(context) for name in entry["files"]}
    yield GoldenPart(name="tastes.conflicts.outside-genres", value=sorted(named - genres))
    yield GoldenPart(name="tastes.conflicts", value=conflicts(context))
    yield GoldenPart(name="brief.raw", value=as_text(brief["raw"]))
    yield GoldenPart(name="brief.intent", value=brief["intent"].strip())  # brief-intent: surrounding whitespace aside
    yield GoldenPart(name="brief.tastes", value=brief["tastes"])
    yield from notes_parts(summary, truncated=notes["truncated"])
    yield GoldenPart(name="notes", value={"summary": summary, "truncated": notes["truncated"]})
    yield GoldenPart(name="recent_log.timestamps", value=sorted(entry["timestamp"] for entry in log))
    yield GoldenPart(name="recent_log.any-order", value=sorted(json.dumps(entry, sort_keys=True) for entry in log))
    yield GoldenPart(name="recent_log", value=log)
    yield GoldenPart(name="recent_gaps.timestamps", value=sorted(str(record["timestamp"]) for record in gaps))
    defaults = [{key: record.get(key, "(absent)") for key in GAP_DEFAULTS} for record in gaps]
    yield GoldenPart(name="recent_gaps.defaults", value=sorted(json.dumps(fields, sort_keys=True) for fields in defaults))
    yield GoldenPart(name="recent_gaps.any-order", value=sorted(json.dumps(record, sort_keys=True) for record in gaps))
    yield GoldenPart(name="recent_gaps", value=gaps)
    yield GoldenPart(name="recent_gaps.workaround", value=workarounds(context["recent_gaps"], fixture))


def notes_parts(summary: str, *, truncated: bool) -> Iterator[GoldenPart]:
    """A summary cut at its elision marker into head, marker and tail (short notes: all head), compared before it whole."""
    found = MARKER.search(summary) if truncated else None
    head, marker, tail = (summary[: found.start()], found.group(), summary[found.end() :]) if found else (summary, "", "")
    yield GoldenPart(name="notes.head", value=head)
    yield GoldenPart(name="notes.marker", value=marker)
    yield GoldenPart(name="notes.tail", value=tail)


def fixture_of(step: GoldenStep) -> Path:
    """The fixture folder a step's {"image_id": {"$fixture": name}} names."""
    image_id = step.args.get("image_id") if isinstance(step.args, dict) else None
    name = image_id.get("$fixture") if isinstance(image_id, dict) else None
    if not isinstance(name, str):
        raise RuntimeError(f'a read-context golden step names no fixture folder ({{"$fixture": name}}): {step.args}')  # noqa: TRY004 - a golden-file bug is a kit bug
    return FIXTURES / name


def answerer(workspace: Workspace, script: GoldenScript) -> Callable[[int, GoldenStep], Iterator[GoldenPart]]:
    """Install each step's fixture, call read_context for it and cut the answer into parts."""

    def answer(index: int, step: GoldenStep) -> Iterator[GoldenPart]:
        del index
        fixture = fixture_of(step)
        install(fixture, workspace)
        first = step.owner_of(FIRST_PART, script.owner)
        checked = workspace.read(first)
        raw = raw_of(checked, first)
        for piece, part in LIMITED.items():  # before the schema, which bounds both lists too
            items = raw.get(piece) if isinstance(raw, dict) else None
            count = len(items) if isinstance(items, list) else 0
            check(step.owner_of(part, script.owner), count <= 10, f"{piece} holds more than 10 entries", received=count)
        # A conflict repeating a genre or a line fails the conflicts' owner, before the schema (which forbids it too).
        yield from parts(check_repeats(checked, step.owner_of("tastes.conflicts", script.owner)), fixture)

    return answer


@pytest.mark.parametrize("path", golden_params(FIXTURES))
def test_fixture_workspace_matches_the_golden_snapshot(path: Path, workspace: Workspace, snapshot: SnapshotAssertion) -> None:
    """read_context on a fixture workspace, normalized where the registry allows readings, matches the golden snapshots."""
    script = load_script(path)
    replay_script(script, answerer(workspace, script), snapshot)
