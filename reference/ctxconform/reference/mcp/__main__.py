"""``python -m ctxconform.reference.mcp``: hand the start to this state directory's fork server, else start here."""

from __future__ import annotations

import os
import sys

from ctxconform.reference.mcp._handover import hand_over

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn


def _main() -> int:
    status = hand_over(sys.argv[1:])
    if status is not None:
        return status
    from ctxconform.reference.mcp._main import main  # noqa: PLC0415 - the SDK's import is what a hand-over saves

    return _exit_now(main())


def _exit_now(status: int) -> NoReturn:
    """Exit without the interpreter's teardown of the MCP SDK's thousands of objects (a quarter of a second).

    The server has closed its stores by now; what is left to do is flush what it wrote.
    """
    import contextlib  # noqa: PLC0415 - loaded by the server already; the launcher never gets here
    import logging  # noqa: PLC0415 - likewise

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(status)


if __name__ == "__main__":
    raise SystemExit(_main())
