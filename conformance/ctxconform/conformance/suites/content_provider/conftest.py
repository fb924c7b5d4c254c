"""Fixtures of the content-provider suite: a fresh execution with its provider per test, ended afterwards."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ctxconform.conformance.suites.content_provider.client import Execution, fresh_execution
from ctxconform.conformance.testing import Implementation


@pytest.fixture
def execution(implementation: Implementation) -> Iterator[Execution]:
    """A new execution holding a new provider; ended afterwards."""
    with fresh_execution(implementation) as created:
        yield created
