"""Rules every conformance suite keeps, checked on the suites' source: the public API only, checks instead of asserts."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from ctxconform.conformance.judge import load_registry, specs
from ctxconform.conformance.judge._requirement_ids import constant_name, generated_module, module_path
from ctxconform.conformance.judge._specs import suite_root

MODULES = sorted(path for path in suite_root().rglob("*.py") if "__snapshots__" not in path.parts)
# The reference's public package too: the stateful differential tests drive it side by side with the implementation.
ALLOWED = (
    "ctxconform.conformance.testing",
    "ctxconform.conformance.exceptions",
    "ctxconform.conformance.suites",
    "ctxconform.reference",
)


def imported(tree: ast.Module) -> list[str]:
    """Every module a source file imports from the ctxconform namespace."""
    names = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    names += [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module]
    return [name for name in names if name.startswith("ctxconform")]


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(suite_root())) for p in MODULES])
def test_suites_import_only_the_public_testing_api(path: Path) -> None:
    """A suite module imports the kit through ctxconform.conformance.testing (and .exceptions) only, no private module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    private = [name for name in imported(tree) if not name.startswith(ALLOWED) or "._" in name]
    assert private == [], f"{path.name} imports kit internals: {private}"


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(suite_root())) for p in MODULES])
def test_suites_check_with_named_requirements_not_bare_asserts(path: Path) -> None:
    """No `assert` statement in a suite: a failed assert names no requirement, so it could not be charged precisely."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Assert)]
    assert lines == [], f"{path.name} asserts on lines {lines}: use a check naming its requirement"


@pytest.mark.parametrize("spec", sorted(specs()))
def test_the_requirement_constants_are_generated_from_the_registry(spec: str) -> None:
    """Each suite's requirements.py is what the registry generates now (regenerate: python -m ..._requirement_ids)."""
    path = module_path(spec)
    assert path.read_text(encoding="utf-8") == generated_module(load_registry(spec))


@pytest.mark.parametrize("spec", sorted(specs()))
def test_requirement_constant_names_are_unique(spec: str) -> None:
    """No two requirement ids of a spec map to the same constant."""
    names = [constant_name(r.id) for r in load_registry(spec).requirements]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("spec", sorted(spec.id for spec in specs().values() if spec.suite.parent == suite_root()))
def test_the_client_calls_the_operations_of_its_spec(spec: str) -> None:
    """The suite client's `OPERATIONS` are `Spec.operations` (MCP tools, else request schemas): those `init` writes."""
    client = importlib.import_module(f"ctxconform.conformance.suites.{specs()[spec].suite.name}.client")
    assert sorted(client.OPERATIONS.table) == sorted(specs()[spec].operations)
