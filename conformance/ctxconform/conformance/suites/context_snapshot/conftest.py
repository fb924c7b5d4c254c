"""Fixtures of the context-snapshot suite: the client and the repositories the harness made for the implementation."""

from __future__ import annotations

import shutil

import pytest

from ctxconform.conformance.suites.context_snapshot.client import Snapshots
from ctxconform.conformance.suites.context_snapshot.repository import Repository, repositories
from ctxconform.conformance.testing import Implementation


@pytest.fixture(scope="session")
def snapshots(implementation: Implementation) -> Snapshots:
    """The implementation's context-snapshot operations (a handle only: every test makes its own snapshots)."""
    return Snapshots(implementation)


@pytest.fixture(scope="session")
def repos(implementation: Implementation) -> dict[str, Repository]:
    """The SHA-1 and SHA-256 repositories, by object format; the suite needs git to look into them."""
    if shutil.which("git") is None:
        raise RuntimeError("the context-snapshot suite runs git in the implementation's repositories: install git 2.29+")
    return repositories(implementation)


@pytest.fixture(scope="session")
def sha1(repos: dict[str, Repository]) -> Repository:
    """The SHA-1 repository."""
    return repos["sha1"]
