"""Requirement registries: one TOML file per spec, every normative statement with its id, level and kind."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Final, Literal

from ctxconform.conformance.exceptions import ConfigurationError

__all__ = ["LEVELS", "Informative", "Level", "Registry", "Requirement", "coverage_problems", "read_registry"]

Level = Literal["MUST", "SHOULD", "MAY"]
Kind = Literal["testable", "untestable", "ambiguous"]
LEVELS: Final[tuple[Level, ...]] = ("MUST", "SHOULD", "MAY")
_KINDS: Final = ("testable", "untestable", "ambiguous")
_MIN_READINGS: Final = 2


@dataclass(frozen=True)
class Requirement:
    """One normative statement of a spec."""

    id: str
    level: Level
    section: str
    quote: str
    kind: Kind
    reason: str = ""
    readings: tuple[str, ...] = ()
    feature: str | None = None
    level_note: str = ""

    @property
    def needs_test(self) -> bool:
        """Whether a test must name this requirement (testable and ambiguous ones)."""
        return self.kind != "untestable"

    def at_least(self, level: Level) -> bool:
        """Whether this requirement is at `level` or stronger (MUST > SHOULD > MAY)."""
        return LEVELS.index(self.level) <= LEVELS.index(level)


@dataclass(frozen=True)
class Informative:
    """A sentence of the document that reads as normative but states no requirement, and why (`[[informative]]`)."""

    quote: str
    reason: str


@dataclass(frozen=True)
class Registry:
    """The requirements of one spec version, and the normative-looking sentences of its document that are not ones."""

    spec: str
    version: str
    document: str
    requirements: tuple[Requirement, ...]
    informative: tuple[Informative, ...] = ()
    _by_id: dict[str, Requirement] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # First of an id wins, as a scan would find it; read_registry refuses a registry that repeats one anyway.
        object.__setattr__(self, "_by_id", {r.id: r for r in reversed(self.requirements)})

    def __getitem__(self, requirement_id: str) -> Requirement:
        """Return a requirement by id."""
        return self._by_id[requirement_id]

    @property
    def ids(self) -> frozenset[str]:
        """Every requirement id of the spec."""
        return frozenset(self._by_id)


def coverage_problems(registries: list[Registry], named: dict[str, list[str]]) -> list[str]:
    """Return one line per testable requirement no test names, unknown id a test names, or test naming nothing."""
    known = {r.id: r for registry in registries for r in registry.requirements}
    used = {rid for ids in named.values() for rid in ids}
    problems = [f"untested: {rid} ({r.level}, {r.kind})" for rid, r in known.items() if r.needs_test and rid not in used]
    problems += [f"unknown id {rid!r} named by a test" for rid in sorted(used - known.keys())]
    problems += [f"test names no requirement: {test}" for test, ids in named.items() if not ids]
    return problems


@cache
def read_registry(path: Path) -> Registry:
    """Load and check the registry in `path`; raise ConfigurationError naming the bad entry."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
        spec = str(document["spec"])
    except (OSError, tomllib.TOMLDecodeError, KeyError) as error:
        raise ConfigurationError(f"cannot read the registry {path}: {error}") from error
    requirements = tuple(_requirement(spec, entry) for entry in document.get("requirement", []))
    seen: set[str] = set()
    for requirement in requirements:
        if requirement.id in seen:
            raise ConfigurationError(f"{path}: requirement id {requirement.id!r} appears twice")
        seen.add(requirement.id)
    informative = tuple(_informative(spec, entry) for entry in document.get("informative", []))
    return Registry(spec, document["version"], document["document"], requirements, informative)


def _informative(spec: str, entry: dict[str, object]) -> Informative:
    quote, reason = entry.get("quote"), entry.get("reason")
    if not isinstance(quote, str) or not quote.strip() or not isinstance(reason, str) or not reason.strip():
        raise ConfigurationError(f"registry of {spec}: informative entry {entry!r} needs a quote and a reason")
    return Informative(quote=quote, reason=reason)


def _requirement(spec: str, entry: dict[str, object]) -> Requirement:
    rid = str(entry.get("id", ""))
    if not rid.startswith(f"{spec}/") or entry.get("level") not in LEVELS or entry.get("kind") not in _KINDS:
        raise ConfigurationError(f"registry of {spec}: entry {rid or entry!r} needs an id under {spec}/, a level and a kind")
    if entry["kind"] == "untestable" and not entry.get("reason"):
        raise ConfigurationError(f"registry of {spec}: untestable {rid} needs a reason")
    if entry["kind"] == "ambiguous" and len(entry.get("readings", ())) < _MIN_READINGS:  # type: ignore[arg-type]
        raise ConfigurationError(f"registry of {spec}: ambiguous {rid} needs at least two readings")
    return Requirement(
        id=rid,
        level=entry["level"],  # type: ignore[arg-type]
        section=str(entry["section"]),
        quote=str(entry["quote"]),
        kind=entry["kind"],  # type: ignore[arg-type]
        reason=str(entry.get("reason", "")),
        readings=tuple(entry.get("readings", ())),  # type: ignore[arg-type]
        feature=entry.get("feature"),  # type: ignore[arg-type]
        level_note=str(entry.get("level_note", "")),
    )
