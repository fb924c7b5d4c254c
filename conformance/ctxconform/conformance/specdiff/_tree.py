"""Reading one version of the specs, from a folder or a git ref: every spec's schema files and requirement registry."""

from __future__ import annotations

import io
import json
import subprocess
import tarfile
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from ctxconform.conformance.exceptions import ConfigurationError
from ctxconform.conformance.specdiff._model import SpecTree

__all__ = ["load_tree"]

_NOT_SPECS: Final = frozenset({"protocol", "report"})
# Where a version of the kit keeps its registries: beside each suite (`<suites>/<package>/registry.toml`), or, in
# earlier versions, one folder of `<spec>.toml` files.
_SUITES_FOLDER: Final = "conformance/ctxconform/conformance/suites"
_REGISTRY_FOLDERS: Final = ("requirements", "conformance/ctxconform/conformance/requirements", _SUITES_FOLDER)
_REGISTRY_FILE: Final = "registry.toml"
_GIVE: Final = (
    "give a folder holding schemas/ (a checkout of the kit) or a git ref of {repository} such as HEAD, HEAD~1, main or a sha"
)


def load_tree(text: str, *, repository: Path) -> SpecTree:
    """Read one version of the specs: an existing folder (it wins over a ref of the same name), else a git ref of `repository`."""
    if not text.strip():
        raise ConfigurationError(f"an empty spec source: {_GIVE.format(repository=repository)}")
    if Path(text).is_dir():
        return _tree(text, _folder_files(Path(text)))
    root = _git_root(text, repository)
    commit = _commit(text, root)
    return _tree(f"{text} ({commit[:12]})", _commit_files(text, commit, root))


def _folder_files(folder: Path) -> dict[str, bytes]:
    if not (folder / "schemas").is_dir():
        raise ConfigurationError(f"{folder} has no schemas/ folder: give a checkout of the kit, or a folder holding schemas/")
    registries = [p for root in _REGISTRY_FOLDERS for p in (folder / root).glob("*.toml")]
    registries += (folder / _SUITES_FOLDER).glob(f"*/{_REGISTRY_FILE}")
    paths = [*(folder / "schemas").rglob("*.json"), *registries]
    try:
        return {path.relative_to(folder).as_posix(): path.read_bytes() for path in paths if path.is_file()}
    except OSError as error:
        raise ConfigurationError(f"cannot read the specs in {folder}: {error}") from error


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(  # noqa: S603 - fixed program, arguments passed as a list
            ["git", "-C", str(root), *args],  # noqa: S607 - git is found on PATH like any git client
            capture_output=True,
            check=False,
        )
    except OSError as error:
        raise ConfigurationError(f"cannot run git to read a ref: {error}; give a folder instead") from error


def _git_root(text: str, repository: Path) -> Path:
    found = _git(repository, "rev-parse", "--show-toplevel")
    if found.returncode != 0:
        raise ConfigurationError(
            f"{text!r} is not a folder, and {repository} is not a git repository: {_GIVE.format(repository=repository)}"
        )
    return Path(found.stdout.decode().strip())


def _commit(text: str, root: Path) -> str:
    # A leading dash would be read as an option of git rev-parse, not as a ref.
    found = None if text.startswith("-") else _git(root, "rev-parse", "--verify", "--quiet", f"{text}^{{commit}}")
    if found is None or found.returncode != 0:
        raise ConfigurationError(f"{text!r} is neither a folder nor a git ref: {_GIVE.format(repository=root)}")
    return found.stdout.decode().strip()


def _commit_files(text: str, commit: str, root: Path) -> dict[str, bytes]:
    listed = _git(root, "ls-tree", "--name-only", commit, "--", "schemas", *_REGISTRY_FOLDERS).stdout.decode().splitlines()
    if "schemas" not in listed:
        raise ConfigurationError(f"{text!r} ({commit[:12]}) has no schemas/ folder: give a ref of a commit of the kit")
    suites = _git(root, "ls-tree", "-r", "--name-only", commit, "--", _SUITES_FOLDER).stdout.decode().splitlines()
    wanted = [path for path in listed if path != _SUITES_FOLDER] + [p for p in suites if p.endswith(f"/{_REGISTRY_FILE}")]
    archive = _git(root, "archive", "--format=tar", commit, "--", *wanted)
    if archive.returncode != 0:
        raise ConfigurationError(f"git archive of {text!r} failed: {archive.stderr.decode().strip()}; give a folder instead")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        members = [member for member in tar.getmembers() if member.isfile()]
        return {member.name: _member_bytes(tar, member) for member in members}


def _member_bytes(tar: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    extracted = tar.extractfile(member)
    return extracted.read() if extracted is not None else b""


def _tree(label: str, files: Mapping[str, bytes]) -> SpecTree:
    return SpecTree(label=label, schemas=_schemas_of(label, files), registries=_registries_of(label, files))


def _schemas_of(label: str, files: Mapping[str, bytes]) -> dict[str, dict[str, Any]]:
    schemas: dict[str, dict[str, Any]] = {}
    for path, data in sorted(files.items()):
        top, spec, name = [*path.split("/", 2), "", ""][:3]
        if top == "schemas" and name.endswith(".json") and spec not in _NOT_SPECS:
            schemas.setdefault(spec, {})[name] = _parsed(label, path, data, json.loads)
    return schemas


def _registries_of(label: str, files: Mapping[str, bytes]) -> dict[str, dict[str, Any]]:
    beside = {
        path: data for path, data in files.items() if path.startswith(f"{_SUITES_FOLDER}/") and path.endswith(_REGISTRY_FILE)
    }
    if beside:
        documents = [_registry_document(label, path, data) for path, data in sorted(beside.items())]
        return {str(document.get("spec", "")): document for document in documents}
    root = next((folder for folder in _REGISTRY_FOLDERS if any(path.startswith(f"{folder}/") for path in files)), None)
    if root is None:
        return {}
    registries = {}
    for path, data in sorted(files.items()):
        name = path.removeprefix(f"{root}/")
        if path.startswith(f"{root}/") and "/" not in name and name.endswith(".toml"):
            registries[name.removesuffix(".toml")] = _registry_document(label, path, data)
    return registries


def _parsed(label: str, path: str, data: bytes, parse: Callable[[str], Any]) -> Any:
    try:
        return parse(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise ConfigurationError(f"{path} in {label} cannot be read: {error}; fix the file or give another version") from error


def _registry_document(label: str, path: str, data: bytes) -> dict[str, Any]:
    document: dict[str, Any] = _parsed(label, path, data, tomllib.loads)
    entries = document.get("requirement", [])
    ids = [entry.get("id") if isinstance(entry, dict) else None for entry in entries] if isinstance(entries, list) else [None]
    if not all(isinstance(rid, str) for rid in ids) or len(set(ids)) != len(ids):
        raise ConfigurationError(f"{path} in {label}: every [[requirement]] needs an id of its own; fix the registry")
    return document
