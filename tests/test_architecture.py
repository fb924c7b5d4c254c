"""The architecture holds: no import cycles, wings that depend one way, one list of specs, public modules with `__all__`."""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

from ctxconform.conformance.judge import specs

ROOT: Final = Path(__file__).resolve().parents[1]
PACKAGES: Final = {"ctxconform.conformance": ROOT / "conformance", "ctxconform.reference": ROOT / "reference"}
SPEC_IDS: Final = frozenset(specs())  # found, not listed: a list here would be the second list the tests forbid
SPEC_NAMES: Final = SPEC_IDS | {spec.replace("-", "_") for spec in SPEC_IDS}
# Which wing of the harness may import which: data flows adapter -> transport -> suite -> checks -> records -> report.
WINGS: Final = {
    "judge": set(),
    "transports": {"judge"},
    "testing": {"judge", "transports"},
    "report": {"judge"},
    "run": {"judge", "transports", "report"},
    "specdiff": {"judge"},
    "cli": {"judge", "transports", "report", "run", "specdiff"},
}
LONG: Final = 400
LONG_REASON: Final = "Why this module is long:"


def modules() -> dict[str, Path]:
    """Every module of both packages (suites and mutants included), by dotted name."""
    found = {}
    for package, source in PACKAGES.items():
        for path in (source / Path(*package.split("."))).rglob("*.py"):
            parts = path.relative_to(source).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The ctxconform modules a file imports, wherever in the file the import is (`from p import m` imports `p.m`)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ctxconform."):
            named = [f"{node.module}.{alias.name}" for alias in node.names]
            yield from (name if name in known else node.module for name in named)
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name.startswith("ctxconform."))


def graph() -> dict[str, set[str]]:
    """Module -> the kit's modules it imports (a package import counts as importing its `__init__`)."""
    known = modules()
    return {name: {t for t in imports(path, known) if t in known and t != name} for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:  # noqa: C901 - Tarjan's algorithm reads best whole
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def wing(module: str) -> str | None:
    """The wing of a harness module (`ctxconform.conformance.<wing>...`), or None for the package's own files."""
    parts = module.split(".")
    return parts[2] if module.startswith("ctxconform.conformance.") and parts[2] in WINGS else None


def test_neither_package_has_an_import_cycle() -> None:
    """No module imports, through any chain, a module that imports it back."""
    assert cycles(graph()) == []


@pytest.mark.parametrize("name", sorted(WINGS))
def test_each_wing_imports_only_the_wings_below_it(name: str) -> None:
    """Judge is the floor; transports, testing, report, run, specdiff and cli each use only the wings listed for them."""
    crossing = sorted(
        f"{module} -> {target}"
        for module, targets in graph().items()
        if wing(module) == name
        for target in targets
        if wing(target) not in (None, name, *WINGS[name])
    )
    assert crossing == []


def test_the_specs_are_listed_nowhere_in_the_code() -> None:
    """No list, tuple, set or map literal names two specs: the kit's specs come from the suites' `Spec` values."""
    sources = [*modules().values(), ROOT / "noxfile.py", *(ROOT / "benchmarks").glob("*.py")]
    listing = []
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            items = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", None)
            if not isinstance(node, ast.Tuple | ast.List | ast.Set | ast.Dict) or items is None:
                continue
            named = {item.value for item in items if isinstance(item, ast.Constant) and item.value in SPEC_NAMES}
            if len({name.replace("_", "-") for name in named}) > 1:
                listing.append(f"{path.relative_to(ROOT)}:{node.lineno}: {sorted(named)}")
    assert listing == []


def test_every_public_module_declares_all() -> None:
    """A module whose dotted name has no private part says what it exports."""
    public = [name for name in modules() if not any(part.startswith("_") for part in name.split("."))]
    missing = [name for name in public if ".suites." not in name and "__all__" not in vars(importlib.import_module(name))]
    assert missing == []


def test_no_module_is_long_without_saying_why() -> None:
    """A module over 400 lines says at its top why it is one module."""
    long = []
    for name, path in modules().items():
        text = path.read_text(encoding="utf-8")
        docstring = ast.get_docstring(ast.parse(text)) or ""
        if text.count("\n") > LONG and ".suites." not in name and LONG_REASON not in docstring:
            long.append(f"{name}: {text.count(chr(10))} lines")
    assert long == []


def test_each_spec_is_one_package_per_side() -> None:
    """Each spec's suite package exports its `SPEC` with its registry beside it; its reference package its handler factory."""
    from ctxconform.reference._implementation import spec_packages  # noqa: PLC0415 - imported here so collection stays light

    suites = specs()
    assert len(suites) >= 1
    assert all(spec.registry_file.parent == spec.suite and spec.registry.spec == spec.id for spec in suites.values())
    assert {package.HANDLER_FACTORY.spec for package in spec_packages()} == set(suites)
    assert all(importlib.import_module(f"{package.__name__}.mutants").MUTANTS for package in spec_packages())
