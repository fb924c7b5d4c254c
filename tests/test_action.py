"""The GitHub Action: its inputs, and its main step run locally with a fake job summary and step output."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
ACTION = ROOT / "action.yml"
SCRIPT = ROOT / "action" / "run"
MUTANT = "python:ctxconform.reference.mutants:list_keys_shows_creation_metadata"


def action() -> dict[str, Any]:
    """The parsed action.yml."""
    document: dict[str, Any] = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    return document


def run_step(tmp_path: Path, **inputs: str) -> tuple[subprocess.CompletedProcess[str], str, str]:
    """Run the action's main step as GitHub would; return the process, the job summary and the step output."""
    summary, output = tmp_path / "summary", tmp_path / "output"
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(output)}
    env |= {f"INPUT_{name.upper()}": value for name, value in inputs.items()}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    done = subprocess.run([str(SCRIPT)], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600, check=False)
    read = lambda path: path.read_text(encoding="utf-8") if path.exists() else ""  # noqa: E731
    return done, read(summary), read(output)


def test_the_action_takes_the_inputs_a_ci_job_needs() -> None:
    """Inputs: adapter (required), specs, level, baseline, report folder, artifact name; the exit code is an output."""
    document = action()
    assert {"adapter", "specs", "level", "baseline", "report-dir", "artifact-name"} <= set(document["inputs"])
    assert document["inputs"]["adapter"]["required"] is True
    assert "exit-code" in document["outputs"]
    assert document["runs"]["using"] == "composite"


def test_inputs_reach_the_script_only_through_the_environment() -> None:
    """No step pastes an input into the text of a shell script, where a crafted value would run as code."""
    for step in action()["runs"]["steps"]:
        assert "${{ inputs." not in step.get("run", ""), step


def test_the_reports_are_uploaded_whatever_the_verdict_and_the_job_fails_as_the_cli() -> None:
    """The upload step runs always(); the last step exits with the run's code."""
    steps = action()["runs"]["steps"]
    upload = next(step for step in steps if step.get("uses", "").startswith("actions/upload-artifact"))
    assert upload["if"].startswith("always()")
    assert steps[-1]["env"]["EXIT_CODE"] == "${{ steps.run.outputs.exit-code }}"
    assert SCRIPT.stat().st_mode & 0o111


@pytest.mark.parametrize(("adapter", "code"), [("reference", 0), (MUTANT, 1)])
def test_the_main_step_writes_the_summary_and_the_exit_code(tmp_path: Path, adapter: str, code: int) -> None:
    """The step appends summary.md to the job summary, writes exit-code, and itself exits 0 so the upload happens."""
    done, summary, output = run_step(
        tmp_path, adapter=adapter, specs="shared-context", level="MAY", report_dir="out", args="--keyword list_keys --seed 1"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"exit-code={code}\n" in output
    assert summary.startswith("# ctxconform report")
    assert (tmp_path / "out" / "junit.xml").exists()


def test_a_configuration_error_is_exit_code_2(tmp_path: Path) -> None:
    """A misspelt spec is the CLI's exit 2, passed on as the step's output; no summary is invented."""
    done, summary, output = run_step(tmp_path, adapter="reference", specs="shared-contxt", report_dir="out")
    assert done.returncode == 0
    assert "exit-code=2\n" in output
    assert summary == ""
    assert "did you mean 'shared-context'" in done.stderr
