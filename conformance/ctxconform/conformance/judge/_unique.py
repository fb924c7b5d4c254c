"""Unique names for what the suites create: fresh in every test, and the same again when a run is replayed with its seed."""

from __future__ import annotations

import random
import uuid

__all__ = ["reseed", "unique_hex", "unique_uuid"]

# One stream for the test being run; the plugin reseeds it before each test.
_stream = random.Random()  # noqa: S311 - names, not secrets


def reseed(seed: int | str | None, test: str) -> None:
    """Start the stream of one test from the run's seed and the test's id (from the system's entropy without a seed)."""
    _stream.seed(None if seed is None else f"{seed}:{test}")


def unique_hex(digits: int = 32) -> str:
    """Return `digits` random lowercase hexadecimal digits."""
    return f"{_stream.getrandbits(4 * digits):0{digits}x}"


def unique_uuid() -> uuid.UUID:
    """Return a random (version 4) UUID."""
    return uuid.UUID(int=_stream.getrandbits(128), version=4)
