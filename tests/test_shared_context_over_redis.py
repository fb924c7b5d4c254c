"""The whole shared-context suite against the reference on its Redis store: in-process and over HTTP (MCP: test_mcp_http)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from helpers import Cli, load_report
from redis_server import RedisServer, redis_server

__all__ = ["redis_server"]  # the fixture, imported so pytest finds it here

SERVER = f"{sys.executable} -m ctxconform.reference"


@pytest.mark.parametrize(
    ("adapter", "database"),
    [
        pytest.param("reference", 1, id="in-process"),
        # Slow: the HTTP layer's whole suite runs on SQLite in the default session (test_http_transport).
        pytest.param(f"http+serve:{SERVER}.http --store {{url}} --port 0", 3, id="http", marks=pytest.mark.slow),
    ],
)
def test_the_suite_passes_against_the_reference_on_redis(
    adapter: str, database: int, redis_server: RedisServer, tmp_path: Path
) -> None:
    """Every shared-context test passes with the store in a real redis-server, restarts included."""
    url = f"{redis_server.url.rsplit('/', 1)[0]}/{database}"  # a database of its own per transport
    arguments = ("--adapter", adapter.format(url=url), "--spec", "shared-context", "--report-dir", "reports", "--seed", "1")
    done = Cli(tmp_path)("run", *arguments, "--quiet", env={"CTXCONFORM_STORE": url})
    assert done.returncode == 0, done.stdout + done.stderr
    (implementation,) = load_report(tmp_path / "reports")["implementations"]
    assert implementation["status"] == "conformant"
    assert set(implementation["counts"]) == {"PASS"}
    assert implementation["counts"]["PASS"] > 300
