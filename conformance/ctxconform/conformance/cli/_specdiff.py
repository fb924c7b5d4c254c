"""The `spec-diff` command: two versions of the specs compared, each change classified."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ctxconform.conformance.cli._common import (
    EXIT_CONFORMANT,
    EXIT_NOT_CONFORMANT,
    report_dir,
)
from ctxconform.conformance.report._files import write_atomically
from ctxconform.conformance.specdiff._diff import CHANGE_KINDS, diff_specs, load_tree
from ctxconform.conformance.specdiff._diff import render_markdown as render_spec_diff

__all__ = ["add_parser"]


def add_parser(commands: Any) -> None:
    """Add the `spec-diff` command."""
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
        write_atomically(report_dir(options.output.parent) / options.output.name, text)
    summary = ", ".join(f"{count} {kind}" for kind, count in diff.counts.items()) if diff.changes else "no changes"
    print(f"{old.label} -> {new.label}: {summary}", file=sys.stderr)
    return EXIT_NOT_CONFORMANT if options.fail_on and diff.fails(options.fail_on) else EXIT_CONFORMANT
