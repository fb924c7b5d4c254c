"""What a new user meets first: misspellings answered with a suggestion, choices listed, a start failure shown whole."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from helpers import Cli

ONE_TEST = ("--spec", "shared-context", "--keyword", "list_keys", "--seed", "1")
# A start that fails after 30 lines of stderr: the last lines say why, as a real crash's traceback would.
CRASHING = (
    f"stdio:{sys.executable} -c "
    "\"import sys; [print('line', i, file=sys.stderr) for i in range(30)]; print('the real reason', file=sys.stderr); "
    'sys.exit(3)"'
)


def test_a_misspelt_requirement_id_gets_a_suggestion(cli: Cli) -> None:
    """--requirement with a typo exits 2 and names the id that was probably meant."""
    done = cli("run", "--requirement", "shared-context/4.1/value-size-limt", "--report-dir", "r")
    assert done.returncode == 2
    assert "did you mean 'shared-context/4.1/value-size-limit'?" in done.stderr


def test_an_id_like_no_other_gets_no_suggestion(cli: Cli) -> None:
    """An id close to none is refused without a misleading guess, and says where the ids are listed."""
    done = cli("run", "--requirement", "shared-context/zzz", "--report-dir", "r")
    assert done.returncode == 2
    assert "did you mean" not in done.stderr
    assert "ctxconform requirements" in done.stderr


def test_a_misspelt_spec_in_a_requirement_id_gets_a_suggestion(cli: Cli) -> None:
    """The spec part of an id is matched too."""
    done = cli("run", "--requirement", "shared-contxt/4.1/value-size-limit", "--report-dir", "r")
    assert done.returncode == 2
    assert "did you mean 'shared-context'?" in done.stderr


def test_spec_diff_help_lists_the_fail_on_choices(cli: Cli) -> None:
    """`spec-diff --help` names every kind --fail-on takes."""
    done = cli("spec-diff", "--help")
    assert "KIND is one of breaking, non-breaking, info" in " ".join(done.stdout.split())


def test_a_crashed_start_shows_the_end_of_its_stderr(cli: Cli, tmp_path: Path) -> None:
    """The table shows the first line and the last lines of a failed start's stderr, where the reason usually is."""
    done = cli("run", "--adapter", CRASHING, *ONE_TEST, "--quiet", "--report-dir", str(tmp_path))
    assert done.returncode == 3, done.stdout + done.stderr
    assert "the real reason" in done.stdout
    assert "line 29" in done.stdout
    assert "lines left out" in done.stdout


def test_the_progress_line_shows_the_total(cli: Cli, tmp_path: Path) -> None:
    """Without --quiet the progress marks end with done/total."""
    done = cli("run", *ONE_TEST, "--report-dir", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert " 6/6" in done.stderr


def test_pytest_without_an_adapter_says_it_tests_the_reference(tmp_path: Path) -> None:
    """Run through pytest with no --ctxconform-adapter, the suites say they test the reference and how to test yours."""
    command = [sys.executable, "-m", "pytest", "--pyargs", "ctxconform.conformance.suites.shared_context", "-k", "list_keys"]
    done = subprocess.run([*command, "-q", "-p", "no:cacheprovider"], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "no --ctxconform-adapter given" in done.stdout
    assert "--ctxconform-adapter=stdio:COMMAND" in done.stdout


def test_pytest_with_an_adapter_says_nothing_of_the_default(tmp_path: Path) -> None:
    """Given an adapter, the note is not printed."""
    command = [sys.executable, "-m", "pytest", "--pyargs", "ctxconform.conformance.suites.shared_context", "-k", "list_keys"]
    command += ["-q", "-p", "no:cacheprovider", "--ctxconform-adapter=reference"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "no --ctxconform-adapter given" not in done.stdout
