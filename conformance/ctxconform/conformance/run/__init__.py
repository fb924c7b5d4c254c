"""Running suites: the request that crosses into the pytest child, the plugin's hooks, and mutation runs."""

from __future__ import annotations

from ctxconform.conformance.run._runner import RunOptions, SuiteRun, run_suite

__all__ = ["RunOptions", "SuiteRun", "run_suite"]
