"""Opening a workspace or tastes file for reading only when it is a regular file, without ever blocking.

A plain open() of a FIFO waits for a writer, and a device can stream forever: the type is checked on the open
descriptor (so a swap between check and read cannot fool it), and the open itself never waits.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO, Final

__all__ = ["open_regular"]

_FLAGS: Final = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)


def open_regular(path: os.PathLike[str] | str) -> BinaryIO | None:
    """Return the file opened for binary reading, or None when it is missing, unreadable or not a regular file."""
    try:
        descriptor = os.open(path, _FLAGS)
    except (OSError, ValueError):  # ValueError: a name no file system can hold (a NUL, a lone surrogate)
        return None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            os.close(descriptor)
            return None
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except OSError:
        os.close(descriptor)
        return None
