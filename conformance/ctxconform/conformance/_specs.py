"""The specs the kit implements: where their suites and registries are."""

from __future__ import annotations

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


SPECS: Final[dict[str, SpecSuite]] = {
    "shared-context": SpecSuite("shared-context", "shared_context"),
    "read-context": SpecSuite("read-context", "read_context", _read_context_folders),
    "context-assembly": SpecSuite("context-assembly", "context_assembly"),
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
