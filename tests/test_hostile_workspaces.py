"""Hostile workspaces: FIFOs, sockets, devices and symlinks out of bounds read as unreadable files, and never hang."""

from __future__ import annotations

import contextlib
import os
import socket
import stat
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any

import pytest

from ctxconform.reference.read_context import ReadContext

WORKSPACE_FILES = ("brief.md", "notes.md", "log.jsonl", "vocabulary_gaps.jsonl")
EMPTY = {
    "tastes": {"default": "", "genres": {}, "conflicts": []},
    "brief": {"raw": "", "intent": "", "tastes": []},
    "notes": {"summary": "", "truncated": False},
    "recent_log": [],
    "recent_gaps": [],
}


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace root with one image, `img`, and an empty tastes folder."""
    (tmp_path / "ws" / "img").mkdir(parents=True)
    (tmp_path / "tastes").mkdir()
    return tmp_path / "ws", tmp_path / "tastes"


def bounded(call: Callable[[], Any], fifos: list[Path], seconds: float = 5.0) -> Any:
    """Run `call` in a thread; when it blocks past `seconds`, free it by opening its FIFOs for writing, then fail."""
    pool = ThreadPoolExecutor(max_workers=1)
    future = pool.submit(call)
    try:
        return future.result(timeout=seconds)
    except FutureTimeout:
        for fifo in fifos:
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail(f"read_context blocked on a FIFO for more than {seconds:g} s")
    finally:
        pool.shutdown(wait=False)


@contextlib.contextmanager
def unix_socket(path: Path) -> Iterator[None]:
    """A listening UNIX socket bound at `path` (short names only: sockaddr_un holds about 100 bytes)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(path))
        server.listen()
        yield


@pytest.mark.parametrize("name", WORKSPACE_FILES)
def test_a_fifo_in_the_workspace_reads_as_unreadable_without_blocking(folders: tuple[Path, Path], name: str) -> None:
    """A FIFO named like a workspace file gives that part's empty struct, at once."""
    root, tastes = folders
    fifo = root / "img" / name
    os.mkfifo(fifo)
    assert bounded(lambda: ReadContext(root, tastes).read_context("img"), [fifo]) == EMPTY


@pytest.mark.parametrize("name", ["_default.md", "genre.md"])
def test_a_fifo_in_the_tastes_folder_reads_as_missing_without_blocking(folders: tuple[Path, Path], name: str) -> None:
    """A FIFO as the default tastes or a declared genre is left out, at once."""
    root, tastes = folders
    (root / "img" / "brief.md").write_text("Tastes: genre\n")
    fifo = tastes / name
    os.mkfifo(fifo)
    result = bounded(lambda: ReadContext(root, tastes).read_context("img"), [fifo])
    assert result["tastes"] == {"default": "", "genres": {}, "conflicts": []}


def test_a_symlink_to_a_fifo_inside_the_workspace_does_not_block(folders: tuple[Path, Path]) -> None:
    """Following an in-bounds symlink still checks the file type before reading."""
    root, tastes = folders
    fifo = root / "img" / "pipe"
    os.mkfifo(fifo)
    (root / "img" / "notes.md").symlink_to(fifo)
    assert bounded(lambda: ReadContext(root, tastes).read_context("img"), [fifo]) == EMPTY


def test_sockets_read_as_unreadable(folders: tuple[Path, Path]) -> None:
    """A UNIX socket named like a workspace or tastes file is unreadable, never an error."""
    root, tastes = folders
    (root / "img" / "brief.md").write_text("Tastes: g\n")
    with contextlib.ExitStack() as stack:
        for folder, name in ((root / "img", "notes.md"), (root / "img", "log.jsonl"), (tastes, "g.md")):
            stack.enter_context(contextlib.chdir(folder))
            stack.enter_context(unix_socket(Path(name)))
        result = ReadContext(root, tastes).read_context("img")
    assert result["notes"] == EMPTY["notes"]
    assert result["recent_log"] == []
    assert result["tastes"]["genres"] == {}


def test_a_device_file_reads_as_unreadable(folders: tuple[Path, Path]) -> None:
    """A character device (a /dev/zero twin: endless bytes) as brief.md reads as the empty brief."""
    root, tastes = folders
    try:
        os.mknod(root / "img" / "brief.md", stat.S_IFCHR | 0o600, os.makedev(1, 5))
    except (PermissionError, OSError) as error:
        pytest.skip(f"cannot create a device file here: {error}")
    assert bounded(lambda: ReadContext(root, tastes).read_context("img"), []) == EMPTY


def test_symlinks_out_of_the_tastes_folder_are_not_followed(folders: tuple[Path, Path], tmp_path: Path) -> None:
    """A taste file that is a symlink to a file outside the tastes folder reads as missing."""
    root, tastes = folders
    secret = tmp_path / "secret.md"
    secret.write_text("a secret outside the tastes folder\n")
    (tastes / "_default.md").symlink_to(secret)
    (tastes / "leak.md").symlink_to(secret)
    (root / "img" / "brief.md").write_text("Tastes: leak\n")
    result = ReadContext(root, tastes).read_context("img")
    assert result["tastes"] == {"default": "", "genres": {}, "conflicts": []}


def test_symlinks_out_of_the_workspace_are_not_followed(folders: tuple[Path, Path], tmp_path: Path) -> None:
    """A workspace file that is a symlink to a file outside the workspace reads as missing."""
    root, tastes = folders
    secret = tmp_path / "secret.md"
    secret.write_text("a secret outside the workspace\n")
    for name in WORKSPACE_FILES:
        (root / "img" / name).symlink_to(secret)
    assert ReadContext(root, tastes).read_context("img") == EMPTY
