"""Hypothesis profiles of the kit: dev, ci (extending hypothesis's own ci profile) and thorough."""

from __future__ import annotations

import os
from typing import Final

__all__ = ["PROFILES", "register_profiles"]

PROFILES: Final = ("dev", "ci", "thorough")


def register_profiles() -> None:
    """Register the profiles, and reload ci when hypothesis already picked it because CI is set."""
    # Imported here: the CLI names the profiles without loading hypothesis.
    from hypothesis import HealthCheck, settings  # noqa: PLC0415

    slow = [HealthCheck.too_slow, HealthCheck.data_too_large]
    # No example database: a run is replayed by its seed alone, and the same run twice gives the same report.
    settings.register_profile(
        "dev", max_examples=30, deadline=None, stateful_step_count=20, suppress_health_check=slow, database=None
    )
    # Built on the built-in profile that CI=true selects (derandomized, no database), not a replacement for it.
    settings.register_profile(
        "ci",
        parent=settings.get_profile("ci"),
        max_examples=60,
        deadline=None,
        stateful_step_count=25,
        suppress_health_check=slow,
    )
    settings.register_profile(
        "thorough", max_examples=500, deadline=None, stateful_step_count=60, suppress_health_check=slow, database=None
    )
    current = settings.get_current_profile_name()
    if current == "ci" and os.environ.get("CI"):
        settings.load_profile("ci")
    elif current == "default":
        # Implementations answer over pipes and disks: hypothesis's 200 ms deadline would make them flaky.
        settings.load_profile("dev")
