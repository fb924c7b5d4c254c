"""Fixtures of the shared-context suite: a fresh session per test, created through the system operation."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance.suites.shared_context.client import Session, new_session_id


@pytest.fixture
def session(implementation: Implementation) -> Iterator[Session]:
    """A new, empty, active session called by the orchestrator; deleted afterwards."""
    created = Session(implementation, new_session_id())
    created.lifecycle("create_session").expect("shared-context/8.4/create-empty-store")
    yield created
    if implementation.broken is None:
        created.lifecycle("delete_session")
