"""The built wheel carries both halves of the package, every schema, fixture, registry and snapshot."""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from ctxconform.conformance.judge import specs

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    """Build the wheel once with uv (or pip when uv is missing)."""
    out = tmp_path_factory.mktemp("dist")
    uv = shutil.which("uv")
    command = (
        [uv, "build", "--wheel", "--out-dir", str(out), str(ROOT)]
        if uv
        else ["pip", "wheel", "--no-deps", "-w", str(out), str(ROOT)]
    )
    subprocess.run(command, check=True, capture_output=True)
    (built,) = out.glob("ctxconform-*.whl")
    return zipfile.ZipFile(built)


def test_every_schema_and_fixture_is_in_the_wheel(wheel: zipfile.ZipFile) -> None:
    """Each file of schemas/ and fixtures/ is in the wheel under ctxconform/conformance/_data/."""
    names = set(wheel.namelist())
    for folder in ("schemas", "fixtures"):
        for path in (ROOT / folder).rglob("*.json"):
            assert f"ctxconform/conformance/_data/{path.relative_to(ROOT).as_posix()}" in names


def test_the_wheel_has_both_source_roots_registries_snapshots_and_markers(wheel: zipfile.ZipFile) -> None:
    """Reference and conformance code, requirement registries, suite snapshots and py.typed are all packed."""
    names = set(wheel.namelist())
    assert "ctxconform/reference/__init__.py" in names
    assert "ctxconform/conformance/__init__.py" in names
    registries = {f"ctxconform/conformance/suites/{spec.suite.name}/registry.toml" for spec in specs().values()}
    assert registries <= names
    assert "ctxconform/conformance/suites/pytest.ini" in names
    assert "ctxconform/conformance/suites/shared_context/__snapshots__/test_snapshots.ambr" in names
    assert {"ctxconform/reference/py.typed", "ctxconform/conformance/py.typed"} <= names
    assert not any(name.startswith("ctxconform/__init__") for name in names)


def test_the_scaffolds_of_init_are_in_the_wheel(wheel: zipfile.ZipFile) -> None:
    """Every template `ctxconform init` writes from (the `run` scripts, the snippets, Go's `gitignore`) is packed."""
    names = set(wheel.namelist())
    scaffolds = ROOT / "conformance" / "ctxconform" / "conformance" / "scaffold"
    files = [path for path in scaffolds.rglob("*") if path.is_file() and "__pycache__" not in path.parts]
    expected = {f"ctxconform/conformance/{path.relative_to(scaffolds.parent).as_posix()}" for path in files}
    assert len(expected) >= 3 * 5
    assert expected <= names
