"""A spec as one value, and the kit's specs: found from those values alone, never listed by hand.

Each suite package exports its `Spec` as `SPEC`: the kit's own under `ctxconform.conformance.suites`, and any
installed package that names its value under the `ctxconform.specs` entry point group.
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Final

from ctxconform.conformance.exceptions import ConfigurationError
from ctxconform.conformance.judge._data import fixtures_dir, schemas_dir
from ctxconform.conformance.judge._registry import Registry, read_registry

__all__ = [
    "ENTRY_POINT_GROUP",
    "Spec",
    "add_registry",
    "load_registry",
    "resolve_specs",
    "spec_of",
    "specs",
    "start_options",
    "suite_root",
]

Json = dict[str, Any]
ENTRY_POINT_GROUP: Final = "ctxconform.specs"
_SUITES: Final = Path(__file__).resolve().parents[1] / "suites"
_SUITES_PACKAGE: Final = "ctxconform.conformance.suites"
_ADDED: Final[dict[str, Path]] = {}
_REQUEST_SUFFIX: Final = ".request.json"


@dataclass(frozen=True)
class Spec:
    """One specification the kit checks: its id, its suite (registry beside it), and what its implementations are given.

    `start_options` makes, from the run's state folder, the options every implementation gets for this spec in its
    start message; `mcp_tools` are the MCP tools that carry its operations, and `mcp_participants` says whether its
    calls name a participant (each one its own MCP connection) and a session; `needs` are the commands the suite
    itself runs, each with the hint that installs it, checked on PATH before a run starts.
    """

    id: str
    suite: Path
    start_options: Callable[[Path], Json] | None = None
    mcp_tools: tuple[str, ...] = ()
    mcp_participants: bool = False
    needs: tuple[tuple[str, str], ...] = ()

    def missing(self) -> list[tuple[str, str]]:
        """The commands the suite needs that are not on PATH, each with how to install it."""
        return [(command, hint) for command, hint in self.needs if shutil.which(command) is None]

    @classmethod
    def of_package(cls, init_file: str, spec_id: str, **fields: Any) -> Spec:
        """The spec whose suite is the package of `init_file` (a suite's `__file__`)."""
        return cls(spec_id, Path(init_file).resolve().parent, **fields)

    @property
    def registry_file(self) -> Path:
        """The spec's requirement registry, `registry.toml` beside its suite."""
        return self.suite / "registry.toml"

    @cached_property
    def registry(self) -> Registry:
        """The requirements of the spec, checked (once: every check a test makes looks its requirement up here)."""
        registry = read_registry(self.registry_file)
        if registry.spec != self.id:
            raise ConfigurationError(f"{self.registry_file} is the registry of {registry.spec!r}, not of {self.id!r}")
        return registry

    @property
    def version(self) -> str:
        """The spec version the suite checks."""
        return self.registry.version

    @property
    def schemas(self) -> Path:
        """The folder of the spec's JSON Schemas."""
        return schemas_dir() / self.id

    @property
    def operations(self) -> tuple[str, ...]:
        """The operations a call may name: its MCP tools when it has them, else one per `<op>.request.json` schema.

        An MCP tool carries exactly one operation, under the operation's name, so a spec served over MCP lists its
        operations there; the schemas alone would mislead for such a spec: shared-context's `write.request.json` is
        an action inside the `shared_context` operation's request, not an operation of its own.
        """
        if self.mcp_tools:
            return self.mcp_tools
        return tuple(sorted(path.name.removesuffix(_REQUEST_SUFFIX) for path in self.schemas.glob(f"?*{_REQUEST_SUFFIX}")))

    @property
    def fixtures(self) -> Path:
        """The folder of the spec's input fixtures and golden scripts."""
        return fixtures_dir() / self.id


@cache
def specs() -> Mapping[str, Spec]:
    """Every spec the kit checks, by id: the `SPEC` of each of its suite packages and of each entry point."""
    package = importlib.import_module(_SUITES_PACKAGE)
    found = [
        importlib.import_module(module.name).SPEC
        for module in pkgutil.iter_modules(package.__path__, f"{_SUITES_PACKAGE}.")
        if module.ispkg
    ]
    found += [entry.load() for entry in entry_points(group=ENTRY_POINT_GROUP)]
    by_id: dict[str, Spec] = {}
    for spec in found:
        if not isinstance(spec, Spec):
            raise ConfigurationError(f"a suite's SPEC must be a ctxconform Spec, not {type(spec).__name__}")
        if spec.id in by_id and by_id[spec.id] != spec:
            raise ConfigurationError(f"two suites are the spec {spec.id!r}: {by_id[spec.id].suite} and {spec.suite}")
        by_id[spec.id] = spec
    return dict(sorted(by_id.items()))


def resolve_specs(names: list[str] | None) -> list[Spec]:
    """Return the specs named (all when none are); raise ConfigurationError for an unknown name."""
    known = specs()
    if not names:
        return list(known.values())
    for name in names:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ConfigurationError(f"unknown spec {name!r}; {hint}the specs are {', '.join(known)}")
    return [known[name] for name in dict.fromkeys(names)]


def spec_of(requirement_id: str) -> str:
    """The spec id a requirement id belongs to (its first segment)."""
    return requirement_id.split("/", maxsplit=1)[0]


def load_registry(spec: str) -> Registry:
    """Return the registry of a spec by id: one added with `add_registry`, else the spec's own."""
    if spec in _ADDED:
        return read_registry(_ADDED[spec])
    try:
        return specs()[spec].registry
    except KeyError:
        close = difflib.get_close_matches(spec, specs(), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise ConfigurationError(f"no registry for the spec {spec!r}; {hint}the specs are {', '.join(specs())}") from None


def add_registry(path: Path) -> Registry:
    """Make the registry in `path` known by its spec id, for a suite that is not (yet) a `Spec` of its own."""
    registry = read_registry(path)
    _ADDED[registry.spec] = path
    return registry


def start_options(state_dir: Path) -> dict[str, Json]:
    """The per-spec options every implementation gets in its start message; the folders they name are created."""
    options = {}
    for spec in specs().values():
        if spec.start_options is not None:
            options[spec.id] = spec.start_options(state_dir)
            for value in options[spec.id].values():
                Path(value).mkdir(parents=True, exist_ok=True)
    return options


def suite_root() -> Path:
    """The folder that holds the kit's own suites (and the suites' pytest.ini)."""
    return _SUITES
