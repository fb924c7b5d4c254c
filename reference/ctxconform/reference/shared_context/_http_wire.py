"""HTTP/1.1 on the wire for the reference's service: a request's head parsed once, and whole responses as bytes.

Only what the service serves: a request line, header fields (names compared without case), a body of
`Content-Length` bytes, and persistent connections as HTTP/1.1 defines them. Anything else is an HttpError with
the status that says why; nothing a client sends is ever more than a bounded number of bytes looked at.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from email.utils import formatdate
from http import HTTPStatus
from typing import Any, Final

from ctxconform.reference.exceptions import SpecError

__all__ = ["MAX_HEADERS", "MAX_HEAD_BYTES", "HttpError", "RequestHead", "error_payload", "parse_head", "response", "status_for"]

MAX_HEAD_BYTES: Final = 64 * 1024
"""The longest request line and header fields together, in bytes (a longer head is 431)."""
MAX_HEADERS: Final = 100
"""The most header fields a request may have (as Python's own HTTP servers allow)."""
_CONFLICTS: Final = frozenset({"SESSION_EXISTS", "SESSION_ARCHIVED", "SNAPSHOT_EXISTS"})
_TOO_LARGE: Final = frozenset({"VALUE_TOO_LARGE", "STORE_FULL"})
_FIXED_STATUS: Final = {"UNAUTHENTICATED": 401, "FORBIDDEN": 403, "UNKNOWN_OP": 404}
_TOKEN: Final = frozenset(b"!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_SERVER: Final = b"Server: ctxconform-reference\r\n"
_LENGTH_DIGITS: Final = 18  # a Content-Length with more significant digits is read as 10**18: too long to serve


def status_for(code: str) -> int:
    """Return the HTTP status that fits a spec error code."""
    if code in _FIXED_STATUS:
        return _FIXED_STATUS[code]
    if code in _CONFLICTS:
        return 409
    if code in _TOO_LARGE:
        return 413
    return 404 if code.endswith("_NOT_FOUND") else 400


class HttpError(Exception):
    """A refusal at the HTTP layer, answered as a spec-style error with its status."""

    def __init__(self, code: str, message: str, status: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status or status_for(code)


def error_payload(error: HttpError | SpecError) -> dict[str, Any]:
    """The JSON payload of a refusal: its code and message."""
    return {"error": {"code": error.code, "message": error.message}}


@dataclass(frozen=True)
class RequestHead:
    """A request line and its header fields: what the service needs of them."""

    method: str
    target: str
    content_length: int
    authorization: str | None
    keep_alive: bool
    expects_continue: bool


def parse_head(head: bytes) -> RequestHead:
    """Parse a request head (without its blank line); raise HttpError for anything HTTP/1.1 does not allow here."""
    lines = head.split(b"\r\n")
    if len(lines) > MAX_HEADERS + 1:
        raise HttpError("INVALID_REQUEST", f"more than {MAX_HEADERS} header fields", status=431)
    method, target, version = _request_line(lines[0])
    fields: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if not colon or not name or not _TOKEN.issuperset(name):
            raise HttpError("INVALID_REQUEST", f"a malformed header field: {line[:100]!r}")
        key = name.decode("ascii").lower()
        text = value.strip(b" \t").decode("latin-1")
        if key in fields and key in ("content-length", "authorization", "transfer-encoding"):
            raise HttpError("INVALID_REQUEST", f"the header field {key} is given twice")
        fields[key] = text if key not in fields else f"{fields[key]}, {text}"
    if "transfer-encoding" in fields:
        raise HttpError("INVALID_REQUEST", "chunked bodies are not served: send the body with a Content-Length", status=501)
    connection = {token.strip().lower() for token in fields.get("connection", "").split(",")}
    keep_alive = "keep-alive" in connection if version == "HTTP/1.0" else "close" not in connection
    expects_continue = version == "HTTP/1.1" and fields.get("expect", "").lower() == "100-continue"
    length = _content_length(fields.get("content-length"))
    return RequestHead(method, target, length, fields.get("authorization"), keep_alive, expects_continue)


def _request_line(line: bytes) -> tuple[str, str, str]:
    parts = line.split(b" ")
    if len(parts) != 3:  # noqa: PLR2004 - method, target, version
        raise HttpError("INVALID_REQUEST", f"a malformed request line: {line[:100]!r}")
    method, target, version = (part.decode("latin-1") for part in parts)
    if version not in ("HTTP/1.1", "HTTP/1.0"):
        raise HttpError("INVALID_REQUEST", f"HTTP version {version[:20]!r} is not served; speak HTTP/1.1", status=505)
    if not method or not _TOKEN.issuperset(parts[0]) or not target.startswith("/"):
        raise HttpError("INVALID_REQUEST", f"a malformed request line: {line[:100]!r}")
    return method, target, version


def _content_length(text: str | None) -> int:
    if text is None:
        return 0
    if not text.isascii() or not text.isdigit():
        raise HttpError("INVALID_REQUEST", "Content-Length is not a number")
    # Past any body served, and Python refuses to read an integer of over 4,300 digits: say "too long" instead.
    significant = text.lstrip("0")
    return int(significant or "0") if len(significant) <= _LENGTH_DIGITS else 10**_LENGTH_DIGITS


class _Date:
    """The Date field, formatted once a second."""

    def __init__(self) -> None:
        self.second = -1
        self.field = b""

    def now(self) -> bytes:
        second = int(time.time())
        if second != self.second:
            self.second, self.field = second, f"Date: {formatdate(second, usegmt=True)}\r\n".encode()
        return self.field


_DATE: Final = _Date()


def response(status: int, payload: dict[str, Any], *, close: bool) -> bytes:
    """A whole response: status line, fields and a compact JSON body (ASCII escapes: lone surrogates stay writable)."""
    body = json.dumps(payload, separators=(",", ":")).encode()
    phrase = HTTPStatus(status).phrase
    head = f"HTTP/1.1 {status} {phrase}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n".encode()
    return head + _SERVER + _DATE.now() + (b"Connection: close\r\n\r\n" if close else b"\r\n") + body
