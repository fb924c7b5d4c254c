"""The context-assembly suite's one fixture: a client for the implementation the harness provides."""

from __future__ import annotations

import pytest

from ctxconform.conformance.suites.context_assembly.client import AssemblyClient
from ctxconform.conformance.testing import Implementation


@pytest.fixture
def client(implementation: Implementation) -> AssemblyClient:
    """A client of the implementation under test (assembly is stateless: nothing is shared between tests)."""
    return AssemblyClient(implementation)
