"""``python -m ctxconform.reference.mcp``: hand the start to this state directory's fork server, else start here."""

from __future__ import annotations

import sys

from ctxconform.reference.mcp._forkserver import hand_over


def _main() -> int:
    status = hand_over(sys.argv[1:])
    if status is not None:
        return status
    from ctxconform.reference.mcp._main import main  # noqa: PLC0415 - the SDK's import is what a hand-over saves

    return main()


if __name__ == "__main__":
    raise SystemExit(_main())
