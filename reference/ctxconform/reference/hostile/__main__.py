"""Run one hostile implementation on stdin and stdout: ``python -m ctxconform.reference.hostile NAME``."""

from __future__ import annotations

import sys

from ctxconform.reference.hostile import FAKES, fake_named


def main(argv: list[str]) -> int:
    """Serve the fake named by the only argument; exit 2 with the list of names when there is none such."""
    try:
        (name,) = argv
        fake = fake_named(name)
    except (ValueError, KeyError):
        names = ", ".join(fake.name for fake in FAKES)
        print(f"usage: python -m ctxconform.reference.hostile NAME; NAME one of {names}", file=sys.stderr)
        return 2
    fake.serve()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
