"""A spec's catalogue of mutants: what each one breaks, its description, and the handler factory it swaps in."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ctxconform.reference._handler import HandlerFactory
from ctxconform.reference._implementation import Reference

__all__ = ["EDGES", "Catalogue", "Mutant"]

Factory = Callable[[], Reference]
_Target = TypeVar("_Target", bound=Callable[..., Any])
_PREFIX = "The reference, except that "

EDGES = ("identifiers", "wrong-types", "boundaries", "degenerate", "stored-records", "two-writers")
"""The classes of edge input real implementations get wrong; a mutant with such a defect names its class."""


@dataclass(frozen=True)
class Mutant:
    """A deliberately wrong implementation and the requirement ids the suite must fail for it."""

    name: str
    spec: str
    breaks: tuple[str, ...]
    description: str
    factory: Factory
    edge: str | None = None

    @property
    def adapter(self) -> str:
        """The connection string that runs this mutant in-process."""
        return f"python:ctxconform.reference.mutants:{self.name}"


@dataclass
class Catalogue:
    """The mutants of one spec; `adopt` turns a mutated override-point class into the handler factory that uses it."""

    spec: str
    adopt: Callable[[type], HandlerFactory]
    mutants: list[Mutant] = field(default_factory=list)

    def mutant(self, *breaks: str, name: str | None = None, edge: str | None = None) -> Callable[[_Target], _Target]:
        """Register the decorated class (a mutated override point) or function (returning a handler factory).

        The mutant is named after it (a class name in snake case), described by its docstring, and breaks `breaks`;
        `edge` names the class of edge input (one of `EDGES`) whose defect it has, if it is one.
        """
        if edge is not None and edge not in EDGES:
            raise ValueError(f"edge {edge!r} is not one of {', '.join(EDGES)}")

        def register(target: _Target) -> _Target:
            mutant_name = name or _snake(target.__name__)
            description = (target.__doc__ or "").strip().removeprefix(_PREFIX).rstrip(".")
            if not breaks or not description:
                raise ValueError(f"mutant {mutant_name}: name the requirements it breaks and describe it in a docstring")
            if any(not rid.startswith(f"{self.spec}/") for rid in breaks):
                raise ValueError(f"mutant {mutant_name}: it breaks requirements of {self.spec} only")
            opener = (lambda: self.adopt(target)) if isinstance(target, type) else target
            factory = _reference(mutant_name, opener)
            self.mutants.append(Mutant(mutant_name, self.spec, breaks, description, factory, edge))
            return target

        return register


def _reference(name: str, opener: Callable[[], HandlerFactory]) -> Factory:
    def build() -> Reference:
        # The name is what the implementation says it is in reports; it runs in the kit's process, as the reference does.
        return Reference(name=f"mutant:{name}", replaced=(opener(),), synchronous="normal")

    build.__name__ = name
    return build


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name.lstrip("_")).lower()
