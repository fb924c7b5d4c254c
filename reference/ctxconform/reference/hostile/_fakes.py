"""The hostile implementations, each a short function serving the adapter protocol on stdin and stdout.

Each answers as the in-memory reference except where its docstring says; none needs more memory than a reply of the
reference, so a run's peak memory is the harness's. A fake that leaves processes behind marks none of them: the
harness must find them itself.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any, Final

from ctxconform.reference._implementation import Reference
from ctxconform.reference.hostile._catalogue import Catalogue

__all__ = ["HOSTILE"]

Json = dict[str, Any]
HOSTILE: Final = Catalogue()
_MiB: Final = 1 << 20
# A lone surrogate (legal JSON), a forged Markdown row, raw HTML, NUL, an OSC title, a screen clear, a colour left on.
_NASTY: Final = "\ud800|x|\n| forged |<img src=x>\x00\x1b]0;pwned\x07\x1b[2J\x1b[31m"
_Answer = Callable[[Json, Json], bytes | None]


def _messages() -> Iterator[Json]:
    for line in sys.stdin.buffer:
        yield json.loads(line)


def _write(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def _serve(answer: _Answer = lambda _message, _reply: None) -> None:
    """Answer as the reference; `answer(message, reply)` may replace a call's reply by its own bytes."""
    reference = Reference(store_url="memory:")
    for message in _messages():
        reply = reference.handle(message)
        if message["type"] == "start":
            reply = _single_instance(reply)
        own = answer(message, reply) if message["type"] == "call" else None
        _write(own if own is not None else json.dumps(reply).encode() + b"\n")
        if message["type"] == "stop":
            return


def _single_instance(started: Json) -> Json:
    # Its state is in this process's memory: a second instance could not share it.
    specs = {name: {**spec, "features": [*spec["features"], "single_instance"]} for name, spec in started["specs"].items()}
    return {**started, "specs": specs}


def _creates_session(message: Json) -> bool:
    return message.get("op") == "create_session" or (message.get("args") or {}).get("action") == "create_session"


@HOSTILE.fake("FAIL", status="not-conformant", peak_mib=1024)
def huge_reply() -> None:
    """Every call but create_session is answered with a 50 MB string where the result should be an object."""

    def answer(message: Json, reply: Json) -> bytes | None:
        if _creates_session(message):
            return None
        head = json.dumps({"type": "reply", "seq": reply["seq"]})[:-1].encode()
        return head + b', "result": "' + b"x" * (50 * _MiB) + b'"}\n'

    _serve(answer)


@HOSTILE.fake("PROTOCOL", status="not-conformant", peak_mib=1024)
def endless_line() -> None:
    """A call's reply is a line that never ends, written 1 MiB at a time until the harness stops reading."""

    def answer(_message: Json, _reply: Json) -> bytes | None:
        chunk = b"x" * _MiB
        while True:
            _write(chunk)

    _serve(answer)


@HOSTILE.fake("PROTOCOL", status="not-conformant")
def deep_nesting() -> None:
    """A call's result holds lists nested 5,000 levels deep."""
    _serve(lambda _message, reply: b'{"type":"reply","seq":%d,"result":%s%s}\n' % (reply["seq"], b"[" * 5000, b"]" * 5000))


@HOSTILE.fake("FAIL", status="not-conformant")
def nasty_strings() -> None:
    """Every string it sends, its name and version too, ends in a lone surrogate, a forged row, HTML and escapes."""

    def spoiled(value: Any) -> Any:
        if isinstance(value, str):
            return value + _NASTY
        if isinstance(value, list):
            return [spoiled(item) for item in value]
        if isinstance(value, dict):
            return {key: spoiled(item) for key, item in value.items()}
        return value

    def answer(_message: Json, reply: Json) -> bytes:
        keep = {"type": reply["type"], "seq": reply["seq"]}
        return json.dumps({**spoiled(reply), **keep}).encode() + b"\n"

    reference = Reference(store_url="memory:")
    for message in _messages():
        reply = reference.handle(message)
        if message["type"] == "start":
            reply = _single_instance(reply)
            reply["implementation"] = spoiled(reply["implementation"])
        _write(answer(message, reply) if message["type"] == "call" else json.dumps(reply).encode() + b"\n")
        if message["type"] == "stop":
            return


@HOSTILE.fake("PASS", status="partial")
def setsid_grandchild() -> None:
    """It leaves a daemon behind: a grandchild in a session of its own that ignores SIGTERM and sleeps."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            time.sleep(3600)
        os._exit(0)
    os.wait()
    _serve()


@HOSTILE.fake("PASS", status="partial")
def ignores_stop() -> None:
    """It ignores SIGTERM and, asked to stop, says nothing and sleeps."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    reference = Reference(store_url="memory:")
    for message in _messages():
        if message["type"] == "stop":
            time.sleep(3600)
        reply = reference.handle(message)
        reply = _single_instance(reply) if message["type"] == "start" else reply
        _write(json.dumps(reply).encode() + b"\n")


@HOSTILE.fake("TIMEOUT", status="not-conformant", options=("--timeout", "1", "--max-restarts", "2"))
def slow_drip() -> None:
    """A call's reply is written one byte every 50 ms: a line that would take seconds to finish."""

    def answer(_message: Json, reply: Json) -> bytes:
        for byte in json.dumps(reply).encode() + b"\n":
            _write(bytes([byte]))
            time.sleep(0.05)
        return b""

    _serve(answer)


@HOSTILE.fake("TIMEOUT", status="not-conformant", options=("--timeout", "1", "--max-restarts", "2"))
def never_answers() -> None:
    """It reads every call and answers none."""

    def answer(_message: Json, _reply: Json) -> bytes:
        time.sleep(3600)
        return b""

    _serve(answer)


@HOSTILE.fake(status="unavailable", options=("--timeout", "1"))
def never_starts() -> None:
    """It reads the start message and never answers it."""
    sys.stdin.readline()
    time.sleep(3600)


@HOSTILE.fake("PASS", status="partial")
def stderr_flood() -> None:
    """It writes 100 MiB to stderr before it starts, and a line of it with every reply."""
    line = b"noise " * 10_000 + b"\n"
    for _ in range(100 * _MiB // len(line)):
        sys.stderr.buffer.write(line)
    sys.stderr.buffer.flush()

    def answer(_message: Json, reply: Json) -> bytes:
        sys.stderr.buffer.write(line)
        sys.stderr.buffer.flush()
        return json.dumps(reply).encode() + b"\n"

    _serve(answer)


@HOSTILE.fake("PROTOCOL", status="not-conformant")
def binary_garbage() -> None:
    """A call's reply is a line of bytes that are not UTF-8, NUL and escapes among them."""
    _serve(lambda _message, _reply: bytes(range(256)).replace(b"\n", b"") + b"\xff\xfe\xc0\x80\n")


@HOSTILE.fake("PROTOCOL", status="not-conformant")
def wrong_seq() -> None:
    """A call's reply carries another call's sequence number."""
    _serve(lambda _message, reply: json.dumps({**reply, "seq": reply["seq"] + 7}).encode() + b"\n")


@HOSTILE.fake("CRASH", status="not-conformant", options=("--max-restarts", "2"))
def exits_on_call() -> None:
    """It exits with status 9 at its first call."""
    _serve(lambda _message, _reply: os._exit(9))


@HOSTILE.fake("CRASH", status="not-conformant", options=("--timeout", "2", "--max-restarts", "2"))
def orphan_holds_pipe() -> None:
    """At its first call it exits, leaving a child that holds its stdout and stderr open and sleeps."""

    def answer(_message: Json, _reply: Json) -> bytes:
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            time.sleep(3600)
        os._exit(9)

    _serve(answer)


@HOSTILE.fake("CRASH", status="not-conformant", options=("--timeout", "2", "--max-restarts", "2"))
def closes_stdout() -> None:
    """At its first call it closes its stdout and keeps running."""

    def answer(_message: Json, _reply: Json) -> bytes:
        os.close(sys.stdout.fileno())
        time.sleep(3600)
        return b""

    _serve(answer)
