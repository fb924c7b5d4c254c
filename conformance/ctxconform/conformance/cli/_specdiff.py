"""The `spec-diff` command: two versions of the specs compared, each change classified.

With `--document`, two versions of one spec's document compared sentence by sentence instead, with the requirements
and tests each change touches.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from ctxconform.conformance.cli._common import (
    EXIT_CONFORMANT,
    EXIT_NOT_CONFORMANT,
    report_dir,
)
from ctxconform.conformance.exceptions import ConfigurationError
from ctxconform.conformance.judge._specs import Spec, resolve_specs, specs
from ctxconform.conformance.report._files import write_atomically
from ctxconform.conformance.run._runner import collect_requirements
from ctxconform.conformance.specdiff._diff import CHANGE_KINDS, diff_specs, load_tree
from ctxconform.conformance.specdiff._diff import render_markdown as render_spec_diff
from ctxconform.conformance.specdiff._document import diff_documents, render_document_markdown

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
        help=f"exit 1 when a change this severe or worse is found; KIND is one of {', '.join(CHANGE_KINDS)}",
    )
    diff.add_argument("--repository", type=Path, default=Path(), metavar="DIR", help="the git repository refs name (default: .)")
    diff.add_argument(
        "--document",
        action="store_true",
        help="OLD and NEW are two versions of one spec's document (text files): compare them sentence by sentence",
    )
    diff.add_argument(
        "--spec",
        metavar="S",
        help="with --document: the spec the documents are of (default: the spec whose document OLD or NEW is named as)",
    )
    diff.set_defaults(command=_spec_diff)


def _spec_diff(options: argparse.Namespace) -> int:
    if options.document:
        return _document_diff(options)
    if options.spec is not None:
        raise ConfigurationError("--spec goes with --document; the schema diff compares every spec")
    old = load_tree(options.old, repository=options.repository)
    new = load_tree(options.new, repository=options.repository)
    diff = diff_specs(old, new)
    text = diff.model_dump_json(indent=2) + "\n" if options.format == "json" else render_spec_diff(diff)
    _write(options.output, text)
    summary = ", ".join(f"{count} {kind}" for kind, count in diff.counts.items()) if diff.changes else "no changes"
    print(f"{old.label} -> {new.label}: {summary}", file=sys.stderr)
    return EXIT_NOT_CONFORMANT if options.fail_on and diff.fails(options.fail_on) else EXIT_CONFORMANT


def _document_diff(options: argparse.Namespace) -> int:
    if options.fail_on is not None:
        raise ConfigurationError("--fail-on classifies schema changes; it does not go with --document")
    old, new = Path(options.old), Path(options.new)
    spec = _spec_of_document(options.spec, old, new)
    texts = [_read(path) for path in (old, new)]
    with tempfile.TemporaryDirectory(prefix="ctxconform-collect-") as work:
        named, _ = collect_requirements([spec], Path(work))
    tests: dict[str, list[str]] = {}
    for test, ids in named.items():
        for rid in ids:
            tests.setdefault(rid, []).append(test)
    diff = diff_documents(spec.registry, texts[0], texts[1], labels=(str(old), str(new)), tests=tests)
    text = diff.model_dump_json(indent=2) + "\n" if options.format == "json" else render_document_markdown(diff)
    _write(options.output, text)
    summary = ", ".join(f"{count} {kind}" for kind, count in diff.counts.items())
    print(f"{old} -> {new}: {summary}; {len(diff.touched)} requirements touched", file=sys.stderr)
    return EXIT_CONFORMANT


def _spec_of_document(name: str | None, old: Path, new: Path) -> Spec:
    if name is not None:
        return resolve_specs([name])[0]
    chosen = [spec for spec in specs().values() if spec.registry.document in (old.name, new.name)]
    if len(chosen) != 1:
        raise ConfigurationError("spec-diff --document: name the spec the documents are versions of with --spec")
    return chosen[0]


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigurationError(f"cannot read the document {path}: {error}") from error


def _write(output: Path | None, text: str) -> None:
    if output is None:
        sys.stdout.write(text)
    else:
        write_atomically(report_dir(output.parent) / output.name, text)
