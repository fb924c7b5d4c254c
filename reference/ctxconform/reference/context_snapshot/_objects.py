"""Git object ids: what Git computes over `blob <size>`, a NUL byte and the content; in hex or the origin's tagged form."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Final, Literal

__all__ = ["ALGORITHMS", "Algorithm", "ObjectId", "blob_id"]

Algorithm = Literal["sha1", "sha256"]
ALGORITHMS: Final[tuple[Algorithm, ...]] = ("sha1", "sha256")
_SIZES: Final[dict[Algorithm, int]] = {"sha1": 20, "sha256": 32}
_TAGS: Final[dict[str, Algorithm]] = {"Sha1": "sha1", "Sha256": "sha256"}
_HEX: Final = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


@dataclass(frozen=True)
class ObjectId:
    """A Git object id: the hash algorithm and the digest's bytes."""

    algorithm: Algorithm
    digest: bytes

    @property
    def hex(self) -> str:
        """The id as Git prints it: lowercase hex."""
        return self.digest.hex()

    def tagged(self) -> dict[str, list[int]]:
        """The origin crate's form: {"Sha1": [20 integers]} or {"Sha256": [32 integers]}."""
        tag = next(name for name, algorithm in _TAGS.items() if algorithm == self.algorithm)
        return {tag: list(self.digest)}

    @classmethod
    def parse(cls, value: object) -> ObjectId:
        """Read an id in hex (40 digits: SHA-1, 64: SHA-256) or in the tagged form; raise ValueError otherwise."""
        if isinstance(value, str) and _HEX.fullmatch(value):
            return cls("sha1" if len(value) == 40 else "sha256", bytes.fromhex(value))  # noqa: PLR2004 - SHA-1 hex length
        if isinstance(value, dict) and len(value) == 1:
            ((tag, numbers),) = value.items()
            algorithm = _TAGS.get(tag)
            if algorithm is not None and _is_bytes(numbers, _SIZES[algorithm]):
                return cls(algorithm, bytes(numbers))
        raise ValueError('a blob id is 40 or 64 lowercase hex digits, or {"Sha1": [20 bytes]} / {"Sha256": [32 bytes]}')


def _is_bytes(numbers: object, size: int) -> bool:
    if not isinstance(numbers, list) or len(numbers) != size:
        return False
    return all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 255 for n in numbers)  # noqa: PLR2004 - a byte


def blob_id(content: bytes, algorithm: Algorithm = "sha1") -> ObjectId:
    """Return the id Git gives a blob of `content`: the hash of `blob <size>`, a NUL byte, then the content."""
    digest = hashlib.new(algorithm, b"blob %d\0" % len(content), usedforsecurity=False)
    digest.update(content)
    return ObjectId(algorithm, digest.digest())
