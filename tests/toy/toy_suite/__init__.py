"""The toy-counter suite, and the spec it checks: its `SPEC` is all the kit needs to know of it."""

from __future__ import annotations

from typing import Final

from ctxconform.conformance.testing import Spec

__all__ = ["SPEC"]

SPEC: Final = Spec.of_package(__file__, "toy-counter")
