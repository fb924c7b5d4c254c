"""Serve the reference's shared-context over HTTP, with bearer tokens naming the calling participant.

Run it as ``python -m ctxconform.reference.shared_context.http --store URL [--host 127.0.0.1] [--port 0] [--tokens FILE]``.
``GET /`` describes the implementation; ``POST /{op}`` runs a session lifecycle operation (participant
``system`` only) and ``POST /sessions/{session_id}/{op}`` the ``shared_context`` tool of one session, the body
being the operation's arguments. Replies are ``{"result": ...}``, ``{"error": {"code", "message"}}`` or
``{"errored": {"message"}}``. A token is ``base64url(participant) + "." + hex HMAC-SHA256(secret, participant)``
with the secret from ``CTXCONFORM_TOKEN_SECRET``, or one of the fixed tokens of ``--tokens`` (``{token: participant}``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import socket
import sys
import traceback
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import unquote, urlsplit

from ctxconform.reference._logging import log_to_stderr
from ctxconform.reference._tokens import Tokens, load_tokens, mint_token
from ctxconform.reference.exceptions import SpecError, StoreError
from ctxconform.reference.shared_context import SharedContext, SharedContextHandler, open_store
from ctxconform.reference.shared_context._http_calls import Answer, Batches, Calls, Pool, store_failed
from ctxconform.reference.shared_context._http_connection import Connection, Limits
from ctxconform.reference.shared_context._http_wire import HttpError, error_payload, status_for

__all__ = ["MAX_BODY_BYTES", "HttpError", "Limits", "Tokens", "build_server", "main", "mint_token"]

Json = dict[str, Any]

# The suite sends megabyte fields, and JSON can take 6 bytes for one character (a NUL is \u0000): 4 MiB is too few.
MAX_BODY_BYTES: Final = 16 * 1024 * 1024
LIFECYCLE_OPS: Final = frozenset({"create_session", "archive_session", "delete_session"})
SESSION_OPS: Final = frozenset({"shared_context"})
SYSTEM: Final = "system"
_NAME: Final = "ctxconform-reference"
_VERSION: Final = "0.1.0"
DEFAULT_LIMITS: Final = Limits()


@dataclass(frozen=True)
class Route:
    """What a request path names: an operation, and the session for session-scoped ones."""

    op: str
    session_id: str | None = None

    @classmethod
    def parse(cls, target: str) -> Route:
        """Split a request target into op and session; raise UNKNOWN_OP or INVALID_REQUEST."""
        parts = urlsplit(target).path.split("/")
        if len(parts) == 2 and parts[1] in LIFECYCLE_OPS:  # noqa: PLR2004 - "/{op}"
            return cls(parts[1])
        if len(parts) == 4 and parts[1] == "sessions" and parts[3] in SESSION_OPS:  # noqa: PLR2004
            try:
                return cls(parts[3], unquote(parts[2], errors="strict"))
            except UnicodeDecodeError as error:
                raise HttpError("INVALID_REQUEST", "the session id in the path is not percent-encoded UTF-8") from error
        raise HttpError("UNKNOWN_OP", f"no operation at {target[:200]!r}; use POST /{{op}} or /sessions/{{id}}/shared_context")


class Service:
    """The HTTP server: one event loop reads and writes every connection; the calls run off it.

    On a store that can batch (SQLite) the calls run on one thread, each batch of those waiting in one commit;
    on others on a pool of threads, concurrently. A connection's next request is served once its last is answered.
    """

    def __init__(
        self,
        address: tuple[str, int],
        handler: SharedContextHandler,
        tokens: Tokens,
        max_body: int = MAX_BODY_BYTES,
        *,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        self.handler = handler
        self.tokens = tokens
        self.max_body = max_body
        self.limits = limits
        self.socket = socket.create_server(address, backlog=128)
        self.server_address = self.socket.getsockname()
        self.connections = 0

    def info(self) -> Json:
        """What GET / answers: the same content as the protocol's `started`."""
        spec = {"version": self.handler.version, "features": list(self.handler.features)}
        return {"implementation": {"name": _NAME, "version": _VERSION, "language": "python"}, "specs": {"shared-context": spec}}

    def url(self) -> str:
        """The address the server listens on."""
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    async def serve(self, stopping: asyncio.Event) -> None:
        """Serve connections until `stopping` is set; then let the calls under way end, and close the store."""
        loop = asyncio.get_running_loop()
        service = self.handler.service
        calls: Calls = Batches(service.batch, loop) if service.batches else Pool(self.limits.max_connections, loop)
        server = await loop.create_server(lambda: Connection(self, calls), sock=self.socket)
        try:
            await stopping.wait()
        finally:
            server.close()
            await asyncio.to_thread(calls.close)
            self.handler.close()

    def carry_out(self, target: str, authorization: str | None, body: bytes) -> Answer:
        """The answer to one POST: its status and payload (run off the event loop)."""
        try:
            return 200, {"result": self.answer(Route.parse(target), authorization, body)}
        except (HttpError, SpecError) as error:
            return (error.status if isinstance(error, HttpError) else status_for(error.code)), error_payload(error)
        except StoreError as error:
            return store_failed(error)
        except Exception as error:
            traceback.print_exc(file=sys.stderr)
            return 500, {"errored": {"message": f"the server failed unexpectedly ({type(error).__name__})"}}

    def answer(self, route: Route, authorization: str | None, body: bytes) -> Json:
        """Authenticate, parse the body and carry out the call; raise HttpError or SpecError to refuse it."""
        participant = self._participant(authorization)
        if route.session_id is None and participant != SYSTEM:
            raise HttpError("FORBIDDEN", f"{route.op} is a system operation; participant {participant!r} may not call it")
        args = _json_object(body)
        context = (
            {"participant": participant}
            if route.session_id is None
            else {"session_id": route.session_id, "participant": participant}
        )
        return self.handler.call(route.op, args, context)

    def _participant(self, authorization: str | None) -> str:
        scheme, _, token = (authorization or "").partition(" ")
        participant = self.tokens.participant(token.strip()) if scheme.lower() == "bearer" else None
        if participant is None:
            raise HttpError("UNAUTHENTICATED", "give a valid token: Authorization: Bearer <token>")
        return participant


def _json_object(body: bytes) -> Json:
    try:
        args = json.loads(body)
    except (ValueError, RecursionError) as error:
        raise HttpError("INVALID_REQUEST", f"the body is not JSON ({type(error).__name__})") from error
    if not isinstance(args, dict):
        raise HttpError("INVALID_REQUEST", f"the body must be a JSON object, got {type(args).__name__}")
    return args


def build_server(
    store_url: str,
    host: str,
    port: int,
    tokens: Tokens,
    max_body: int = MAX_BODY_BYTES,
    *,
    limits: Limits = DEFAULT_LIMITS,
) -> Service:
    """Open the store and bind the server (port 0 picks a free one)."""
    return Service((host, port), SharedContextHandler(SharedContext(open_store(store_url))), tokens, max_body, limits=limits)


def serve(server: Service) -> None:
    """Serve until SIGTERM or SIGINT, then let the calls under way end and close the store."""
    asyncio.run(_serve_until_signalled(server))


async def _serve_until_signalled(server: Service) -> None:
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopping.set)
    serving = asyncio.create_task(server.serve(stopping))
    await asyncio.sleep(0)  # listening from here on: the socket was bound before the loop started
    print(f"listening on {server.url()}", flush=True)
    await serving


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and serve shared-context over HTTP."""
    parser = argparse.ArgumentParser(prog="python -m ctxconform.reference.shared_context.http", description=__doc__)
    parser.add_argument("--store", required=True, help="store URL: sqlite:///path.db or memory:")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port to bind (default 0: a free one)")
    parser.add_argument("--tokens", help="JSON file {token: participant} of fixed tokens")
    parser.add_argument("--max-body-bytes", type=int, default=MAX_BODY_BYTES, help="largest request body (default 16 MiB)")
    parser.add_argument("--request-timeout", type=float, default=Limits.request_timeout, help="seconds to send a request")
    parser.add_argument("--idle-timeout", type=float, default=Limits.idle_timeout, help="seconds idle before closing")
    parser.add_argument("--max-connections", type=int, default=Limits.max_connections, help="open connections at most")
    options = parser.parse_args(argv)
    log_to_stderr()
    try:
        tokens = load_tokens(options.tokens)
        limits = Limits(options.request_timeout, options.idle_timeout, options.max_connections)
        server = build_server(options.store, options.host, options.port, tokens, options.max_body_bytes, limits=limits)
    except (OSError, ValueError, StoreError) as error:
        print(f"ctxconform reference http: {error}", file=sys.stderr)
        return 2
    serve(server)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
