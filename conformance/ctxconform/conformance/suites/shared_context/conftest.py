"""Fixtures of the shared-context suite: a fresh session per test, created through the system operation."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ctxconform.conformance.suites.shared_context.client import Session, fresh_session
from ctxconform.conformance.testing import Implementation


@pytest.fixture
def session(implementation: Implementation) -> Iterator[Session]:
    """A new, empty, active session called by the orchestrator; deleted afterwards."""
    with fresh_session(implementation) as created:
        yield created
