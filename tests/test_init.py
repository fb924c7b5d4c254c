"""`ctxconform init`: a stdio adapter in Python, Node or Go that the kit judges not conformant, and nothing worse.

The scaffold starts, refuses every call and stops: no verdict blames the harness, the protocol or a crash.

The runs take a representative part of each suite (`--keyword`): the lifecycle operations, the examples, the golden
snapshots, the stateful test, tests that only need some refusal (PASS) and extension tests (SKIP). A whole suite
takes minutes for these adapters, as for any: each test waits on its own calls.
"""

from __future__ import annotations

import collections
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any, Final

import pytest

from ctxconform.conformance.cli._main import main
from ctxconform.conformance.judge import specs
from helpers import Cli, load_report

ROOT: Final = Path(__file__).resolve().parents[1]
SHARED_CONTEXT_PART: Final = "test_lifecycle or examples or extensions or snapshots or stateful or climbing or unknown_session"
# Two specs in one adapter: read-context's start options and context-assembly's undeclared features.
TWO_SPECS: Final = ("read-context", "context-assembly")
TWO_SPECS_PART: Final = "test_examples or test_snapshots or test_dialogue"
BLAMELESS: Final = frozenset({"FAIL", "PASS", "SKIP"})


def init(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run `ctxconform init ARGS` in this process; return its exit code, stdout and stderr."""
    code = main(["init", *args])
    out, err = capsys.readouterr()
    return code, out, err


def printed_command(out: str) -> list[str]:
    """The next command `init` printed, as words."""
    lines = out.splitlines()
    return shlex.split(lines[lines.index("Run the suites against it (not conformant until the operations are written):") + 1])


def judged(done: subprocess.CompletedProcess[str], reports: Path) -> dict[str, Any]:
    """The one implementation of a run that must be not conformant, with only blameless verdicts, mostly FAIL."""
    assert done.returncode == 1, done.stdout + done.stderr
    (implementation,) = load_report(reports)["implementations"]
    assert implementation["status"] == "not-conformant"
    assert implementation["events"] == []  # never restarted: it neither crashed nor hung
    verdicts = collections.Counter(test["verdict"] for test in implementation["tests"])
    assert set(verdicts) <= BLAMELESS, verdicts
    assert verdicts["FAIL"] > sum(verdicts.values()) / 2, verdicts
    return implementation  # type: ignore[no-any-return]


@pytest.mark.parametrize(("lang", "language"), [("python", "python"), ("node", "javascript"), ("go", "go")])
def test_the_printed_command_judges_the_scaffold_not_conformant(
    lang: str, language: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shared-context scaffold, run by the very command `init` prints, is refused everywhere it must answer."""
    monkeypatch.chdir(tmp_path)
    code, out, _ = init("--lang", lang, "--spec", "shared-context", "my-impl", capsys=capsys)
    assert code == 0
    command = printed_command(out)
    assert command == ["ctxconform", "run", "--adapter", "stdio:my-impl/run", "--spec", "shared-context"]
    where = out.split("Start editing my-impl/", 1)[1].split(" ", 1)[0]  # FILE:LINE, the first operation's function
    source, line = where.split(":")
    lines = (tmp_path / "my-impl" / source).read_text(encoding="utf-8").splitlines()[int(line) - 1 :]
    assert lines[0].startswith(("def ", "function ", "func "))
    assert f'todo("shared-context", "{specs()["shared-context"].operations[0]}")' in "\n".join(lines[:3])
    selection = ("--seed", "1", "--quiet", "--keyword", SHARED_CONTEXT_PART, "--report-dir", "reports")
    implementation = judged(Cli(tmp_path)(*command[1:], *selection), tmp_path / "reports")
    assert (implementation["name"], implementation["language"]) == ("my-impl", language)
    assert {"PASS", "SKIP"} <= set(implementation["counts"])  # bare refusals pass; undeclared extensions skip


def test_one_adapter_serves_two_specs_from_any_working_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A Go scaffold of two specs, named by an absolute path and run from elsewhere, declares each spec's version."""
    folder = tmp_path / "two"
    code, out, _ = init("--lang", "go", *(w for spec in TWO_SPECS for w in ("--spec", spec)), str(folder), capsys=capsys)
    assert code == 0
    command = printed_command(out)
    assert command[:4] == ["ctxconform", "run", "--adapter", f"stdio:{folder}/run"]
    subprocess.run([folder / "run"], stdin=subprocess.DEVNULL, check=True, timeout=120)  # builds; the start has 30 s
    selection = ("--seed", "1", "--quiet", "--keyword", TWO_SPECS_PART, "--report-dir", str(tmp_path / "reports"))
    implementation = judged(Cli(ROOT)(*command[1:], *selection), tmp_path / "reports")
    declared = {spec["spec"]: spec["declared_version"] for spec in implementation["specs"]}
    assert declared == {spec: specs()[spec].version for spec in TWO_SPECS}


@pytest.mark.parametrize("lang", ["python", "node", "go"])
def test_each_operation_of_the_spec_has_its_own_todo(lang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The server names every operation of the spec once in its table, each answering its own TODO error."""
    spec = specs()["content-provider"]
    code, out, _ = init("--lang", lang, "--spec", spec.id, str(tmp_path / "impl"), capsys=capsys)
    assert code == 0
    source = next(path for path in (tmp_path / "impl").iterdir() if path.name in {"server.py", "server.js", "main.go"})
    text = source.read_text(encoding="utf-8")
    for op in spec.operations:
        assert text.count(f'"{op}": ') == 1  # its entry in the table
        assert text.count(f'todo("{spec.id}", "{op}")') == 1  # its one place to write it
    assert f"{source.name}:" in out
    assert os.access(tmp_path / "impl" / "run", os.X_OK)


def test_the_go_scaffold_is_formatted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What a Go user copies is already as gofmt writes it."""
    assert init("--lang", "go", "--spec", "shared-context", "--spec", "content-provider", str(tmp_path), capsys=capsys)[0] == 0
    assert subprocess.run(["gofmt", "-l", str(tmp_path)], capture_output=True, text=True, check=True).stdout == ""


def test_a_folder_that_is_not_empty_is_refused_unless_forced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Exit 2 with one line and nothing written; with --force the scaffold is written beside what was there."""
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    code, out, err = init("--lang", "node", "--spec", "shared-context", str(tmp_path), capsys=capsys)
    assert (code, out) == (2, "")
    refusal = "is not empty; name a new folder, or give --force to write the scaffold into it"
    assert err == f"ctxconform: error: {tmp_path} {refusal}\n"
    assert [path.name for path in tmp_path.iterdir()] == ["notes.txt"]
    code, _, _ = init("--lang", "node", "--spec", "shared-context", "--force", str(tmp_path), capsys=capsys)
    assert code == 0
    assert {"notes.txt", "run", "server.js", "README.md"} <= {path.name for path in tmp_path.iterdir()}


def test_a_file_in_place_of_the_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Even --force writes no scaffold over a file."""
    (tmp_path / "impl").write_text("", encoding="utf-8")
    code, _, err = init("--lang", "go", "--spec", "shared-context", "--force", str(tmp_path / "impl"), capsys=capsys)
    assert code == 2
    assert err.count("\n") == 1
    assert "is not a folder" in err


def test_an_unknown_spec_gets_a_suggestion_and_nothing_is_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The kit's usual message for a misspelt spec, exit 2, and no folder."""
    code, _, err = init("--lang", "python", "--spec", "shared-contxt", str(tmp_path / "impl"), capsys=capsys)
    assert code == 2
    assert "unknown spec 'shared-contxt'; did you mean 'shared-context'?" in err
    assert err.count("\n") == 1
    assert not (tmp_path / "impl").exists()
