"""The specs the kit implements: where their suites and registries are."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ctxconform.conformance._registry import Registry, load_registry
from ctxconform.conformance.exceptions import ConfigurationError

__all__ = ["SPECS", "SpecSuite", "resolve_specs", "suite_root"]

_SUITES: Final = Path(__file__).resolve().parent / "suites"


@dataclass(frozen=True)
class SpecSuite:
    """One implemented spec: its id and the folder of its suite."""

    spec: str
    package: str

    @property
    def directory(self) -> Path:
        """The folder holding this spec's conformance tests."""
        return _SUITES / self.package

    @property
    def registry(self) -> Registry:
        """The spec's requirement registry."""
        return load_registry(self.spec)


SPECS: Final[dict[str, SpecSuite]] = {
    "shared-context": SpecSuite("shared-context", "shared_context"),
}


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
