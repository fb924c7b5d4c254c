"""The servers' log: the shared-context audit lines (one JSON object each) on stderr."""

from __future__ import annotations

import logging
import sys

__all__ = ["log_to_stderr"]


def log_to_stderr() -> None:
    """Send the reference's INFO lines (each write and delete, never a value) to stderr, one message per line."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger = logging.getLogger("ctxconform.reference")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False  # a server framework's root handler would print every line twice
