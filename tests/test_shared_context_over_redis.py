"""The whole shared-context suite against the reference on its Redis store, through the stdio transport."""

from __future__ import annotations

import sys
from pathlib import Path

from helpers import Cli, load_report
from redis_server import RedisServer, redis_server

__all__ = ["redis_server"]  # the fixture, imported so pytest finds it here


def test_the_suite_passes_against_the_reference_on_redis(redis_server: RedisServer, tmp_path: Path) -> None:
    """Every shared-context test passes with the store in a real redis-server, restarts included."""
    adapter = f"stdio:{sys.executable} -m ctxconform.reference.stdio --store {redis_server.url}"
    done = Cli(tmp_path)(
        "run", "--adapter", adapter, "--spec", "shared-context", "--report-dir", "reports", "--seed", "1", "--quiet"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (implementation,) = load_report(tmp_path / "reports")["implementations"]
    assert implementation["status"] == "conformant"
    assert set(implementation["counts"]) == {"PASS"}
    assert implementation["counts"]["PASS"] > 300
