"""Sessions: tests, lint and typecheck by default; conformance writes reports/."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import nox

os.environ.setdefault("UV_PYTHON_DOWNLOADS", "never")
nox.options.default_venv_backend = "uv"
nox.options.sessions = ["tests", "lint", "typecheck"]
nox.options.reuse_existing_virtualenvs = True


# What the kit runs besides Python, by command -> Debian package: git (2.29 or newer, for SHA-256 repositories) for
# context-snapshot; for the kit's own tests also chromium and its driver (the HTML report in a real browser),
# redis-server (the Redis store), node and go (the examples in those languages and their scaffolds).
MAIN_JOB_PACKAGES = {"git": "git"}
SYSTEM_PACKAGES = MAIN_JOB_PACKAGES | {
    "chromium": "chromium",
    "chromedriver": "chromium-driver",
    "redis-server": "redis-server",
    "node": "nodejs",
    "go": "golang-go",
}


def system_packages(session: nox.Session, needed: dict[str, str]) -> None:
    """Install the Debian packages of the missing commands (as root with apt-get), or stop at once naming them."""
    missing = sorted({package for command, package in needed.items() if shutil.which(command) is None})
    if not missing:
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        session.error(f"these Debian packages are needed: {' '.join(missing)}; install them (apt-get install) or run as root")
    session.run("apt-get", "update", "-qq", external=True)
    session.run("apt-get", "install", "-y", "-qq", *missing, external=True, env={"DEBIAN_FRONTEND": "noninteractive"})


def bytecode_cache(session: nox.Session) -> dict[str, str]:
    """The environment that lets the session's Pythons keep a bytecode cache, under its venv, whatever the machine says."""
    # A run starts many Pythons (a suite child, servers, the tests hundreds); where PYTHONDONTWRITEBYTECODE is set,
    # each compiles every module it imports again (1-3 s a process). The cache lives in the session's venv folder.
    return {"PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": str(Path(session.virtualenv.location) / "pycache")}


@nox.session
def tests(session: nox.Session) -> None:
    """Run the kit's own tests (the reference, the harness, the suites against the reference and the mutants)."""
    system_packages(session, SYSTEM_PACKAGES)
    session.install("-e", ".[dev]")
    # Whole files per worker: their module fixtures run whole suites, once per file.
    arguments = session.posargs or ["-n", "auto", "--dist", "loadfile", "-m", "not slow", "--durations=15"]
    session.run("pytest", *arguments, env=bytecode_cache(session))


@nox.session
def slow(session: nox.Session) -> None:
    """Run the tests marked slow: whole suites over MCP stdio (shared-context's starts one server per participant)."""
    session.install("-e", ".[dev]")
    session.run("pytest", "-m", "slow", "--durations=5", *session.posargs, env=bytecode_cache(session))


@nox.session
def lint(session: nox.Session) -> None:
    """Check style with ruff."""
    session.install("ruff>=0.6")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    """Check types with mypy --strict."""
    session.install("-e", ".[dev]")
    session.run("mypy")


@nox.session
def conformance(session: nox.Session) -> None:
    """Run every suite against the reference and write reports/ (the main job; installs git when missing, as root)."""
    system_packages(session, MAIN_JOB_PACKAGES)
    session.install("-e", ".")
    session.run("ctxconform", "run", "--report-dir", "reports", *session.posargs, env=bytecode_cache(session))


@nox.session
def mutants(session: nox.Session) -> None:
    """Run every mutant against its spec's whole suite: kills, and the charging table (recall, precision, collateral)."""
    session.install("-e", ".")
    arguments = ["--whole", "--seed", "1", "--report-dir", "reports", *session.posargs]
    session.run("ctxconform", "mutants", *arguments, env=bytecode_cache(session))


@nox.session
def hostile(session: nox.Session) -> None:
    """Run every hostile implementation through the harness: verdicts, peak memory and leftover processes, as a table."""
    session.install("-e", ".")
    session.run("ctxconform", "hostile", "--report-dir", "reports", *session.posargs, env=bytecode_cache(session))


@nox.session(name="spec_regression")
def spec_regression(session: nox.Session) -> None:
    """Classify the spec changes since REF (default HEAD) and check the reference's golden outputs: `-- REF`."""
    ref = session.posargs[0] if session.posargs else "HEAD"
    session.install("-e", ".[dev]")
    session.run("ctxconform", "spec-diff", ref, ".", "--output", "reports/spec-diff.md")
    session.run(
        "ctxconform", "spec-diff", ref, ".", "--format", "json", "--output", "reports/spec-diff.json", "--fail-on", "breaking"
    )
    # The kit says which specs it checks and where their suites are; nothing here lists them again.
    suites = [Path(spec["suite"]) for spec in json.loads(session.run("ctxconform", "specs", "--json", silent=True) or "[]")]
    # Golden outputs changed since REF (updated snapshots) show up here as a diff; unexpected changes fail below.
    snapshots = [str(suite / "__snapshots__") for suite in suites]
    session.run("git", "--no-pager", "diff", "--patch-with-stat", ref, "--", *snapshots, external=True)
    snapshot_tests = [str(suite / "test_snapshots.py") for suite in suites if (suite / "test_snapshots.py").is_file()]
    root = os.path.commonpath([str(suite.parent) for suite in suites])
    session.run("pytest", *snapshot_tests, "-c", f"{root}/pytest.ini", "--rootdir", root, "--ctxconform-adapter=reference", "-q")


@nox.session
def durations(session: nox.Session) -> None:
    """Measure each suite file's seconds against the reference and rewrite the suites' durations.json (`-j` uses them)."""
    session.install("-e", ".")
    session.run("python", "benchmarks/durations.py", *session.posargs, env=bytecode_cache(session))


@nox.session
def bench(session: nox.Session) -> None:
    """Measure and print every benchmark figure, and write reports/bench.json (it fails only on `-- --compare SAVED`)."""
    session.install("-e", ".")
    session.run("python", "benchmarks/bench.py", *session.posargs, env=bytecode_cache(session))
