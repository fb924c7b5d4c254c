"""The header of a WAL-mode SQLite file's wal-index (its `-shm` file): it changes with every commit of any connection.

Starting a read transaction only to ask SQLite for `PRAGMA data_version` takes file locks; reading the header
takes one `pread`. The header's layout is SQLite's documented wal-index format (two copies of a 48-byte header,
written on every commit, with a change counter, the last frame and checksums): equal bytes before and after
mean no commit completed in between. Anything unexpected (no file, a short read, copies that differ, a version
this module does not know) gives None, and the caller asks SQLite instead.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Final

__all__ = ["WalIndex"]

_HEADER: Final = 48
_VERSION: Final = (3007000).to_bytes(4, sys.byteorder)  # iVersion, in the machine's byte order as SQLite keeps it
_IS_INIT: Final = 12  # offset of the byte SQLite sets once the header is written


class WalIndex:
    """A database's `-shm` file, opened at the first `mark`, read without locks to tell whether anyone has committed."""

    def __init__(self, database: Path) -> None:
        self._path = f"{database}-shm"
        self._fd: int | None = None
        self._closed = not hasattr(os, "pread")  # not a POSIX system: every check asks SQLite

    def mark(self) -> bytes | None:
        """The header as it is now (changed by every commit), or None when it cannot be read as SQLite writes it."""
        fd = self._fd if self._fd is not None else self._open()
        if fd is None:
            return None
        try:
            both = os.pread(fd, 2 * _HEADER, 0)
        except OSError:
            return None
        first = both[:_HEADER]
        if len(both) != 2 * _HEADER or first != both[_HEADER:] or first[:4] != _VERSION or first[_IS_INIT] != 1:
            return None  # being written just now, not yet initialised, or a format this module does not know
        return first

    def close(self) -> None:
        """Close the file; `mark` gives None from now on."""
        self._closed = True
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _open(self) -> int | None:
        """Open the file, on the first try only (no wal-index, as with another VFS or a read-only folder: never)."""
        if self._closed:
            return None
        self._closed = True  # one try: a file that cannot be opened now is not looked for on every read
        try:
            self._fd = os.open(self._path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return None
        self._closed = False
        return self._fd
