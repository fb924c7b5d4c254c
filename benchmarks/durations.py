"""Measure how long each test file of each suite takes against the reference, and write each suite's durations.json.

Run: python benchmarks/durations.py [--runs N]. `ctxconform run -j N` deals the files out to its children by these
figures (the median of N in-process runs, dev profile, one child), so that the children finish together.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from ctxconform.conformance.judge._specs import specs
from ctxconform.conformance.run._shards import DURATIONS


def one_run(folder: Path) -> dict[str, dict[str, float]]:
    """Seconds per test file, by spec id, from one in-process run of every suite."""
    cli = "from ctxconform.conformance.cli._main import main; raise SystemExit(main())"
    command = [sys.executable, "-c", cli, "run", "--seed", "1", "--profile", "dev", "-j", "1", "--quiet"]
    done = subprocess.run([*command, "--report-dir", str(folder)], capture_output=True, text=True, check=False)  # noqa: S603
    if done.returncode != 0:
        raise SystemExit(f"the run failed (exit {done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    (implementation,) = json.loads((folder / "report.json").read_text(encoding="utf-8"))["implementations"]
    seconds: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for test in implementation["tests"]:
        # A test id is the suite's folder, then the file's path in it: shared_context/test_keys.py::...
        path = test["id"].partition("::")[0].partition("/")[2]
        seconds[test["spec"]][path] += test["duration_s"]
    return seconds


def main() -> int:
    """Run the suites, then write the median seconds of each file into its suite's durations.json."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3, help="runs to take the median of (default 3)")
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as work:
        measured = [one_run(Path(work) / str(n)) for n in range(runs)]
    for spec in specs().values():
        files = sorted({path for run in measured for path in run.get(spec.id, {})})
        listed = {path: round(statistics.median(run.get(spec.id, {}).get(path, 0.0) for run in measured), 3) for path in files}
        target = spec.suite / DURATIONS
        target.write_text(json.dumps(listed, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"{target}: {len(listed)} files, {sum(listed.values()):.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
