"""The `hostile` command: the reference's catalogue of hostile implementations run against the harness, as a table."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from ctxconform.conformance.cli._common import EXIT_CONFORMANT, EXIT_NOT_CONFORMANT, check_count, report_dir
from ctxconform.conformance.exceptions import ConfigurationError
from ctxconform.conformance.run._hostile import HostileOutcome, run_cases

__all__ = ["add_parser"]


def add_parser(commands: Any) -> None:
    """Add the `hostile` command."""
    hostile = commands.add_parser(
        "hostile", help="check that the harness survives hostile implementations and gives each its verdict"
    )
    hostile.add_argument("--fake", action="append", metavar="NAME", help="only this hostile implementation (repeatable)")
    hostile.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N", help="runs at once (default: CPUs)")
    hostile.add_argument("--report-dir", default="reports", type=Path, metavar="DIR", help="where hostile.json is written")
    hostile.set_defaults(command=_hostile)


def _hostile(options: argparse.Namespace) -> int:
    from ctxconform.reference.hostile import FAKES, SELECTION  # noqa: PLC0415 - only this command needs the reference

    check_count("--jobs", options.jobs, 1, 64)
    known = {fake.name: fake for fake in FAKES}
    unknown = [name for name in options.fake or [] if name not in known]
    if unknown:
        raise ConfigurationError(f"--fake {unknown[0]}: no such hostile implementation; choose from {', '.join(known)}")
    chosen = [known[name] for name in options.fake] if options.fake else list(FAKES)
    folder = report_dir(options.report_dir)
    clock = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ctxconform-hostile-") as work:
        outcomes = run_cases(chosen, SELECTION, Path(work), options.jobs)
    document = {"duration_s": round(time.monotonic() - clock, 1), "outcomes": [dataclasses.asdict(o) for o in outcomes]}
    (folder / "hostile.json").write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    _print_table(outcomes, {fake.name: fake for fake in chosen}, folder)
    return EXIT_CONFORMANT if all(outcome.held for outcome in outcomes) else EXIT_NOT_CONFORMANT


def _print_table(outcomes: list[HostileOutcome], fakes: dict[str, Any], folder: Path) -> None:
    print(f"{'hostile implementation':<20} {'expected':<26} {'got':<26} {'peak MiB':>8} {'bound':>6} {'left':>4} {'s':>5}  held")
    for outcome in outcomes:
        fake = fakes[outcome.name]
        expected = _verdict(fake.status, sorted(fake.verdicts))
        got = _verdict(outcome.status, outcome.verdicts)
        held = "yes" if outcome.held else "NO: " + "; ".join(outcome.problems)
        print(
            f"{outcome.name:<20} {expected:<26} {got:<26} {outcome.peak_mib:>8.0f} {fake.peak_mib:>6} {outcome.left:>4}"
            f" {outcome.duration_s:>5.0f}  {held}"
        )
    count = sum(outcome.held for outcome in outcomes)
    print(f"\n{count} of {len(outcomes)} held; details in {folder / 'hostile.json'}")


def _verdict(status: str, verdicts: list[str]) -> str:
    return f"{status} {'/'.join(verdicts)}".strip()[:26]
