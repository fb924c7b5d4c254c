"""The `mutants` command: each mutant of the reference against its spec's suite, and the charging table."""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Final

from ctxconform.conformance.cli._common import (
    EXIT_CONFORMANT,
    EXIT_NOT_CONFORMANT,
    check_count,
    check_seconds,
    profile_of,
    report_dir,
    seed_of,
)
from ctxconform.conformance.exceptions import ConfigurationError
from ctxconform.conformance.judge._specs import resolve_specs
from ctxconform.conformance.run._mutation import MutantOutcome, MutationOptions, MutationReport, mutation_report, run_mutants
from ctxconform.conformance.run._profiles import PROFILES
from ctxconform.conformance.run._request import SuiteRequest

__all__ = ["add_parser"]

# More workers than this only thrash: each is a pytest process with a suite loaded.
_MAX_JOBS: Final = 256


def add_parser(commands: Any) -> None:
    """Add the `mutants` command."""
    mutants = commands.add_parser("mutants", help="check that the suites catch every mutant of the reference")
    mutants.add_argument("--spec", action="append", metavar="S", help="only mutants of this spec (repeatable)")
    mutants.add_argument("--mutant", action="append", metavar="NAME", help="only this mutant (repeatable)")
    mutants.add_argument("--sample", type=int, metavar="N", help="N mutants per spec, drawn with the seed (a fast subset)")
    mutants.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N", help="worker processes (default: CPUs)")
    mutants.add_argument("--report-dir", default="reports", type=Path, metavar="DIR", help="where mutants.json is written")
    mutants.add_argument("--profile", choices=PROFILES, help="hypothesis profile (default: ci when CI is set, else dev)")
    mutants.add_argument("--seed", type=int, help="seed of hypothesis and of --sample (default: random)")
    mutants.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS", help="how long one call may take")
    mutants.add_argument("--quiet", action="store_true", help="print only the summary")
    mutants.add_argument(
        "--whole",
        action="store_true",
        help="run each mutant against its spec's whole suite and print charging recall, precision and collateral",
    )
    mutants.set_defaults(command=_mutants)


def _mutants(options: argparse.Namespace) -> int:
    check_count("--jobs", options.jobs, 1, _MAX_JOBS)
    check_seconds("--timeout", options.timeout)
    names, complete = _chosen_mutants(options)
    folder = report_dir(options.report_dir)
    seed, profile = seed_of(options), profile_of(options)
    clock = time.monotonic()
    # The mutants run pytest in this process and its workers: they get the environment a run gives its children.
    os.environ.update(SuiteRequest.environment())
    with tempfile.TemporaryDirectory(prefix="ctxconform-mutants-") as work:
        run_options = MutationOptions(seed, profile, options.timeout, Path(work), whole=options.whole)
        outcomes = [_show_outcome(o, options.quiet) for o in run_mutants(names, run_options, min(options.jobs, len(names)))]
    report = mutation_report(
        outcomes,
        [spec.id for spec in resolve_specs(options.spec)],
        seed=seed,
        profile=profile,
        complete=complete,
        duration_s=time.monotonic() - clock,
        whole=options.whole,
    )
    (folder / "mutants.json").write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
    _print_mutation_summary(report, folder)
    clean = report.killed == len(outcomes) and not report.uncovered and not any(o.harness for o in outcomes)
    return EXIT_CONFORMANT if clean else EXIT_NOT_CONFORMANT


def _chosen_mutants(options: argparse.Namespace) -> tuple[list[str], bool]:
    from ctxconform.reference.mutants import MUTANTS  # noqa: PLC0415 - only this command needs the reference

    wanted = {spec.id for spec in resolve_specs(options.spec)}
    known = {m.name for m in MUTANTS}
    unknown = sorted(set(options.mutant or ()) - known)
    if unknown:
        raise ConfigurationError(f"unknown mutant(s) {', '.join(unknown)}: mutants.json of a whole run lists them all")
    chosen = [m for m in MUTANTS if m.spec in wanted and (not options.mutant or m.name in options.mutant)]
    if options.sample is not None:
        if options.sample < 1:
            raise ConfigurationError("--sample must be at least 1")
        draw = random.Random(seed_of(options))  # noqa: S311 - a reproducible sample, not a secret
        chosen = [m for spec in sorted(wanted) for m in _draw(draw, [m for m in chosen if m.spec == spec], options.sample)]
    if not chosen:
        raise ConfigurationError("no mutant matches the selection")
    complete = not (options.spec or options.mutant or options.sample)
    return [m.name for m in chosen], complete


def _draw(draw: random.Random, mutants: list[Any], count: int) -> list[Any]:
    return sorted(draw.sample(mutants, min(count, len(mutants))), key=mutants.index)


def _show_outcome(outcome: MutantOutcome, quiet: bool) -> MutantOutcome:
    if not quiet:
        first = outcome.message.splitlines()[0] if outcome.message else ""
        verdict = f"killed by {', '.join(outcome.killed_by)}" if outcome.killed else f"SURVIVED: {first}"
        print(f"{outcome.name:<48} {outcome.duration_s:>6.1f}s  {verdict}", file=sys.stderr, flush=True)
    return outcome


def _print_mutation_summary(report: MutationReport, folder: Path) -> None:
    print(f"\n{'spec':<20} {'mutants':>7} {'killed':>7}")
    for spec, tally in report.per_spec.items():
        print(f"{spec:<20} {tally['mutants']:>7} {tally['killed']:>7}")
    levels = ", ".join(f"{level} {t['killed']}/{t['mutants']}" for level, t in report.per_level.items())
    if report.per_edge:
        print(f"\n{'edge class':<20} {'mutants':>7} {'killed':>7}")
        for edge, tally in report.per_edge.items():
            names = ", ".join(o.name + ("" if o.killed else " (SURVIVED)") for o in report.mutants if o.edge == edge)
            print(f"{edge:<20} {tally['mutants']:>7} {tally['killed']:>7}  {names}")
    print(f"\nkilled {report.killed} of {len(report.mutants)} ({report.kill_rate:.0%}); by level: {levels}")
    for outcome in (o for o in report.mutants if not o.killed):
        print(f"  SURVIVED {outcome.name} ({', '.join(outcome.breaks)}): {outcome.message.splitlines()[0]}")
    for rid in report.uncovered:
        print(f"  no killed mutant breaks {rid}")
    for outcome in (o for o in report.mutants if o.harness):
        print(f"  HARNESS {outcome.name}: {len(outcome.harness)} tests, first {outcome.harness[0]}")
    if report.charging:
        _print_charging(report)
    print(f"seed {report.seed}; report: {folder / 'mutants.json'}")


def _print_charging(report: MutationReport) -> None:
    print(f"\n{'charging':<20} {'mutants':>7} {'recall':>7} {'precision':>9} {'collateral':>10} {'max':>4}  worst mutant")
    for spec, figures in report.charging.items():
        print(
            f"{spec:<20} {figures.mutants:>7} {figures.recall:>7.1%} {figures.precision:>9.1%} "
            f"{figures.mean_collateral:>10.2f} {figures.max_collateral:>4}  {figures.worst}"
        )
