"""The catalogue of hostile implementations: each a stdio program that attacks the harness, with what it must get."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, TypeVar

__all__ = ["SELECTION", "Catalogue", "Fake"]

_Serve = TypeVar("_Serve", bound=Callable[[], None])
_STATUSES: Final = ("partial", "not-conformant", "unavailable")

SELECTION: Final = ("--spec", "shared-context", "--keyword", "list_keys", "--seed", "1")
"""The `ctxconform run` selection every fake is run with: a handful of tests, enough to reach each attack."""


@dataclass(frozen=True)
class Fake:
    """A hostile implementation and the verdict the harness must give it, within a memory bound, leaving no process."""

    name: str
    description: str
    serve: Callable[[], None]
    status: str
    verdicts: frozenset[str]
    peak_mib: int
    options: tuple[str, ...] = ()

    @property
    def command(self) -> tuple[str, ...]:
        """The command that runs this fake as a stdio implementation."""
        return (sys.executable, "-m", "ctxconform.reference.hostile", self.name)


@dataclass
class Catalogue:
    """The hostile implementations, registered by decorating the function that serves each on stdin and stdout."""

    fakes: list[Fake] = field(default_factory=list)

    def fake(self, *verdicts: str, status: str, peak_mib: int = 400, options: tuple[str, ...] = ()) -> Callable[[_Serve], _Serve]:
        """Register the decorated function: its tests must end in exactly `verdicts`, the run in `status`.

        `peak_mib` bounds the peak resident memory of the run's largest process; `options` are added to the run.
        """
        if status not in _STATUSES:
            raise ValueError(f"status {status!r} is not one of {', '.join(_STATUSES)}")

        def register(serve: _Serve) -> _Serve:
            description = (serve.__doc__ or "").strip().rstrip(".")
            if not description:
                raise ValueError(f"fake {serve.__name__}: describe it in a docstring")
            name = re.sub("_", "-", serve.__name__.strip("_"))
            self.fakes.append(Fake(name, description, serve, status, frozenset(verdicts), peak_mib, options))
            return serve

        return register
