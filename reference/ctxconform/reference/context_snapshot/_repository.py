"""The Git repository blobs are stored in: written with `git hash-object -w`, read with `git cat-file --batch`.

A blob Git holds as a loose object needs no git process: its file is named by its id, so writing content the
repository holds already or checking that a blob is there costs one system call, and reading it one zlib inflate, where
starting git costs milliseconds. Anything else (a packed object, a file that does not read as the blob) is asked of git.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ctxconform.reference.context_snapshot._git import run_git
from ctxconform.reference.context_snapshot._objects import Algorithm, ObjectId, blob_id
from ctxconform.reference.exceptions import StoreError

__all__ = ["GitRepository", "Repositories"]


@dataclass(frozen=True)
class GitRepository:
    """One repository of one object format (SHA-1 or SHA-256)."""

    path: Path
    algorithm: Algorithm
    objects: Path | None = None  # where Git keeps loose objects; None: always ask git

    @classmethod
    def open(cls, path: Path, algorithm: Algorithm) -> GitRepository:
        """Open the repository at `path`; an empty or missing folder becomes a bare repository of that format."""
        if not _owns_repository(path):
            if path.exists() and any(path.iterdir()):
                raise StoreError(str(path), "not a Git repository and not empty; give a repository or an empty folder")
            path.mkdir(parents=True, exist_ok=True)
            run_git(path, "init", "--quiet", "--bare", f"--object-format={algorithm}", ".")
        answer = run_git(path, "rev-parse", "--absolute-git-dir", "--show-object-format").decode().strip()
        git_dir, _, actual = answer.rpartition("\n")
        if actual != algorithm:
            raise StoreError(str(path), f"the repository's object format is {actual}, not {algorithm}; give a {algorithm} one")
        return cls(path, algorithm, Path(git_dir) / "objects")

    def run(self, *args: str, stdin: bytes = b"", env: Mapping[str, str] | None = None) -> bytes:
        """Run a git command in this repository."""
        return run_git(self.path, *args, stdin=stdin, env=env)

    def object_id(self, content: bytes) -> ObjectId:
        """The id this repository gives a blob of `content`."""
        return blob_id(content, self.algorithm)

    def write_blob(self, content: bytes) -> ObjectId:
        """Store `content` as a blob (a no-op when Git already has it) and return its id."""
        if self._freshened(expected := blob_id(content, self.algorithm)):
            return expected
        written = self.run("hash-object", "-w", "--no-filters", "--stdin", stdin=content).decode().strip()
        if written != expected.hex:
            raise StoreError(str(self.path), f"git stored the blob as {written}, expected {expected.hex}")
        return expected

    def read_blob(self, oid: ObjectId) -> bytes | None:
        """The content of a blob, or None when the repository holds no blob with this id."""
        loose = self._loose_blob(oid)
        if loose is not None:
            return loose
        output = self.run("cat-file", "--batch", stdin=f"{oid.hex}\n".encode())
        header, _, rest = output.partition(b"\n")
        fields = header.split()
        if len(fields) != 3 or fields[1] != b"blob":  # noqa: PLR2004 - "<id> <type> <size>"
            return None
        return rest[: int(fields[2])]

    def missing(self, oids: Iterable[ObjectId]) -> list[ObjectId]:
        """Those of `oids` this repository does not hold as blobs."""
        wanted = [oid for oid in dict.fromkeys(oids) if not self._loose(oid)]
        if not wanted:
            return []
        output = self.run("cat-file", "--batch-check", stdin="".join(f"{o.hex}\n" for o in wanted).encode())
        lines = output.decode().splitlines()
        return [oid for oid, line in zip(wanted, lines, strict=True) if line.split()[1:2] != ["blob"]]

    def _loose_blob(self, oid: ObjectId) -> bytes | None:
        """The content of `oid` read from its loose object file; None when it is not one (git is asked then)."""
        path = self._loose_path(oid)
        if path is None:
            return None
        try:
            stored = zlib.decompress(path.read_bytes())
        except (OSError, zlib.error):
            return None
        header, nul, content = stored.partition(b"\0")
        return content if nul and header == b"blob %d" % len(content) else None

    def _freshened(self, oid: ObjectId) -> bool:
        """Whether `oid` is held loose, its file's time then set to now, as git does when asked to write it again.

        gc prunes an unreachable loose object by that time: a blob written again must count as written now.
        """
        path = self._loose_path(oid)
        if path is None:
            return False
        try:
            os.utime(path)
        except OSError:  # not there (or not ours to touch): git writes it, or says why it cannot
            return False
        return True

    def _loose(self, oid: ObjectId) -> bool:
        """Whether Git holds `oid` as a loose object (its id names a blob: the hash covers the type)."""
        path = self._loose_path(oid)
        return path is not None and path.is_file()

    def _loose_path(self, oid: ObjectId) -> Path | None:
        """Where Git keeps `oid` when it holds it loose; None when this repository's objects are not found by file."""
        if self.objects is None or oid.algorithm != self.algorithm:
            return None
        return self.objects / oid.hex[:2] / oid.hex[2:]


def _owns_repository(path: Path) -> bool:
    # A folder inside another repository's work tree must not be mistaken for that repository.
    if not path.is_dir():
        return False
    try:
        git_dir = Path(run_git(path, "rev-parse", "--absolute-git-dir").decode().strip())
    except StoreError:
        return False
    return git_dir.resolve() in (path.resolve(), (path / ".git").resolve())


@dataclass
class Repositories:
    """The repository of each object format, opened (and initialized if need be) on first use."""

    paths: Mapping[Algorithm, Path]
    opener: Callable[[Path, Algorithm], GitRepository] = GitRepository.open
    _opened: dict[Algorithm, GitRepository] = field(default_factory=dict)

    def __call__(self, algorithm: Algorithm) -> GitRepository:
        """The repository that stores blobs of `algorithm`."""
        if algorithm not in self._opened:
            self._opened[algorithm] = self.opener(self.paths[algorithm], algorithm)
        return self._opened[algorithm]
