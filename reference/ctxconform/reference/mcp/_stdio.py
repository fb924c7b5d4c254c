"""MCP over stdin and stdout without a thread per line: the SDK's session on the event loop's own pipe streams.

The SDK's stdio transport reads each line and writes and flushes each message on a worker thread, four thread hand-offs
a call. When stdin and stdout are pipes (or sockets), this transport reads and writes them on the event
loop instead, and hands the SDK's `stdio_server` the two streams; anything else (a file, a terminal) gets the SDK's own.
As the SDK does, it moves the wire off descriptors 0 and 1 while serving (0 reads the null device, 1 writes to stderr),
so a child process or a stray print cannot corrupt the messages.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Awaitable, Callable
from typing import Any, Final, Self

from mcp.server.stdio import stdio_server

from ctxconform.reference.mcp._fastpath import FastPath

__all__ = ["serve_stdio"]

_LONGEST_LINE: Final = 1 << 30  # bytes: a message is one line, and the suite sends megabyte fields
Run = Callable[[Any, Any], Awaitable[None]]


class _Lines:
    """The lines of a pipe, as the text the SDK's reader expects (undecodable bytes replaced), less those `fast` answers."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, fast: FastPath | None) -> None:
        self.reader, self.writer, self.fast = reader, writer, fast

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> str:
        while True:
            line = await self.reader.readline()
            if not line:
                raise StopAsyncIteration
            text = line.decode("utf-8", errors="replace")
            answer = None if self.fast is None else self.fast.take(text)
            if answer is None:
                return text
            self.writer.write(answer)
            await self.writer.drain()


class _Writer:
    """Text written to a pipe; `flush` waits until the pipe has taken it."""

    def __init__(self, writer: asyncio.StreamWriter, fast: FastPath | None) -> None:
        self.writer, self.fast = writer, fast

    async def write(self, text: str) -> int:
        """Queue `text` (UTF-8) for the pipe."""
        if self.fast is not None:
            self.fast.sent(text)
        self.writer.write(text.encode("utf-8"))
        return len(text)

    async def flush(self) -> None:
        """Wait until the queued text is written."""
        await self.writer.drain()


async def serve_stdio(run: Run, fast: FastPath | None = None) -> None:
    """Serve `run(read_stream, write_stream)` over stdin and stdout, on pipe streams when both are pipes.

    On pipes, the calls `fast` can answer as the SDK would are answered without it.
    """
    if not (_is_stream(0) and _is_stream(1)):
        async with stdio_server() as (read_stream, write_stream):
            await run(read_stream, write_stream)
        return
    wire_in, wire_out = _claim_wire()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_LONGEST_LINE)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(wire_in, "rb", 0))
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, os.fdopen(wire_out, "wb", 0))
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    try:
        lines, written = _Lines(reader, writer, fast), _Writer(writer, fast)
        async with stdio_server(lines, written) as (read_stream, write_stream):  # type: ignore[arg-type]
            await run(read_stream, write_stream)
    finally:
        transport.close()


def _is_stream(fd: int) -> bool:
    """Whether the event loop can watch this descriptor: a pipe or a socket (epoll refuses files and /dev/null)."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _claim_wire() -> tuple[int, int]:
    """Private copies of descriptors 0 and 1, which then read the null device and write to stderr (never restored)."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    os.close(null)
    return wire_in, wire_out
