"""A second instance of the implementation on the same state, for tests of two writers at once."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

import pytest

from ctxconform.conformance.exceptions import ImplementationUnavailable
from ctxconform.conformance.transports._implementation import Implementation

__all__ = ["SINGLE_INSTANCE", "second_instance"]

SINGLE_INSTANCE: Final = "single_instance"
"""The feature an implementation declares (for a spec) when it cannot run twice on one state: such tests are SKIP."""


@contextmanager
def second_instance(implementation: Implementation, spec: str) -> Iterator[Implementation]:
    """Start another instance of `implementation` on its state, stopped on exit; SKIP when there cannot be one."""
    if SINGLE_INSTANCE in implementation.features(spec):
        pytest.skip(f"the implementation declares {SINGLE_INSTANCE!r}: it cannot run twice on one state")
    try:
        other = implementation.another()
        other.start()
    except ImplementationUnavailable as error:
        pytest.skip(f"no second instance on the same state: {error}")
    try:
        yield other
    finally:
        other.stop()
