"""The specs the kit implements: where their suites and registries are."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ctxconform.conformance._registry import Registry, load_registry
from ctxconform.conformance.exceptions import ConfigurationError

__all__ = ["SPECS", "SpecSuite", "resolve_specs", "start_options", "suite_root"]

_SUITES: Final = Path(__file__).resolve().parent / "suites"


@dataclass(frozen=True)
class SpecSuite:
    """One implemented spec: its id and the folder of its suite."""

    spec: str
    package: str
    options: Callable[[Path], dict[str, Any]] | None = None

    @property
    def directory(self) -> Path:
        """The folder holding this spec's conformance tests."""
        return _SUITES / self.package

    @property
    def registry(self) -> Registry:
        """The spec's requirement registry."""
        return load_registry(self.spec)


def _read_context_folders(state_dir: Path) -> dict[str, Any]:
    # The suite writes each test's workspace and tastes files here; the implementation reads them.
    return {
        "workspace_root": str(state_dir / "read-context" / "workspaces"),
        "tastes_dir": str(state_dir / "read-context" / "tastes"),
    }


def _context_snapshot_repositories(state_dir: Path) -> dict[str, Any]:
    # Two empty bare repositories, one per object format: the implementation stores blobs there and the suite runs git
    # in them. Without git they stay plain folders, and the suite's tests say that git is missing.
    environment = {name: value for name, value in os.environ.items() if not name.startswith("GIT_")}
    repositories = {}
    for option, object_format in (("repository", "sha1"), ("repository_sha256", "sha256")):
        path = state_dir / "context-snapshot" / f"{object_format}.git"
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            subprocess.run(  # noqa: S603 - fixed program, arguments passed as a list
                ["git", "init", "--quiet", "--bare", f"--object-format={object_format}", str(path)],  # noqa: S607
                check=True,
                capture_output=True,
                timeout=30,
                env=environment,
            )
        repositories[option] = str(path)
    return repositories


SPECS: Final[dict[str, SpecSuite]] = {
    "shared-context": SpecSuite("shared-context", "shared_context"),
    "read-context": SpecSuite("read-context", "read_context", _read_context_folders),
    "context-assembly": SpecSuite("context-assembly", "context_assembly"),
    "context-snapshot": SpecSuite("context-snapshot", "context_snapshot", _context_snapshot_repositories),
    "content-provider": SpecSuite("content-provider", "content_provider"),
}


def start_options(state_dir: Path) -> dict[str, Any]:
    """The per-spec options every implementation gets in its start message; their folders are created."""
    options = {}
    for suite in SPECS.values():
        if suite.options is not None:
            options[suite.spec] = suite.options(state_dir)
            for value in options[suite.spec].values():
                Path(value).mkdir(parents=True, exist_ok=True)
    return options


def suite_root() -> Path:
    """The folder that holds every spec's suite (and the suites' pytest.ini)."""
    return _SUITES


def resolve_specs(names: list[str] | None) -> list[SpecSuite]:
    """Return the suites named (all when none are); raise ConfigurationError for an unknown name."""
    if not names:
        return list(SPECS.values())
    unknown = [name for name in names if name not in SPECS]
    if unknown:
        raise ConfigurationError(f"unknown spec {unknown[0]!r}; implemented specs: {', '.join(SPECS)}")
    return [SPECS[name] for name in dict.fromkeys(names)]
