"""The `ctxconform` command."""

from __future__ import annotations

from ctxconform.conformance.cli._main import main

__all__ = ["main"]
