"""Requirement ids as typed constants: one generated module per suite, so a misspelt id fails when the suite is imported.

Regenerate after a registry change with `python -m ctxconform.conformance.judge._requirement_ids`; a kit test fails while
any generated module is out of date.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Final, NewType

from ctxconform.conformance.judge._registry import Registry
from ctxconform.conformance.judge._specs import load_registry, specs

__all__ = ["RequirementId", "constant_name", "generated_module", "module_path", "write_all"]

RequirementId = NewType("RequirementId", str)
_WIDTH: Final = 131  # the line length of ruff format (130), and the newline
_HEADER: Final = '''"""Requirement ids of {spec} ({version}) as constants; generated from the registry, do not edit.

Regenerate with `python -m ctxconform.conformance.judge._requirement_ids`.
"""

from typing import Final

from ctxconform.conformance.testing import RequirementId

'''


def constant_name(requirement_id: str) -> str:
    """The constant for an id: its part after the spec, upper case, S-prefixed when it starts with a section number."""
    name = re.sub(r"[^A-Za-z0-9]+", "_", requirement_id.split("/", maxsplit=1)[1]).strip("_").upper()
    return f"S{name}" if name[:1].isdigit() else name


def generated_module(registry: Registry) -> str:
    """The source of one spec's constants module."""
    lines = [_HEADER.format(spec=registry.spec, version=registry.version)]
    lines += [_constant(constant_name(r.id), r.id) for r in registry.requirements]
    return "".join(lines)


def _constant(name: str, requirement_id: str) -> str:
    line = f'{name}: Final = RequirementId("{requirement_id}")\n'
    return line if len(line) <= _WIDTH else f'{name}: Final = RequirementId(\n    "{requirement_id}"\n)\n'


def module_path(spec: str) -> Path:
    """Where a spec's constants module lives: `requirements.py` in its suite package."""
    return specs()[spec].suite / "requirements.py"


def write_all(specs: list[str]) -> list[Path]:
    """Write the constants module of each spec; return the ones that changed."""
    changed = []
    for spec in specs:
        path, text = module_path(spec), generated_module(load_registry(spec))
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed


if __name__ == "__main__":
    for path in write_all(list(specs())):
        sys.stdout.write(f"wrote {path}\n")
