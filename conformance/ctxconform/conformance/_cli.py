"""The `ctxconform` command: run suites against adapters and write reports, list and check requirements."""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Final

from ctxconform.conformance._adapters import Adapter, parse_adapter
from ctxconform.conformance._badge import badge_for
from ctxconform.conformance._baseline import Baseline, KnownFailure, baseline_from, load_baseline
from ctxconform.conformance._ctrf import render_ctrf
from ctxconform.conformance._html import render_html
from ctxconform.conformance._junit import render_junit
from ctxconform.conformance._ledger import lookup
from ctxconform.conformance._markdown import render_markdown
from ctxconform.conformance._mutation import MutantOutcome, MutationOptions, MutationReport, mutation_report, run_mutants
from ctxconform.conformance._profiles import PROFILES
from ctxconform.conformance._registry import LEVELS, coverage_problems
from ctxconform.conformance._report import ImplementationReport, Report, implementation_report, tests_in
from ctxconform.conformance._results import ProblemLine, ResultLine, TestLine
from ctxconform.conformance._runner import RunOptions, collect_requirements, run_suite
from ctxconform.conformance._specdiff import CHANGE_KINDS, diff_specs, load_tree
from ctxconform.conformance._specdiff import render_markdown as render_spec_diff
from ctxconform.conformance._specs import SPECS, SpecSuite, resolve_specs
from ctxconform.conformance._verdicts import BAD
from ctxconform.conformance.exceptions import ConfigurationError

__all__ = ["main"]

EXIT_CONFORMANT: Final = 0
EXIT_NOT_CONFORMANT: Final = 1
EXIT_USAGE: Final = 2
EXIT_UNAVAILABLE: Final = 3
_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    parser = _parser()
    options = parser.parse_args(argv)
    try:
        return int(options.command(options))
    except ConfigurationError as error:
        print(f"ctxconform: error: {error.message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("ctxconform: interrupted", file=sys.stderr)
        return EXIT_USAGE


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ctxconform", description="Conformance kit for agent-context specifications.")
    parser.add_argument("--version", action="version", version=f"ctxconform {_kit_version()}")
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")
    run = commands.add_parser("run", help="run the conformance suites against implementations and write reports")
    run.add_argument(
        "--adapter", action="append", metavar="A", help="implementation connection string (repeatable; default: reference)"
    )
    run.add_argument("--spec", action="append", metavar="S", help=f"spec to run (repeatable; default: all of {', '.join(SPECS)})")
    run.add_argument(
        "--level", choices=LEVELS, default="MAY", help="run requirements at this level or stronger (default: MAY, all)"
    )
    run.add_argument(
        "--report-dir", default="reports", type=Path, metavar="DIR", help="where reports are written (default: reports)"
    )
    run.add_argument("--profile", choices=PROFILES, help="hypothesis profile (default: ci when CI is set, else dev)")
    run.add_argument("--seed", type=int, help="hypothesis seed, to replay a run (default: random)")
    run.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS", help="how long one call may take (default: 10)")
    run.add_argument(
        "--max-restarts", type=int, default=5, metavar="N", help="restart a broken implementation at most N times (default: 5)"
    )
    run.add_argument(
        "--test",
        action="append",
        default=[],
        metavar="ID",
        help="only the test of this exact node id (repeatable; as in a report's replay)",
    )
    run.add_argument("--keyword", metavar="EXPR", help="only tests matching this pytest -k expression")
    run.add_argument(
        "--requirement",
        action="append",
        default=[],
        metavar="ID",
        help="only the tests declaring this requirement id (repeatable)",
    )
    run.add_argument("--quiet", action="store_true", help="no progress display")
    run.add_argument(
        "--baseline", type=Path, metavar="FILE", help="known failures of the implementation: XFAIL, or XPASS when stale"
    )
    run.add_argument(
        "--update-baseline", action="store_true", help="write --baseline FILE from this run's failures (complete runs only)"
    )
    run.set_defaults(command=_run)
    _add_mutants_parser(commands)
    _add_spec_diff_parser(commands)
    requirements = commands.add_parser("requirements", help="list requirements; --check that every testable one has a test")
    requirements.add_argument("--spec", action="append", metavar="S", help="spec to list (repeatable; default: all)")
    requirements.add_argument(
        "--check", action="store_true", help="exit 1 if a testable requirement has no test or a test names an unknown id"
    )
    requirements.add_argument("--json", action="store_true", help="print JSON instead of a table")
    requirements.set_defaults(command=_requirements)
    return parser


def _add_mutants_parser(commands: Any) -> None:
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


def _add_spec_diff_parser(commands: Any) -> None:
    diff = commands.add_parser("spec-diff", help="classify the schema and requirement changes between two versions of the specs")
    diff.add_argument(
        "old", metavar="OLD", help="a folder holding schemas/ (and the registries), or a git ref of this repository"
    )
    diff.add_argument("new", metavar="NEW", nargs="?", default=".", help="the same, for the new version (default: .)")
    diff.add_argument("--format", choices=("markdown", "json"), default="markdown", help="output format (default: markdown)")
    diff.add_argument("--output", type=Path, metavar="FILE", help="write the output to FILE instead of stdout")
    diff.add_argument(
        "--fail-on",
        choices=CHANGE_KINDS,
        metavar="KIND",
        help="exit 1 when a change this severe or worse is found (breaking, ...)",
    )
    diff.add_argument("--repository", type=Path, default=Path(), metavar="DIR", help="the git repository refs name (default: .)")
    diff.set_defaults(command=_spec_diff)


def _spec_diff(options: argparse.Namespace) -> int:
    old = load_tree(options.old, repository=options.repository)
    new = load_tree(options.new, repository=options.repository)
    diff = diff_specs(old, new)
    text = diff.model_dump_json(indent=2) + "\n" if options.format == "json" else render_spec_diff(diff)
    if options.output is None:
        sys.stdout.write(text)
    else:
        _write_atomically(_report_dir(options.output.parent) / options.output.name, text)
    summary = ", ".join(f"{count} {kind}" for kind, count in diff.counts.items()) if diff.changes else "no changes"
    print(f"{old.label} -> {new.label}: {summary}", file=sys.stderr)
    return EXIT_NOT_CONFORMANT if options.fail_on and diff.fails(options.fail_on) else EXIT_CONFORMANT


def _run(options: argparse.Namespace) -> int:
    specs = tuple(resolve_specs(options.spec))
    adapters = [parse_adapter(text) for text in options.adapter or ["reference"]]
    if options.timeout <= 0 or options.max_restarts < 0:
        raise ConfigurationError("--timeout must be a positive number of seconds and --max-restarts at least 0")
    baselining = _baselining(options, adapters)
    report_dir = _report_dir(options.report_dir)
    seed, profile = _seed(options), _profile(options)
    started, clock = datetime.now(UTC), time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ctxconform-run-") as work:
        run_options = RunOptions(
            specs,
            options.level,
            profile,
            seed,
            options.timeout,
            Path(work),
            tuple(options.test),
            options.keyword,
            tuple(_known_requirements(options.requirement)),
            not options.quiet,
            options.max_restarts,
        )
        implementations = [_run_one(adapter, run_options, index, baselining) for index, adapter in enumerate(adapters)]
    report = Report(
        kit={"name": "ctxconform", "version": _kit_version()},
        started_at=started.isoformat(timespec="seconds").replace("+00:00", "Z"),
        finished_at=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        duration_s=round(time.monotonic() - clock, 3),
        seed=seed,
        profile=profile,
        level=options.level,
        argv=sys.argv[1:],
        partial=run_options.partial,
        conformant=all(i.status == "conformant" for i in implementations),
        implementations=implementations,
    )
    written = _write_reports(report, report_dir)
    _print_table(report, written)
    return _exit_code(implementations)


@dataclass(frozen=True)
class _Baselining:
    path: Path | None
    update: bool
    baseline: Baseline | None
    specs: frozenset[str] = frozenset()

    def for_run(self, adapter: str, lines: list[ResultLine], exit_code: int) -> Baseline | None:
        """The baseline to apply: the file's, or with --update-baseline a new one written from this complete run."""
        if not self.update or self.path is None:
            return self.baseline
        if any(line.event == "unavailable" for line in lines):
            print(f"ctxconform: the implementation could not start; {self.path} is unchanged", file=sys.stderr)
            return self.baseline
        partial = _partial(lines, exit_code)
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
        packages = {suite.package: suite.spec for suite in SPECS.values()}
        return [e for e in self.baseline.known_failures if e.spec(packages) not in self.specs]


def _baselining(options: argparse.Namespace, adapters: list[Adapter]) -> _Baselining:
    if options.update_baseline and options.baseline is None:
        raise ConfigurationError("--update-baseline writes the file named by --baseline FILE: give one")
    if options.baseline is not None and len(adapters) > 1:
        raise ConfigurationError("a baseline belongs to one implementation: give a single --adapter with --baseline")
    if not options.update_baseline:
        return _Baselining(options.baseline, False, load_baseline(options.baseline) if options.baseline else None)
    used = (("--test", options.test), ("--keyword", options.keyword), ("--requirement", options.requirement))
    filters = [flag for flag, value in (*used, ("--level", options.level != "MAY")) if value]
    if filters:
        raise ConfigurationError(f"--update-baseline needs a complete run, and {', '.join(filters)} filters it: drop them")
    existing = load_baseline(options.baseline) if options.baseline.exists() else None
    return _Baselining(options.baseline, True, existing, frozenset(s.spec for s in resolve_specs(options.spec)))


def _known_requirements(ids: list[str]) -> list[str]:
    for rid in ids:
        lookup(rid)  # a ConfigurationError (exit 2) names an unknown id
    return ids


def _partial(lines: list[ResultLine], exit_code: int) -> str:
    events = {line.event for line in lines}
    verdicts = {line.verdict for line in lines if isinstance(line, TestLine)}
    reasons = [
        ("the suite could not run", "configuration" in events or not verdicts),
        ("the restarts ran out", "restarts-exhausted" in events),
        ("some tests ended in HARNESS", "HARNESS" in verdicts),
        (f"pytest stopped with exit code {exit_code}", exit_code not in (0, 1)),
    ]
    return "; ".join(reason for reason, found in reasons if found)


def _run_one(adapter: Adapter, options: RunOptions, index: int, baselining: _Baselining) -> ImplementationReport:
    if options.progress:
        print(f"{adapter.text}: {', '.join(s.spec for s in options.specs)}", file=sys.stderr)
    run = run_suite(adapter, options, index)
    lines = run.lines
    if not any(line.event in ("test", "unavailable", "configuration") for line in lines):
        tail = run.log.read_text(encoding="utf-8", errors="replace")[-1500:]
        problem = ProblemLine(event="configuration", message=f"the suite ran no test (pytest exit {run.exit_code}):\n{tail}")
        lines = [*lines, problem]
    registries = [spec.registry for spec in options.specs]
    baseline = baselining.for_run(adapter.text, lines, run.exit_code)
    return implementation_report(
        adapter.text,
        lines,
        registries,
        replay=options.replay(adapter),
        duration_s=run.duration_s,
        baseline=baseline,
        partial=options.partial,
    )


def _report_dir(path: Path) -> Path:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigurationError(f"cannot create the report folder {path}: {error.strerror}") from error
    if not os.access(path, os.W_OK):
        raise ConfigurationError(f"the report folder {path} is not writable")
    return path


def _write_reports(report: Report, report_dir: Path) -> list[Path]:
    documents = {
        "report.json": json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n",
        "junit.xml": render_junit(report),
        "ctrf.json": render_ctrf(report),
        "summary.md": render_markdown(report),
        "report.html": render_html(report),
    }
    for index, implementation in enumerate(report.implementations):
        badge, stem = badge_for(implementation), "badge" if index == 0 else f"badge-{index + 1}"
        documents |= {f"{stem}.svg": badge.svg(), f"{stem}.json": badge.endpoint()}
    return [_write_atomically(report_dir / name, text) for name, text in documents.items()]


def _write_atomically(path: Path, text: str) -> Path:
    # A lone surrogate an implementation sent back is written as its escape, as text: strict JSON parsers refuse
    # a lone surrogate even escaped, and UTF-8 cannot encode it.
    escape = "\\\\u{:04x}" if path.suffix == ".json" else "\\u{:04x}"
    clean = _LONE_SURROGATE.sub(lambda found: escape.format(ord(found.group())), text)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(clean, encoding="utf-8")
    temporary.replace(path)
    return path


def _print_table(report: Report, written: list[Path]) -> None:
    print(f"\n{'implementation':<34} {'status':<15} {'tests':>5} {'pass':>5} {'fail':>5} {'skip':>5} {'other':>5}")
    for imp in report.implementations:
        counts = imp.counts
        total, passed, failed, skipped = sum(counts.values()), counts.get("PASS", 0), counts.get("FAIL", 0), counts.get("SKIP", 0)
        name = f"{imp.name or imp.adapter} {imp.version or ''}".strip()[:34]
        print(
            f"{name:<34} {imp.status:<15} {total:>5} {passed:>5} {failed:>5} {skipped:>5} {total - passed - failed - skipped:>5}"
        )
        if imp.message:
            print(f"  {imp.message.strip().splitlines()[0]}")
        for requirement in [r for r in imp.requirements if r.verdict in BAD][:10]:
            print(f"  {requirement.verdict:<8} {requirement.level:<6} {requirement.id}")
        first = next((t for t in imp.tests if t.replay), None)
        if first is not None:
            print(f"  first failure: {first.name}\n  replay: {first.replay}")
    print(f"\nreports in {written[0].parent}: {', '.join(path.name for path in written)}")


def _exit_code(implementations: list[ImplementationReport]) -> int:
    statuses = {i.status for i in implementations}
    if "unavailable" in statuses:
        return EXIT_UNAVAILABLE
    if statuses <= {"conformant", "known-failures", "partial"}:
        return EXIT_CONFORMANT
    return EXIT_NOT_CONFORMANT


def _mutants(options: argparse.Namespace) -> int:
    if options.jobs < 1 or options.timeout <= 0:
        raise ConfigurationError("--jobs must be at least 1 and --timeout a positive number of seconds")
    names, complete = _chosen_mutants(options)
    report_dir = _report_dir(options.report_dir)
    seed, profile = _seed(options), _profile(options)
    clock = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ctxconform-mutants-") as work:
        run_options = MutationOptions(seed, profile, options.timeout, Path(work), whole=options.whole)
        outcomes = [_show_outcome(o, options.quiet) for o in run_mutants(names, run_options, min(options.jobs, len(names)))]
    specs = [spec.spec for spec in resolve_specs(options.spec)]
    report = mutation_report(
        outcomes,
        specs,
        seed=seed,
        profile=profile,
        complete=complete,
        duration_s=time.monotonic() - clock,
        whole=options.whole,
    )
    (report_dir / "mutants.json").write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
    _print_mutation_summary(report, report_dir)
    clean = report.killed == len(outcomes) and not report.uncovered and not any(o.harness for o in outcomes)
    return EXIT_CONFORMANT if clean else EXIT_NOT_CONFORMANT


def _chosen_mutants(options: argparse.Namespace) -> tuple[list[str], bool]:
    from ctxconform.reference.mutants import MUTANTS  # noqa: PLC0415 - only this command needs the reference

    specs = {spec.spec for spec in resolve_specs(options.spec)}
    known = {m.name for m in MUTANTS}
    unknown = sorted(set(options.mutant or ()) - known)
    if unknown:
        raise ConfigurationError(f"unknown mutant(s) {', '.join(unknown)}: mutants.json of a whole run lists them all")
    chosen = [m for m in MUTANTS if m.spec in specs and (not options.mutant or m.name in options.mutant)]
    if options.sample is not None:
        if options.sample < 1:
            raise ConfigurationError("--sample must be at least 1")
        draw = random.Random(_seed(options))  # noqa: S311 - a reproducible sample, not a secret
        chosen = [m for spec in sorted(specs) for m in _draw(draw, [m for m in chosen if m.spec == spec], options.sample)]
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


def _print_mutation_summary(report: MutationReport, report_dir: Path) -> None:
    print(f"\n{'spec':<20} {'mutants':>7} {'killed':>7}")
    for spec, tally in report.per_spec.items():
        print(f"{spec:<20} {tally['mutants']:>7} {tally['killed']:>7}")
    levels = ", ".join(f"{level} {t['killed']}/{t['mutants']}" for level, t in report.per_level.items())
    print(f"\nkilled {report.killed} of {len(report.mutants)} ({report.kill_rate:.0%}); by level: {levels}")
    for outcome in (o for o in report.mutants if not o.killed):
        print(f"  SURVIVED {outcome.name} ({', '.join(outcome.breaks)}): {outcome.message.splitlines()[0]}")
    for rid in report.uncovered:
        print(f"  no killed mutant breaks {rid}")
    for outcome in (o for o in report.mutants if o.harness):
        print(f"  HARNESS {outcome.name}: {len(outcome.harness)} tests, first {outcome.harness[0]}")
    if report.charging:
        _print_charging(report)
    print(f"seed {report.seed}; report: {report_dir / 'mutants.json'}")


def _print_charging(report: MutationReport) -> None:
    print(f"\n{'charging':<20} {'mutants':>7} {'recall':>7} {'precision':>9} {'collateral':>10} {'max':>4}  worst mutant")
    for spec, figures in report.charging.items():
        print(
            f"{spec:<20} {figures.mutants:>7} {figures.recall:>7.1%} {figures.precision:>9.1%} "
            f"{figures.mean_collateral:>10.2f} {figures.max_collateral:>4}  {figures.worst}"
        )


def _seed(options: argparse.Namespace) -> int:
    if options.seed is None:
        options.seed = random.SystemRandom().randrange(2**32)
    return int(options.seed)


def _profile(options: argparse.Namespace) -> str:
    return str(options.profile or ("ci" if os.environ.get("CI") else "dev"))


def _requirements(options: argparse.Namespace) -> int:
    specs = resolve_specs(options.spec)
    rows = [r for spec in specs for r in spec.registry.requirements]
    if options.json:
        print(json.dumps([r.__dict__ for r in rows], indent=2, ensure_ascii=False))
    elif not options.check:
        for r in rows:
            print(f"{r.id:<60} {r.level:<6} {r.kind:<10} {r.feature or ''}")
        print(f"{len(rows)} requirements")
    return _check(specs) if options.check else EXIT_CONFORMANT


def _check(specs: list[SpecSuite]) -> int:
    with tempfile.TemporaryDirectory(prefix="ctxconform-check-") as work:
        named, output = collect_requirements(specs, Path(work))
    if not named:
        print(f"ctxconform: no suite test was collected:\n{output[-1500:]}", file=sys.stderr)
        return EXIT_NOT_CONFORMANT
    registries = [spec.registry for spec in specs]
    problems = coverage_problems(registries, named)
    for problem in problems:
        print(problem)
    known = [r for registry in registries for r in registry.requirements]
    tested = sum(1 for r in known if r.needs_test)
    print(f"{len(known)} requirements, {tested} need a test, {len(named)} tests, {len(problems)} problems")
    return EXIT_NOT_CONFORMANT if problems else EXIT_CONFORMANT


def _kit_version() -> str:
    try:
        return version("ctxconform")
    except PackageNotFoundError:
        return "0+unknown"
