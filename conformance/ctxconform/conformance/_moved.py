"""Modules that moved when the harness was grouped into wings: importing an old path says where it went."""

from __future__ import annotations

import importlib.abc
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Final

__all__ = ["MOVED", "install"]

_OLD: Final = "ctxconform.conformance."
MOVED: Final = {
    "_adapters": "transports._adapters",
    "_badge": "report._badge",
    "_baseline": "report._baseline",
    "_bench": "report._bench",
    "_checks": "judge._checks",
    "_cli": "cli",
    "_client": "testing._client",
    "_clip": "judge._clip",
    "_ctrf": "report._ctrf",
    "_data": "judge._data",
    "_golden": "testing._golden",
    "_html": "report._html",
    "_http": "transports._shared_context_http",
    "_implementation": "transports._implementation",
    "_inprocess": "transports._inprocess",
    "_judgement": "judge._judgement",
    "_junit": "report._junit",
    "_ledger": "judge._ledger",
    "_lines": "transports._lines",
    "_markdown": "report._markdown",
    "_mcp": "transports._mcp",
    "_mcp_http": "transports._mcp_http",
    "_mutation": "run._mutation",
    "_plugin": "run._plugin",
    "_profiles": "run._profiles",
    "_protocol": "transports._protocol",
    "_registry": "judge._registry",
    "_report": "report._model",
    "_requirement_ids": "judge._requirement_ids",
    "_results": "judge._results",
    "_runner": "run._runner",
    "_schemas": "judge._schemas",
    "_served": "transports._served",
    "_specdiff": "specdiff",
    "_specs": "judge._specs",
    "_stdio": "transports._stdio",
    "_transport": "transports._transport",
    "_unique": "judge._unique",
    "_verdicts": "judge._verdicts",
}


class _MovedFinder(importlib.abc.MetaPathFinder):
    """Refuses an old module path with the new one in the message."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None) -> ModuleSpec | None:
        """Raise for a moved module; leave every other import alone."""
        del path, target
        moved = MOVED.get(fullname.removeprefix(_OLD)) if fullname.startswith(_OLD) else None
        if moved is None:
            return None
        raise ModuleNotFoundError(f"{fullname} moved: import {_OLD}{moved} (the public API is {_OLD}testing)", name=fullname)


def install() -> None:
    """Put the finder on the import path, once."""
    if not any(isinstance(finder, _MovedFinder) for finder in sys.meta_path):
        sys.meta_path.append(_MovedFinder())
