"""What a run against the reference says about a suite's own honesty: unevidenced requirements and kit bugs.

`python tests/evidence.py SPEC [ADAPTER]` runs the spec's suite and prints one line per problem: a passing test that
declares a requirement none of its checks held, a requirement no check evidenced, a HARNESS verdict.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any


def run_report(spec: str, adapter: str = "reference", seed: int = 1, extra: tuple[str, ...] = ()) -> dict[str, Any]:
    """Run one spec's suite and return the implementation's part of report.json."""
    with tempfile.TemporaryDirectory() as folder:
        command = ["ctxconform", "run", "--adapter", adapter, "--spec", spec, "--seed", str(seed), "--quiet"]
        subprocess.run([*command, "--report-dir", folder, *extra], capture_output=True, check=False)
        report: dict[str, Any] = json.loads((Path(folder) / "report.json").read_text(encoding="utf-8"))
    return report["implementations"][0]  # type: ignore[no-any-return]


def problems(implementation: dict[str, Any]) -> list[str]:
    """Every sign that the suite declares more than it checks, or that the kit failed."""
    found = []
    for test in implementation["tests"]:
        held = {c["requirement"] for c in test["charges"] if c["verdict"] == "PASS"}
        if test["verdict"] == "PASS":
            found += [f"unevidenced: {test['id']} declares {rid}" for rid in test["requirements"] if rid not in held]
        if test["verdict"] not in ("PASS", "SKIP"):
            found.append(f"{test['verdict']}: {test['id']}: {test['message'][:300]}")
    found += [
        f"requirement {r['id']} ({r['kind']}) is {r['verdict']}"
        for r in implementation["requirements"]
        if r["verdict"] not in ("PASS", "SKIP") and r["kind"] != "untestable"
    ]
    return found


if __name__ == "__main__":
    report = run_report(sys.argv[1], *(sys.argv[2:3] or ["reference"]))
    lines = problems(report)
    print("\n".join(lines) or "no problems")
    print(f"{len(lines)} problems; status {report['status']}", file=sys.stderr)
    sys.exit(1 if lines else 0)
