"""A real redis-server for tests: started on a free loopback port in a scratch folder, stopped within bounded time."""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

__all__ = ["RedisServer", "redis_server", "running_redis", "start_redis"]

START_SECONDS = 10.0
STOP_SECONDS = 5.0
INSTALL = "redis-server is not installed; install Debian's redis-server (apt-get install -y redis-server) to run these tests"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@dataclass
class RedisServer:
    """One redis-server process with an append-only file fsynced on every write, in `directory`."""

    directory: Path
    port: int = field(default_factory=_free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The URL a RedisStore opens to reach this server."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start the server (again, on the same folder and port) and wait until it answers PING."""
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail(INSTALL)
        args = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes"]
        args += ["--appendfsync", "always", "--dir", str(self.directory), "--daemonize", "no"]
        log = (self.directory / "redis.log").open("ab")
        self.process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + START_SECONDS
        while not _answers_ping(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"redis-server did not answer PING on port {self.port}; see {self.directory / 'redis.log'}")
            time.sleep(0.02)

    def stop(self) -> None:
        """Stop the server: SIGTERM, then SIGKILL if it has not exited within a few seconds."""
        if self.process is None:
            return
        self.resume()
        self.process.terminate()
        try:
            self.process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.kill()
        self.process = None

    def kill(self) -> None:
        """Kill the server with SIGKILL, as a crash would."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=STOP_SECONDS)
            self.process = None

    def pause(self) -> None:
        """Freeze the server (SIGSTOP): it keeps its connections but answers nothing."""
        if self.process is not None:
            self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """Let a frozen server run again."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)


def start_redis(directory: Path) -> RedisServer:
    """Start a redis-server in `directory` on a free port; the caller stops it."""
    directory.mkdir(parents=True, exist_ok=True)
    server = RedisServer(directory)
    server.start()
    return server


@contextlib.contextmanager
def running_redis(directory: Path) -> Iterator[RedisServer]:
    """A redis-server that runs for the duration of a with block."""
    server = start_redis(directory)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    """A redis-server shared by a test module, on tmpfs where there is one; tests keep apart by session id."""
    # Its fsyncs would otherwise dominate the concurrency tests; durability tests start their own on disk.
    base = "/dev/shm" if Path("/dev/shm").is_dir() else None  # noqa: S108 - a private mkdtemp folder, removed after
    with tempfile.TemporaryDirectory(dir=base) as folder, running_redis(Path(folder)) as server:
        yield server
