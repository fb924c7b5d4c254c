"""Load for the reference's HTTP server, run in worker processes: timed writes through one persistent connection."""

from __future__ import annotations

import http.client
import json
import random
import time
from dataclasses import dataclass
from pathlib import Path

from ctxconform.conformance.transports._shared_context_http import mint_token


@dataclass(frozen=True)
class Target:
    """Where the tool calls of one session go, and the secret that signs the callers' tokens."""

    host: str
    port: int
    secret: str
    path: str

    def connect(self, participant: str, timeout: float) -> tuple[http.client.HTTPConnection, dict[str, str]]:
        """Open a connection, and the headers that make its calls `participant`'s."""
        headers = {"Authorization": f"Bearer {mint_token(self.secret, participant)}", "Content-Type": "application/json"}
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout), headers


def timed_writes(target: Target, key: str, count: int, participant: str) -> list[float]:
    """Write `key` `count` times as `participant`; return each acknowledged write's latency in seconds."""
    connection, headers = target.connect(participant, 30)
    latencies = []
    for n in range(count):
        body = json.dumps({"action": "write", "key": key, "value": f"{participant} {n}"})
        started = time.perf_counter()
        connection.request("POST", target.path, body=body, headers=headers)
        response = connection.getresponse()
        reply = json.loads(response.read())
        assert response.status == 200, reply
        latencies.append(time.perf_counter() - started)
    connection.close()
    return latencies


def acknowledged_writes(target: Target, log: Path, deadline_s: float) -> None:
    """Write fresh keys until the server goes away (or the deadline), recording each acknowledged key and version."""
    connection, headers = target.connect("subagent:writer", 5)
    stop = time.monotonic() + deadline_s
    with log.open("a", encoding="utf-8") as acks:
        for n in range(100_000):
            if time.monotonic() > stop:
                return
            body = json.dumps({"action": "write", "key": f"k{n}", "value": str(n)})
            try:
                connection.request("POST", target.path, body=body, headers=headers)
                reply = json.loads(connection.getresponse().read())
            except (OSError, http.client.HTTPException, ValueError):
                return  # the server was killed: what was acknowledged is in the log
            acks.write(f"k{n} {reply['result']['version']}\n")
            acks.flush()


def filling_writes(target: Target, seed: int, count: int) -> int:
    """Write large values to a few shared keys as participant `w<seed>`; return how many were refused with STORE_FULL."""
    connection, headers = target.connect(f"subagent:w{seed}", 30)
    draw, refused = random.Random(seed), 0  # noqa: S311 - reproducible test data
    for _ in range(count):
        body = json.dumps({"action": "write", "key": f"k{draw.randrange(24)}", "value": "z" * draw.randrange(1600, 4000)})
        connection.request("POST", target.path, body=body, headers=headers)
        response = connection.getresponse()
        reply = json.loads(response.read())
        if response.status != 200:
            assert reply["error"]["code"] == "STORE_FULL", reply
            refused += 1
    connection.close()
    return refused
