"""The document's own examples: the request and response shapes of section 3 and the cycle of section 10."""

from __future__ import annotations

import pytest

from ctxconform.conformance.suites.shared_context.client import Session

requirement = pytest.mark.requirement


@requirement("shared-context/3.3/request-and-response-shape", "shared-context/3.3/create-version-one")
def test_write_example_returns_key_version_and_metadata(session: Session) -> None:
    """The write example of 3.3 answers with the key, its version, written_by and written_at."""
    result = session.write("problem_summary", "Updated summary after investigation...").result
    assert result["key"] == "problem_summary"
    assert result["version"] == 1
    assert result["written_by"] == "orchestrator"
