"""Helpers shared by the kit's own tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


class Cli:
    """Runs the `ctxconform` command in a child process."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd

    def __call__(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        """Run `ctxconform ARGS` and return the finished process."""
        command = [sys.executable, "-c", "from ctxconform.conformance._cli import main; raise SystemExit(main())", *args]
        return subprocess.run(command, capture_output=True, text=True, cwd=self.cwd, timeout=timeout, check=False)


def load_report(folder: Path) -> dict[str, Any]:
    """Read report.json from a report folder."""
    report: dict[str, Any] = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    return report
