"""Serve the reference over the stdio transport: one JSON message per line on stdin, one reply per line on stdout.

Run it as ``python -m ctxconform.reference.stdio [--store URL]``. It is also the worked example for
adapter authors: read a line, parse it, answer it, flush, until a ``stop`` message or end of input.
``--factory MODULE:ATTR`` serves another implementation with the same ``handle(message)`` (a ``python:`` adapter's
factory) over stdio instead.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable
from typing import Any, Protocol, TextIO

from ctxconform.reference._implementation import Reference
from ctxconform.reference._logging import log_to_stderr

__all__ = ["MessageHandler", "main", "serve"]


class MessageHandler(Protocol):
    """What stdio serves: an object answering one protocol message at a time."""

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        """Answer one protocol message."""


def serve(reference: MessageHandler, lines: TextIO, out: TextIO) -> None:
    """Answer protocol messages from `lines` on `out` until stop or end of input."""
    for line in lines:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
            reply = reference.handle(message)
        except (ValueError, RecursionError, KeyError, TypeError, AttributeError) as error:
            # Not a protocol message: there is no seq to answer, so say so on stderr and keep serving.
            sys.stderr.write(f"ctxconform reference: ignored a line that is not a protocol message ({type(error).__name__})\n")
            continue
        out.write(json.dumps(reply, separators=(",", ":")) + "\n")  # ASCII escapes: a lone surrogate in a reply stays writable
        out.flush()
        if reply.get("type") == "stopped":
            return
    close = getattr(reference, "close", None)
    if callable(close):
        close()


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and serve on stdin/stdout."""
    parser = argparse.ArgumentParser(prog="python -m ctxconform.reference.stdio", description=__doc__)
    parser.add_argument("--store", help="store URL for shared-context (default: SQLite in the harness's state_dir)")
    parser.add_argument("--factory", metavar="MODULE:ATTR", help="serve this implementation instead of the reference")
    options = parser.parse_args(argv)
    log_to_stderr()
    serve(_factory(options.factory)() if options.factory else Reference(store_url=options.store), sys.stdin, sys.stdout)
    return 0


def _factory(target: str) -> Callable[[], MessageHandler]:
    module, _, attribute = target.partition(":")
    found: Callable[[], MessageHandler] = getattr(importlib.import_module(module), attribute)
    return found


if __name__ == "__main__":
    raise SystemExit(main())
