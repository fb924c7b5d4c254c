"""The `ctxconform` command: each subcommand from its own module, added from one table."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Final

from ctxconform.conformance.cli import _hostile, _init, _mutants, _report, _run, _specdiff, _specs
from ctxconform.conformance.cli._common import EXIT_USAGE, kit_version
from ctxconform.conformance.exceptions import ConfigurationError
from ctxconform.conformance.report._text import visible

__all__ = ["main"]

_COMMANDS: Final = (_run, _report, _mutants, _hostile, _specdiff, _specs, _init)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    parser = _parser()
    options = parser.parse_args(argv)
    try:
        return int(options.command(options))
    except ConfigurationError as error:
        # One line, control characters shown: the message may quote an implementation or its log.
        print(f"ctxconform: error: {visible(error.message)}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (`ctxconform specs | head`): nothing more to say, and nobody to say it to.
        sys.stdout = None
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("ctxconform: interrupted", file=sys.stderr)
        return EXIT_USAGE


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ctxconform", description="Conformance kit for agent-context specifications.")
    parser.add_argument("--version", action="version", version=f"ctxconform {kit_version()}")
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")
    for command in _COMMANDS:
        command.add_parser(commands)
    return parser
