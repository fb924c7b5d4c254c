"""The README's quick start on a fresh machine: a fresh virtual environment, no optional system tool on PATH."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The tools only the kit's own tests use; the main job must not need them.
OPTIONAL = {"chromium", "chromedriver", "redis-server", "redis-cli", "node", "nodejs", "go", "gofmt", "npm"}


def quick_start() -> list[str]:
    """The two commands of the README's quick start, without their comments."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Quick start\n.*?```sh\n(.*?)```", text, re.DOTALL)
    assert block is not None, "the README has no quick start block"
    return [line.split("#")[0].strip() for line in block.group(1).splitlines() if line.strip()]


@cache
def noxfile() -> ModuleType:
    """The noxfile, imported as a module."""
    spec = importlib.util.spec_from_file_location("kit_noxfile", ROOT / "noxfile.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def shadow_path(folder: Path, leave_out: set[str]) -> str:
    """A PATH folder of links to every command on PATH but `leave_out`: a machine without those tools."""
    folder.mkdir()
    for directory in os.environ["PATH"].split(os.pathsep):
        for command in Path(directory).glob("*") if Path(directory).is_dir() else ():
            target = folder / command.name
            if command.name not in leave_out and not target.exists() and os.access(command, os.X_OK):
                target.symlink_to(command)
    return str(folder)


def test_the_quick_start_is_two_commands_and_ci_runs_the_second_exactly() -> None:
    """`.ci/run` runs the README's test command, word for word."""
    commands = quick_start()
    assert len(commands) == 2
    assert commands[1] in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()


def test_the_main_job_sets_itself_up_in_a_fresh_environment(tmp_path: Path) -> None:
    """The first command, in a copy of the checkout, from a fresh venv, with no optional tool on PATH, passes."""
    checkout = tmp_path / "checkout"
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True, check=True)
    for name in filter(None, listed.stdout.decode().split("\0")):
        if (ROOT / name).is_file():
            (checkout / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, checkout / name)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    path = os.pathsep.join([str(venv / "bin"), shadow_path(tmp_path / "bin", OPTIONAL)])
    # The README's command, with a selection after `--` so that the check stays short: the set-up is what it checks.
    command = f"{quick_start()[0]} -- --spec shared-context --keyword list_keys --seed 1 --quiet"
    env = {**os.environ, "PATH": path, "UV_PYTHON_DOWNLOADS": "never"}
    env.pop("VIRTUAL_ENV", None)
    done = subprocess.run(
        ["bash", "-c", command], cwd=checkout, env=env, capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert (checkout / "reports" / "report.json").is_file()
    assert "apt-get" not in done.stdout + done.stderr  # git was there; nothing else was needed


@pytest.mark.parametrize("root", [False, True])
def test_missing_system_packages_are_installed_or_named_before_anything_runs(root: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """As root they are installed with apt-get; as another user the session stops at once, naming them in one line."""
    module = noxfile()
    calls: list[tuple[Any, ...]] = []

    class Session:
        def error(self, message: str) -> None:
            calls.append(("error", message))
            raise SystemExit(1)

        def run(self, *args: str, **_: Any) -> None:
            calls.append(args)

    monkeypatch.setattr(module.shutil, "which", lambda command: "/usr/bin/apt-get" if command == "apt-get" else None)
    monkeypatch.setattr(module.os, "geteuid", lambda: 0 if root else 1000)
    packages = sorted(set(module.SYSTEM_PACKAGES.values()))
    if root:
        module.system_packages(Session(), module.SYSTEM_PACKAGES)
        assert calls[-1][:4] == ("apt-get", "install", "-y", "-qq")
        assert sorted(calls[-1][4:]) == packages
    else:
        with pytest.raises(SystemExit):
            module.system_packages(Session(), module.SYSTEM_PACKAGES)
        ((kind, message),) = calls
        assert kind == "error"
        assert "\n" not in message
        assert all(package in message for package in packages)
