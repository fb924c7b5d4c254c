"""The `report` command: `report merge` combines the reports of parallel jobs into one comparison."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ctxconform.conformance.cli._common import exit_code_of, report_dir
from ctxconform.conformance.cli._run import print_table
from ctxconform.conformance.report._files import write_reports
from ctxconform.conformance.report._merge import merge_reports, read_report

__all__ = ["add_parser"]


def add_parser(commands: Any) -> None:
    """Add the `report` command and its `merge` subcommand."""
    report = commands.add_parser("report", help="work with the reports runs wrote")
    actions = report.add_subparsers(title="actions", required=True, metavar="ACTION")
    merge = actions.add_parser(
        "merge", help="combine the report.json of parallel jobs (one per implementation or spec) into one comparison"
    )
    merge.add_argument("reports", nargs="+", type=Path, metavar="DIR", help="a folder a run wrote (or its report.json)")
    merge.add_argument("--report-dir", default="reports", type=Path, metavar="DIR", help="where the merged reports are written")
    merge.set_defaults(command=_merge)


def _merge(options: argparse.Namespace) -> int:
    reports = [read_report(path) for path in options.reports]
    merged = merge_reports(reports, argv=sys.argv[1:])
    written = write_reports(merged, report_dir(options.report_dir))
    print_table(merged, written)
    return exit_code_of(merged.implementations)
