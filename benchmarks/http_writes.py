"""The HTTP service under write load: 8 client processes writing one key of one session, SQLite synced (the default).

Every write is acknowledged only once it is on disk (synchronous=FULL), so this measures how many fsyncs the server
shares between concurrent writers: writes/s over the whole load, and each write's round trip, p50 and p99.
"""

from __future__ import annotations

import http.client
import json
import multiprocessing
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http import HTTPStatus

from measure import PYTHON, percentile, scratch

from ctxconform.conformance.report._bench import Figure, figure
from ctxconform.conformance.transports._shared_context_http import mint_token

SECTION = "shared-context over HTTP"
CLIENTS = 8
SECRET = "bench-secret"  # noqa: S105 - a throwaway secret shared with the server this module starts
GOAL_WRITES_PER_S = 2000.0
GOAL_P99_MS = 20.0


@dataclass(frozen=True)
class Target:
    """Where one session's tool calls go."""

    host: str
    port: int
    path: str

    def post(self, connection: http.client.HTTPConnection, participant: str, body: object) -> tuple[int, object]:
        """Send one call as `participant` on `connection`; return the status and the decoded reply."""
        headers = {"Authorization": f"Bearer {mint_token(SECRET, participant)}", "Content-Type": "application/json"}
        connection.request("POST", self.path, body=json.dumps(body), headers=headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read())


def client(target: Target, participant: str, count: int) -> list[float]:
    """Write the key `counter` `count` times over one kept-alive connection; return each round trip in seconds."""
    connection = http.client.HTTPConnection(target.host, target.port, timeout=60)
    latencies = []
    for n in range(count):
        started = time.perf_counter()
        status, reply = target.post(connection, participant, {"action": "write", "key": "counter", "value": f"{n}"})
        latencies.append(time.perf_counter() - started)
        if status != HTTPStatus.OK:
            raise RuntimeError(f"a write was refused: {status} {reply}")
    connection.close()
    return latencies


def warm() -> None:
    """Nothing: a first task that makes the pool's processes start before the clock does."""


@contextmanager
def serving() -> Iterator[Target]:
    """The reference HTTP server on a free port, its store a fresh synced SQLite file, with one session created."""
    folder = scratch()
    command = [PYTHON, "-m", "ctxconform.reference.shared_context.http", "--store", f"sqlite:///{folder}/bench.db"]
    process = subprocess.Popen(  # noqa: S603 - the kit's own server
        [*command, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "CTXCONFORM_TOKEN_SECRET": SECRET},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        if not line.startswith("listening on http://"):
            raise RuntimeError(f"the HTTP server did not start: {line!r}")
        host, _, port = line.removeprefix("listening on http://").rpartition(":")
        target = Target(host, int(port), "/sessions/bench/shared_context")
        connection = http.client.HTTPConnection(host, int(port), timeout=60)
        headers = {"Authorization": f"Bearer {mint_token(SECRET, 'system')}"}
        connection.request("POST", "/create_session", body=json.dumps({"session_id": "bench"}), headers=headers)
        connection.getresponse().read()
        connection.close()
        yield target
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


def one_run(writes: int) -> tuple[float, list[float]]:
    """Writes per second and every write's round trip (s) of one load: CLIENTS processes x `writes` writes."""
    with serving() as target, multiprocessing.get_context("spawn").Pool(CLIENTS) as pool:
        pool.starmap(warm, [()] * CLIENTS)
        jobs = [(target, f"subagent:w{n}", writes) for n in range(CLIENTS)]
        started = time.perf_counter()
        latencies = [s for run in pool.starmap(client, jobs) for s in run]
        elapsed = time.perf_counter() - started
        with _connection(target) as connection:
            status, reply = target.post(connection, "orchestrator", {"action": "read", "key": "counter"})
    version = reply["result"]["version"] if status == HTTPStatus.OK and isinstance(reply, dict) else None
    if version != CLIENTS * writes:
        raise RuntimeError(f"{CLIENTS} x {writes} writes ended at version {version}: writes were lost")
    return len(latencies) / elapsed, latencies


@contextmanager
def _connection(target: Target) -> Iterator[http.client.HTTPConnection]:
    connection = http.client.HTTPConnection(target.host, target.port, timeout=60)
    try:
        yield connection
    finally:
        connection.close()


def figures(rounds: int, writes: int) -> list[Figure]:
    """Writes/s, p50 and p99 (ms) of CLIENTS writers on one session, each the median over `rounds` loads."""
    rates, p50s, p99s = [], [], []
    for _ in range(rounds):
        rate, latencies = one_run(writes)
        rates.append(rate)
        p50s.append(percentile(latencies, 50) * 1e3)
        p99s.append(percentile(latencies, 99) * 1e3)
    note = f"{CLIENTS} client processes, one key, synchronous=FULL: each acknowledged write is on disk"
    throughput = figure(SECTION, f"{CLIENTS} writers writes/s", "writes/s", rates, note=note)
    p99 = figure(SECTION, f"{CLIENTS} writers write p99", "ms", p99s)
    return [
        throughput.model_copy(
            update={"goal": f">= {GOAL_WRITES_PER_S:g} writes/s", "goal_met": throughput.median >= GOAL_WRITES_PER_S}
        ),
        figure(SECTION, f"{CLIENTS} writers write p50", "ms", p50s),
        p99.model_copy(update={"goal": f"<= {GOAL_P99_MS:g} ms", "goal_met": p99.median <= GOAL_P99_MS}),
    ]
