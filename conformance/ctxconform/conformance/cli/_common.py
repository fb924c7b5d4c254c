"""What the commands share: exit codes, the report folder, atomic writes, seed and profile, the kit's version."""

from __future__ import annotations

import argparse
import math
import os
import random
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Final

from ctxconform.conformance.exceptions import ConfigurationError
from ctxconform.conformance.report._model import ImplementationReport
from ctxconform.conformance.run._profiles import PROFILES
from ctxconform.conformance.run._request import MAX_RESTARTS, MAX_TIMEOUT_S

__all__ = [
    "EXIT_CONFORMANT",
    "EXIT_NOT_CONFORMANT",
    "EXIT_UNAVAILABLE",
    "EXIT_USAGE",
    "MAX_RESTARTS",
    "MAX_TIMEOUT_S",
    "PROFILE_VARIABLE",
    "check_count",
    "check_seconds",
    "exit_code_of",
    "kit_version",
    "profile_of",
    "report_dir",
    "seed_of",
]

EXIT_CONFORMANT: Final = 0
EXIT_NOT_CONFORMANT: Final = 1
EXIT_USAGE: Final = 2
EXIT_UNAVAILABLE: Final = 3
# The default hypothesis profile of runs that name none (before CI decides); the kit's own tests set it to dev.
PROFILE_VARIABLE: Final = "CTXCONFORM_PROFILE"


def check_seconds(flag: str, value: float) -> float:
    """Return `value`; raise ConfigurationError unless it is a finite number of seconds above 0, at most an hour."""
    if not (math.isfinite(value) and 0 < value <= MAX_TIMEOUT_S):
        raise ConfigurationError(
            f"{flag} must be a positive number of seconds, at most {MAX_TIMEOUT_S:g} (got {value!r}); e.g. {flag} 10"
        )
    return value


def check_count(flag: str, value: int, low: int, high: int) -> int:
    """Return `value`; raise ConfigurationError unless `low <= value <= high`."""
    if not low <= value <= high:
        raise ConfigurationError(f"{flag} must be a whole number from {low} to {high} (got {value})")
    return value


def report_dir(path: Path) -> Path:
    """Create the report folder if needed; raise ConfigurationError when it cannot be written."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigurationError(f"cannot create the report folder {path}: {error.strerror}") from error
    if not os.access(path, os.W_OK):
        raise ConfigurationError(f"the report folder {path} is not writable")
    return path


def seed_of(options: argparse.Namespace) -> int:
    """The run's seed: the one given, else a fresh random one (kept in `options` so every use agrees)."""
    if options.seed is None:
        options.seed = random.SystemRandom().randrange(2**32)
    return int(options.seed)


def profile_of(options: argparse.Namespace) -> str:
    """The hypothesis profile: the one given, else CTXCONFORM_PROFILE, else ci when CI is set, else dev."""
    if options.profile:
        return str(options.profile)
    chosen = os.environ.get(PROFILE_VARIABLE) or ("ci" if os.environ.get("CI") else "dev")
    if chosen not in PROFILES:
        message = f"{PROFILE_VARIABLE}={chosen!r} is not a profile; set it to one of {', '.join(PROFILES)}, or unset it"
        raise ConfigurationError(message)
    return chosen


def kit_version() -> str:
    """The installed kit's version."""
    try:
        return version("ctxconform")
    except PackageNotFoundError:
        return "0+unknown"


def exit_code_of(implementations: Sequence[ImplementationReport]) -> int:
    """The exit code of a run's statuses: 3 when one could not start, 0 when none failed, else 1."""
    statuses = {i.status for i in implementations}
    if "unavailable" in statuses:
        return EXIT_UNAVAILABLE
    if statuses <= {"conformant", "known-failures", "partial"}:
        return EXIT_CONFORMANT
    return EXIT_NOT_CONFORMANT
