"""The adapter protocol around one spec's operations: what every twin shares, and nothing of the reference."""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

Json = dict[str, Any]


class Refusal(Exception):
    """A spec-defined error: its code and message go back as the reply's `error`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class Twin:
    """One spec behind the adapter protocol; a subclass names the spec and carries out its operations."""

    spec: ClassVar[str] = ""
    version: ClassVar[str] = ""
    features: ClassVar[tuple[str, ...]] = ()
    name: ClassVar[str] = "ctxconform-twin"

    def open(self, state_dir: Path, options: Json) -> None:
        """Set up for a run: `options` are the spec's start options."""

    def call(self, op: str, args: Any, context: Json) -> Json:
        """Carry out one operation; raise Refusal to refuse it."""
        raise NotImplementedError

    def close(self) -> None:
        """Release what the twin holds."""

    def handle(self, message: Json) -> Json:
        """Answer one protocol message."""
        kind = message.get("type")
        if kind == "start":
            self.open(Path(message["state_dir"]), (message.get("options") or {}).get(self.spec) or {})
            return {
                "type": "started",
                "implementation": {"name": f"{self.name}:{self.spec}", "version": "0.1.0", "language": "python"},
                "specs": {self.spec: {"version": self.version, "features": list(self.features)}},
            }
        if kind == "call":
            seq = message["seq"]
            try:
                return {
                    "type": "reply",
                    "seq": seq,
                    "result": self.call(message["op"], message["args"], message.get("context") or {}),
                }
            except Refusal as refusal:
                return {"type": "reply", "seq": seq, "error": {"code": refusal.code, "message": refusal.message}}
            except Exception as error:
                return {"type": "reply", "seq": seq, "errored": {"message": str(error), "traceback": traceback.format_exc()}}
        self.close()
        return {"type": "stopped"}


@dataclass(frozen=True)
class Liberty:
    """One liberty a twin takes: what it does differently, and the spec sentence (or registry reading) allowing it."""

    what: str
    allowed_by: str
