"""The catalogue of mutants: what each one breaks, and how to build it."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from ctxconform.reference._implementation import Reference

__all__ = ["Mutant", "mutant"]

Factory = Callable[[], Reference]


@dataclass(frozen=True)
class Mutant:
    """A deliberately wrong implementation and the requirement ids the suite must fail for it."""

    name: str
    spec: str
    breaks: tuple[str, ...]
    description: str
    factory: Factory

    @property
    def adapter(self) -> str:
        """The connection string that runs this mutant in-process."""
        return f"python:ctxconform.reference.mutants:{self.name}"


def mutant(*breaks: str, catalogue: list[Mutant]) -> Callable[[Factory], Factory]:
    """Add the decorated factory to `catalogue` as a mutant breaking `breaks`, named after it, described by its docstring."""

    def register(factory: Factory) -> Factory:
        description = (factory.__doc__ or "").strip().removeprefix("The reference, except that ").rstrip(".")
        if not breaks or not description:
            raise ValueError(f"mutant {factory.__name__}: name the requirements it breaks and describe it in a docstring")

        @functools.wraps(factory)
        def named() -> Reference:
            reference = factory()
            reference.name = f"mutant:{factory.__name__}"  # what the implementation says it is in reports
            return reference

        catalogue.append(Mutant(factory.__name__, breaks[0].split("/")[0], breaks, description, named))
        return named

    return register
