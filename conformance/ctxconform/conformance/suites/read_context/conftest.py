"""Fixtures of the read-context suite: a fresh workspace per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ctxconform.conformance.suites.read_context.client import Workspace
from ctxconform.conformance.testing import Implementation


@pytest.fixture
def workspace(implementation: Implementation) -> Iterator[Workspace]:
    """An empty workspace for a new image, and an empty tastes folder; removed afterwards."""
    created = Workspace(implementation)
    yield created
    created.remove()
