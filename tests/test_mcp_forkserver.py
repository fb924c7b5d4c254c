"""The MCP reference's fork server: later servers on a state directory forked with their launcher's streams and setting."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

from ctxconform.conformance import connect, parse_adapter
from ctxconform.reference.mcp._forkserver import SOCKET_NAME, SWITCH
from ctxconform.reference.mcp._handover import LARGEST_REQUEST, decode_request, encode_request

TOY = Path(__file__).with_name("forkserver_toy.py")
SC = "shared-context"
pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or not hasattr(socket, "send_fds"), reason="POSIX only")
Json = dict[str, Any]


@contextmanager
def toy(state: Path, who: str, *args: str, cwd: Path | None = None, **env: str) -> Iterator[subprocess.Popen[str]]:
    """A toy server started on the state directory `state`, as `who`; killed if the test leaves it running."""
    environ = {**os.environ, "CTXCONFORM_STATE_DIR": str(state), "WHO": who, **env}
    process = subprocess.Popen(
        [sys.executable, str(TOY), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=environ, cwd=cwd
    )
    try:
        yield process
    finally:
        process.kill()
        process.wait()


@pytest.fixture
def state() -> Iterator[Path]:
    """A state directory with a short path: a socket's path has at most about 100 bytes, and pytest's can be longer."""
    folder = Path(tempfile.mkdtemp(prefix="ctxconform-fs-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def start(state: Path) -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """Start toy servers on the test's state directory: `start(who, *args, cwd=..., **env)`; all killed at the end."""
    with ExitStack() as stack:
        yield lambda who, *args, cwd=None, **env: stack.enter_context(toy(state, who, *args, cwd=cwd, **env))


Start = Callable[..., subprocess.Popen[str]]


def facts(process: subprocess.Popen[str]) -> Json:
    """The line a toy server prints when it starts."""
    assert process.stdout is not None
    line: Json = json.loads(process.stdout.readline())
    return line


def finish(process: subprocess.Popen[str]) -> int:
    """Close a toy server's stdin and return its exit status."""
    assert process.stdin is not None
    process.stdin.close()
    return process.wait(timeout=10)


def gone(pid: int, seconds: float = 10) -> bool:
    """Whether a process has ended within `seconds` (a zombie counts as ended)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return True
            os.kill(pid, 0)
        except (ProcessLookupError, FileNotFoundError):
            return True
        time.sleep(0.05)
    return False


def closed_unanswered(connection: socket.socket) -> bool:
    """Whether the fork server closed a connection without a word (a reset, when it left bytes unread)."""
    try:
        return connection.recv(1) == b""
    except ConnectionResetError:
        return True


def listening(state: Path) -> bool:
    """Whether a fork server listens on the state directory."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(state / SOCKET_NAME))
        except OSError:
            return False
    return True


def test_a_later_server_is_forked_with_its_launchers_streams_arguments_folder_and_environment(state: Path, start: Start) -> None:
    """The second server on a state directory runs in a fork of the fork server, as its launcher would have run."""
    elsewhere = state / "elsewhere"
    elsewhere.mkdir()
    first = start("first")
    assert facts(first)["pid"] == first.pid  # nothing listened yet: the first server runs in its own process
    second = start("second", "7", cwd=elsewhere)
    second_facts = facts(second)
    assert second_facts["pid"] != second.pid
    assert second_facts["ppid"] not in (first.pid, second.pid)  # a child of the fork server
    assert (second_facts["who"], second_facts["argv"], second_facts["cwd"]) == ("second", ["7"], str(elsewhere))
    assert finish(second) == 7
    assert finish(first) == 0


def test_killing_a_launcher_ends_its_forked_server(start: Start) -> None:
    """A forked server does not outlive the launcher its client started."""
    facts(start("first"))
    second = start("second")
    forked = facts(second)["pid"]
    second.send_signal(signal.SIGKILL)
    assert gone(forked)


def test_a_sigterm_to_a_launcher_is_its_forked_servers_to_handle(start: Start) -> None:
    """A supervisor's SIGTERM to a launcher reaches the forked server, which ends as it chooses: the launcher's status."""
    facts(start("first"))
    second = start("second", TOY_ON_TERM="7")
    assert facts(second)["pid"] != second.pid
    second.send_signal(signal.SIGTERM)
    assert second.wait(timeout=10) == 7


def test_the_fork_server_ends_after_the_first_server_and_its_forks(state: Path, start: Start) -> None:
    """When every server has ended, the fork server stops listening and exits."""
    first = start("first")
    facts(first)
    second = start("second")
    fork_server = facts(second)["ppid"]
    assert finish(first) == 0
    assert listening(state)  # the second server still runs: a restart's first server could still come
    assert finish(second) == 0
    assert gone(fork_server)
    assert not (state / SOCKET_NAME).exists()


def test_a_restarted_first_server_is_forked_too(start: Start) -> None:
    """A server started just after the last one ended is forked: a restart pays no import."""
    first = start("first")
    facts(first)
    finish(first)
    again = start("again")
    assert facts(again)["pid"] != again.pid
    assert finish(again) == 0


def test_a_stale_socket_is_replaced_by_a_live_fork_server(state: Path, start: Start) -> None:
    """A socket left by a killed fork server means an ordinary start, which serves forks again."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as stale:
        stale.bind(str(state / SOCKET_NAME))
    first = start("first")
    assert facts(first)["pid"] == first.pid
    assert listening(state)


def test_the_switch_turns_the_fork_server_off(state: Path, start: Start) -> None:
    """With CTXCONFORM_FORKSERVER=0 every server starts in its own process."""
    first = start("first", **{SWITCH: "0"})
    assert facts(first)["pid"] == first.pid
    second = start("second", **{SWITCH: "0"})
    assert facts(second)["pid"] == second.pid
    assert not (state / SOCKET_NAME).exists()


@pytest.mark.parametrize(
    "sent",
    [b"", b"\x00\x00\x00\x05junk!", b"\xff\xff\xff\xff", b"\x00\x00\x00\x02{}"],
    ids=["nothing", "not-json", "too-large", "no-fields"],
)
def test_a_connection_that_is_not_a_launcher_starts_nothing_and_harms_nothing(state: Path, start: Start, sent: bytes) -> None:
    """The fork server drops what is not a launcher's hand-over, and serves the next launcher."""
    facts(start("first"))
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as stranger:
        stranger.settimeout(10)
        stranger.connect(str(state / SOCKET_NAME))
        stranger.sendall(sent)
        stranger.shutdown(socket.SHUT_WR)
        assert closed_unanswered(stranger)
    second = start("second")
    assert facts(second)["pid"] != second.pid


def test_a_hand_over_from_another_interpreter_is_refused(state: Path, start: Start) -> None:
    """A request naming another Python is not served: its launcher starts on its own."""
    facts(start("first"))
    request = encode_request("/elsewhere/python", [], {}, "/")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as stranger:
        stranger.settimeout(10)
        stranger.connect(str(state / SOCKET_NAME))
        socket.send_fds(stranger, [len(request).to_bytes(4, "big")], [0, 1, 2])
        stranger.sendall(request)
        assert closed_unanswered(stranger)


def test_a_request_carries_arguments_environment_and_folder_byte_for_byte() -> None:
    """Empty and '=' arguments, undecodable bytes (as surrogates) and values holding '=' come back as they were sent."""
    argv = ["", "--session=a=b", "caf\udcc3", "two words"]
    env = {"EMPTY": "", "EQUALS": "a=b=c", "RAW": "\udcff\udcfe", "PATH": "/bin"}
    decoded = decode_request(encode_request(sys.executable, argv, env, "/some/where\udcc3"))
    assert decoded is not None
    assert (decoded["executable"], decoded["cwd"], decoded["argv"], decoded["env"]) == (
        sys.executable,
        "/some/where\udcc3",
        argv,
        env,
    )


@pytest.mark.parametrize(
    ("argv", "env"), [(["a\0b"], {}), ([], {"A": "x\0y"}), ([], {"A": "x" * LARGEST_REQUEST})], ids=["nul-arg", "nul-env", "huge"]
)
def test_a_request_that_cannot_be_carried_is_refused_before_it_is_sent(argv: list[str], env: dict[str, str]) -> None:
    """A NUL in a field, or a request over the limit: ValueError, so the launcher starts the server itself."""
    with pytest.raises(ValueError, match=r"hand-over|environment"):
        encode_request(sys.executable, argv, env, "/")


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\0\0\0",
        encode_request("/elsewhere/python", [], {}, "/"),
        encode_request(sys.executable, [], {}, "/").replace(b"\x000", b"\x00x"),
        encode_request(sys.executable, ["a"], {}, "/").replace(b"\x001\x00", b"\x009\x00"),
        encode_request(sys.executable, [], {"A": "1"}, "/") + b"\0no-equals-sign",
        encode_request(sys.executable, [], {"A": "1"}, "/") + b"\0=nameless",
    ],
    ids=["empty", "blank", "other-python", "count-not-a-number", "count-too-large", "variable-without-equals", "nameless"],
)
def test_a_malformed_request_decodes_to_nothing(data: bytes) -> None:
    """Whatever is not a launcher's request of this interpreter and module decodes to None: nothing is started."""
    assert decode_request(data) is None


def test_every_process_of_an_mcp_run_is_gone_after_it_stops(state: Path) -> None:
    """Over mcp+stdio with participants, stopping ends the launchers, the forked servers and the fork server."""
    implementation = connect(parse_adapter(f"mcp+stdio:{sys.executable} -m ctxconform.reference.mcp"), state, timeout=30)
    implementation.start()
    implementation.call(SC, "create_session", {"session_id": "s1"}, {"participant": "system"})
    written = [
        implementation.call(
            SC, "shared_context", {"action": "write", "key": "k", "value": p}, {"session_id": "s1", "participant": p}
        )
        for p in ("a", "b")
    ]
    assert listening(state)
    servers = run_servers(state)
    implementation.stop()
    assert [reply.result["written_by"] for reply in written if reply.result] == ["a", "b"]
    assert len(servers) >= 5
    assert all(gone(pid) for pid in servers)


def run_servers(state: Path) -> list[int]:
    """The processes started with this state directory in their environment (Linux: read from /proc)."""
    marker = f"CTXCONFORM_STATE_DIR={state}".encode()
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and marker in (proc / "environ").read_bytes().split(b"\0"):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def test_a_forked_first_server_after_a_restart_works_on_its_own_state_directory(
    state: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server the fork server built ahead serves the launcher's configuration: content-provider opens its store there."""
    monkeypatch.chdir(tmp_path)  # where a server still on the placeholders would open it
    implementation = connect(parse_adapter(f"mcp+stdio:{sys.executable} -m ctxconform.reference.mcp"), state, timeout=30)
    implementation.start()
    implementation.restart()  # the restarted first server is a fork, its server built ahead with placeholders
    reply = implementation.call("content-provider", "create_provider", {"executionId": "e1"})
    implementation.stop()
    assert reply.error is None, reply.error
    assert (state / "content-provider.sqlite3").exists()
    assert not (tmp_path / "content-provider.sqlite3").exists()
