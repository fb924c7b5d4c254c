"""The reference HTTP service's wire format: request heads parsed with bounds, whole responses built as bytes."""

from __future__ import annotations

import json

import pytest

from ctxconform.reference.shared_context._http_wire import MAX_HEADERS, HttpError, RequestHead, parse_head, response


def test_a_request_head_gives_method_target_length_token_and_persistence() -> None:
    """The fields the service reads come out of a head, header names compared without case."""
    head = parse_head(b"POST /sessions/s/shared_context HTTP/1.1\r\nHost: x\r\ncontent-LENGTH: 12\r\nAuthorization:  Bearer t ")
    assert head == RequestHead("POST", "/sessions/s/shared_context", 12, "Bearer t", keep_alive=True, expects_continue=False)


@pytest.mark.parametrize(
    ("version", "connection", "keep_alive"),
    [
        ("HTTP/1.1", None, True),
        ("HTTP/1.1", "close", False),
        ("HTTP/1.1", "Keep-Alive, Close", False),
        ("HTTP/1.0", None, False),
        ("HTTP/1.0", "keep-alive", True),
    ],
)
def test_a_connection_persists_as_http_1_1_says(version: str, connection: str | None, keep_alive: bool) -> None:
    """HTTP/1.1 keeps a connection unless told to close; HTTP/1.0 closes it unless told to keep it."""
    fields = f"\r\nConnection: {connection}" if connection else ""
    assert parse_head(f"GET / {version}{fields}".encode()).keep_alive is keep_alive


def test_expect_100_continue_is_noticed_on_http_1_1_only() -> None:
    """A client that waits for 100 Continue before its body is told so; an HTTP/1.0 one is not."""
    assert parse_head(b"POST /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 5").expects_continue
    assert not parse_head(b"POST /x HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 5").expects_continue


@pytest.mark.parametrize(
    ("head", "status"),
    [
        (b"GET /", 400),
        (b"GET  / HTTP/1.1", 400),
        (b"G(T / HTTP/1.1", 400),
        (b"GET x HTTP/1.1", 400),
        (b"GET / HTTP/2.0", 505),
        (b"GET / HTTP/1.1\r\nno colon here", 400),
        (b"GET / HTTP/1.1\r\nbad name: x", 400),
        (b"GET / HTTP/1.1\r\n: empty name", 400),
        (b"POST / HTTP/1.1\r\nContent-Length: -1", 400),
        (b"POST / HTTP/1.1\r\nContent-Length: 1e3", 400),
        (b"POST / HTTP/1.1\r\nContent-Length: \xd9\xa3", 400),
        (b"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2", 400),
        (b"POST / HTTP/1.1\r\nAuthorization: a\r\nAuthorization: b", 400),
        (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked", 501),
        (b"GET / HTTP/1.1" + b"\r\nX: y" * (MAX_HEADERS + 1), 431),
    ],
)
def test_a_head_http_does_not_allow_here_is_refused_with_its_status(head: bytes, status: int) -> None:
    """Malformed lines, unknown versions, ambiguous lengths or tokens, chunked bodies and too many fields: each refused."""
    with pytest.raises(HttpError) as refused:
        parse_head(head)
    assert (refused.value.status, refused.value.code) == (status, "INVALID_REQUEST")
    assert len(refused.value.message) < 300


@pytest.mark.parametrize("digits", ["9" * 19, "9" * 5000, "0" * 5000 + "12"])
def test_a_content_length_of_any_number_of_digits_is_read_without_error(digits: str) -> None:
    """Thousands of digits (more than Python reads as an integer) are a length too long to serve; leading zeros count not."""
    length = parse_head(b"POST /x HTTP/1.1\r\nContent-Length: " + digits.encode()).content_length
    assert length == 12 if digits.endswith("12") else length >= 10**18


def test_a_response_is_whole_with_its_length_and_says_when_it_closes() -> None:
    """Status line, content type and length, and Connection: close only when the connection ends after it."""
    kept, closing = response(404, {"error": {"code": "X"}}, close=False), response(200, {"ok": "\ud800"}, close=True)
    head, _, body = kept.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 404 Not Found\r\n")
    assert b"Content-Length: %d" % len(body) in head
    assert b"Connection: close" not in head
    assert json.loads(body) == {"error": {"code": "X"}}
    assert b"Connection: close\r\n" in closing
    assert closing.endswith(b'{"ok":"\\ud800"}')
