"""The baseline policy of a run: which known failures apply, and when a run may rewrite the baseline file."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from ctxconform.conformance.exceptions import ConfigurationError
from ctxconform.conformance.judge._results import ResultLine, TestLine
from ctxconform.conformance.judge._specs import specs
from ctxconform.conformance.report._baseline import Baseline, KnownFailure, baseline_from, load_baseline
from ctxconform.conformance.report._tests import tests_in

__all__ = ["BaselinePolicy", "partial_because"]


@dataclass(frozen=True)
class BaselinePolicy:
    """A run's baseline: the file, whether this run rewrites it, and the specs the run covers."""

    path: Path | None
    update: bool
    baseline: Baseline | None
    specs: frozenset[str] = frozenset()

    @classmethod
    def choose(
        cls, path: Path | None, *, update: bool, adapters: int, filters: list[str], specs: frozenset[str]
    ) -> BaselinePolicy:
        """The policy for a run with these options; raise ConfigurationError when they cannot go together."""
        if update and path is None:
            raise ConfigurationError("--update-baseline writes the file named by --baseline FILE: give one")
        if path is not None and adapters > 1:
            raise ConfigurationError("a baseline belongs to one implementation: give a single --adapter with --baseline")
        if not update or path is None:
            return cls(path, False, load_baseline(path) if path else None)
        if filters:
            raise ConfigurationError(f"--update-baseline needs a complete run, and {', '.join(filters)} filters it: drop them")
        return cls(path, True, load_baseline(path) if path.exists() else None, specs)

    def for_run(self, adapter: str, lines: list[ResultLine], exit_code: int) -> Baseline | None:
        """The baseline to apply: the file's, or with --update-baseline a new one written from this complete run."""
        if not self.update or self.path is None:
            return self.baseline
        if any(line.event == "unavailable" for line in lines):
            print(f"ctxconform: the implementation could not start; {self.path} is unchanged", file=sys.stderr)
            return self.baseline
        partial = partial_because(lines, exit_code)
        if partial:
            raise ConfigurationError(
                f"not updating the baseline {self.path}: the run was partial ({partial}); the file is unchanged"
            )
        baseline = baseline_from(adapter, tests_in(lines, replay=""), keep=self._other_specs())
        temporary = self.path.with_name(f".{self.path.name}.tmp")
        temporary.write_text(baseline.model_dump_json(indent=2, exclude_none=True) + "\n", encoding="utf-8")
        temporary.replace(self.path)  # all or nothing
        print(f"wrote {len(baseline.known_failures)} known failures to {self.path}", file=sys.stderr)
        return baseline

    def _other_specs(self) -> list[KnownFailure]:
        # A run of some specs rewrites their entries and keeps those of the others.
        if self.baseline is None:
            return []
        packages = {spec.suite.name: spec.id for spec in specs().values()}
        return [e for e in self.baseline.known_failures if e.spec(packages) not in self.specs]


def partial_because(lines: list[ResultLine], exit_code: int) -> str:
    """Why a run's results do not cover its whole selection (empty when they do)."""
    events = {line.event for line in lines}
    verdicts = {line.verdict for line in lines if isinstance(line, TestLine)}
    reasons = [
        ("the suite could not run", "configuration" in events or not verdicts),
        ("the restarts ran out", "restarts-exhausted" in events),
        ("some tests ended in HARNESS", "HARNESS" in verdicts),
        (f"pytest stopped with exit code {exit_code}", exit_code not in (0, 1)),
    ]
    return "; ".join(reason for reason, found in reasons if found)
