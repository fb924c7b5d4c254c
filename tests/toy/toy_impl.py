"""Toy implementations of the toy-counter spec, for the kit's proof that its core knows no spec."""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]


class Counters:
    """A correct toy-counter implementation, without the optional reset feature."""

    features: tuple[str, ...] = ()
    step = 1

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def handle(self, message: Json) -> Json:
        """Answer one protocol message."""
        if message["type"] == "start":
            info = {"name": type(self).__name__, "version": "1", "language": "python"}
            return {
                "type": "started",
                "implementation": info,
                "specs": {"toy-counter": {"version": "1", "features": list(self.features)}},
            }
        if message["type"] == "stop":
            return {"type": "stopped"}
        return {"type": "reply", "seq": message["seq"], **self.call(message["op"], message["args"])}

    def call(self, op: str, args: Json) -> Json:
        """Carry out one operation."""
        name = args.get("name")
        if op == "increment":
            self.counts[name] = self.counts.get(name, 0) + self.step
        elif op == "reset" and "reset" in self.features:
            self.counts[name] = 0
        elif op != "read":
            return {"error": {"code": "UNKNOWN_OP", "message": op}}
        if name not in self.counts:
            return {"error": {"code": "UNKNOWN_COUNTER", "message": f"no counter {name}"}}
        return {"result": {"name": name, "count": self.counts[name]}}


class CountersWithReset(Counters):
    """A correct implementation that declares and offers reset."""

    features = ("reset",)


class CountersByTwo(Counters):
    """Broken: increment adds two."""

    step = 2


class CountersThatCrashOnRead(Counters):
    """Broken: read raises (an ERRORED reply)."""

    def call(self, op: str, args: Json) -> Json:
        """Raise on read."""
        if op == "read":
            raise RuntimeError("read is broken")
        return super().call(op, args)
