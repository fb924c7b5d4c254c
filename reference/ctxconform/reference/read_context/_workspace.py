"""Where an image's workspace is: a folder named by the image id under the workspace root, never outside it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from ctxconform.reference.exceptions import SpecError

__all__ = ["MAX_IMAGE_ID", "contained", "workspace_of"]

MAX_IMAGE_ID: Final = 255
_UNSAFE: Final = re.compile(r"[/\\\x00-\x1f\x7f]")


def workspace_of(root: Path, image_id: object) -> Path:
    """Return the image's workspace folder; refuse ids that could name anything else, and unknown images."""
    if not isinstance(image_id, str) or not image_id or len(image_id) > MAX_IMAGE_ID:
        raise SpecError("invalid_image_id", f"image_id must be a non-empty string of at most {MAX_IMAGE_ID} characters")
    if image_id in (".", "..") or _UNSAFE.search(image_id):
        raise SpecError(
            "invalid_image_id", "image_id must be a plain folder name: no separators, control characters, '.' or '..'"
        )
    folder = root / image_id
    if not contained(root, folder):
        raise SpecError("invalid_image_id", f"image {image_id!r} points outside the workspace root; nothing was read")
    if not _is_dir(folder):
        raise SpecError("not_found", f"no workspace for image {image_id!r} under the workspace root")
    return folder


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def contained(root: Path, path: Path) -> bool:
    """Whether `path`, with every symlink followed, is inside `root`."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError, ValueError):  # ValueError: a lone surrogate cannot name a file
        return False
