"""The http transports: shared-context served over HTTP, by a child the harness starts or by a running service.

Protocol messages are translated: `start` is ``GET /`` (its body is the `started` content), a call is
``POST /{op}`` (lifecycle operations) or ``POST /sessions/{session_id}/{op}`` with the arguments as the body and
``Authorization: Bearer <token>`` naming the context's participant, and the reply body (`result`, `error` or
`errored`) becomes the protocol reply. A token is ``base64url(participant) + "." + hex HMAC-SHA256(secret,
participant)``. `http+serve:COMMAND` starts the command with a fresh secret in CTXCONFORM_TOKEN_SECRET and reads
``listening on http://HOST:PORT`` from its stdout; stop ends it, restart starts it again on the same state_dir.
`http://HOST:PORT` talks to a service already running: tokens are signed with the harness's own
CTXCONFORM_TOKEN_SECRET or read from the JSON file CTXCONFORM_TOKENS names (``{participant: token}``), and
restart only reconnects, so durability tests check the service's persistence, not a process restart.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.client
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote, urlsplit

from ctxconform.conformance.exceptions import (
    ImplementationCrashed,
    ImplementationTimeout,
    ImplementationUnavailable,
    ProtocolViolation,
    TransportFailure,
    Uncarriable,
)
from ctxconform.conformance.transports._http_deadline import MAX_BODY_BYTES, DeadlineConnection, bounded, chunks
from ctxconform.conformance.transports._served import ServedChild
from ctxconform.conformance.transports._transport import Translator

__all__ = [
    "MAX_BODY_BYTES",
    "SharedContextHttpServeTransport",
    "SharedContextHttpTransport",
    "TokenFor",
    "environment_tokens",
    "mint_token",
    "signed_tokens",
]

Json = dict[str, Any]
TokenFor = Callable[[str], str | None]

SPEC: Final = "shared-context"
LIFECYCLE_OPS: Final = frozenset({"create_session", "archive_session", "delete_session"})
# Errors of a connection the server may have closed while it sat idle: worth one retry on a fresh connection.
_STALE: Final = (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError)


def mint_token(secret: str, participant: str) -> str:
    """Return the signed token naming `participant` under `secret`; raise Uncarriable for one no token can name."""
    try:
        encoded = participant.encode()
    except UnicodeEncodeError:
        raise Uncarriable("HTTP", "a participant that is not valid Unicode cannot be named in a bearer token") from None
    if not encoded:
        raise Uncarriable("HTTP", "the empty participant has no bearer token: the server refuses it")
    name = base64.urlsafe_b64encode(encoded).rstrip(b"=").decode()
    return f"{name}.{hmac.new(secret.encode(), encoded, hashlib.sha256).hexdigest()}"


def signed_tokens(secret: str) -> TokenFor:
    """Mint a token for any participant with `secret`."""
    return lambda participant: mint_token(secret, participant)


def environment_tokens() -> TokenFor:
    """Tokens from the harness's environment: CTXCONFORM_TOKEN_SECRET, else the file CTXCONFORM_TOKENS names."""
    secret = os.environ.get("CTXCONFORM_TOKEN_SECRET")
    if secret:
        return signed_tokens(secret)
    path = os.environ.get("CTXCONFORM_TOKENS")
    if not path:
        raise ImplementationUnavailable("http", "set CTXCONFORM_TOKEN_SECRET or CTXCONFORM_TOKENS to name the participants")
    try:
        tokens = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ImplementationUnavailable("http", f"cannot read the tokens file {path!r} ({error})") from error
    if not isinstance(tokens, dict):
        raise ImplementationUnavailable("http", f"{path}: write a JSON object {{participant: token}}")
    return lambda participant: t if isinstance(t := tokens.get(participant), str) else None


class _Connection:
    """One persistent HTTP connection to host:port, opened again after a failure."""

    def __init__(self, host: str, port: int, describe: Callable[[], str] = lambda: "") -> None:
        self.host, self.port = host, port
        self._describe = describe
        self._connection: DeadlineConnection | None = None
        self._reused = False

    def request(self, method: str, path: str, body: bytes | None, headers: dict[str, str], timeout: float) -> tuple[int, bytes]:
        """Send one request and return the status and body; raise a TransportFailure."""
        reused = self._reused
        try:
            return self._once(method, path, body, headers, timeout)
        except _STALE as error:
            if not reused:
                raise self._failure(error) from error
        try:
            return self._once(method, path, body, headers, timeout)
        except _STALE as error:
            raise self._failure(error) from error

    def close(self) -> None:
        """Close the connection (a later request opens a new one)."""
        if self._connection is not None:
            self._connection.close()
        self._connection, self._reused = None, False

    def _once(self, method: str, path: str, body: bytes | None, headers: dict[str, str], timeout: float) -> tuple[int, bytes]:
        deadline = time.monotonic() + timeout
        if self._connection is None:
            self._connection = DeadlineConnection(self.host, self.port, timeout=timeout)
        connection = self._connection
        try:
            connection.by(deadline)
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            data = _body(response)
        except _STALE:
            self.close()
            raise
        except (OSError, http.client.HTTPException) as error:
            self.close()
            raise self._failure(error) from error
        except ProtocolViolation:
            self.close()  # the rest of the answer is still on the connection
            raise
        self._reused = not response.will_close
        if response.will_close:
            self.close()
        return response.status, data

    def _failure(self, error: BaseException) -> TransportFailure:
        where = f"http://{self.host}:{self.port}"
        if isinstance(error, TimeoutError):
            return ImplementationTimeout(f"no answer from {where} in time", detail=self._describe())
        if isinstance(error, http.client.HTTPException) and not isinstance(error, http.client.RemoteDisconnected):
            return ProtocolViolation(f"not an HTTP answer from {where}: {type(error).__name__}: {error}")
        return ImplementationCrashed(f"{where}: {type(error).__name__}: {error}", detail=self._describe())


def _body(response: http.client.HTTPResponse) -> bytes:
    """The whole body, read by the call's deadline (a trickle times out), at most MAX_BODY_BYTES long."""
    return b"".join(bounded(chunks(response)))


class SharedContextHttpTransport(Translator):
    """Talks to a shared-context service already running at host:port; restart only reconnects."""

    def __init__(self, host: str, port: int) -> None:
        self._connection = _Connection(host, port, self.detail)
        self._tokens: TokenFor = lambda _participant: None

    @classmethod
    def at(cls, address: str) -> SharedContextHttpTransport:
        """The transport to the service at `HOST:PORT` (an IPv6 host in brackets)."""
        host, _, port = address.rpartition(":")
        return cls(host.strip("[]"), int(port))

    def open(self) -> None:
        """Find the tokens in the environment; the service is already running."""
        self._tokens = environment_tokens()

    def close(self, timeout: float) -> None:  # noqa: ARG002 - nothing to wait for
        """Close the connection; the service keeps running."""
        self._connection.close()

    def detail(self) -> str:
        """What the implementation wrote that may explain a failure (nothing for a remote service)."""
        return ""

    def _start(self, message: Json, timeout: float) -> Json:  # noqa: ARG002 - a running service knows its state
        status, body = self._connection.request("GET", "/", None, {"Accept": "application/json"}, timeout)
        info = _decode(status, body)
        if status != 200 or not {"implementation", "specs"} <= info.keys():  # noqa: PLR2004
            raise ProtocolViolation(f"GET / answered {status} without implementation and specs: {body[:200]!r}")
        return {"type": "started", "implementation": info["implementation"], "specs": info["specs"]}

    def _call(self, message: Json, timeout: float) -> Json:
        op, context = message["op"], message.get("context") or {}
        if message["spec"] != SPEC:
            return {"error": {"code": "UNKNOWN_OP", "message": f"only {SPEC} is served over http"}}
        path = f"/{quote(op, safe='')}" if op in LIFECYCLE_OPS else _session_path(context.get("session_id"), op)
        participant = context.get("participant", "system" if op in LIFECYCLE_OPS else None)
        token = self._tokens(participant) if isinstance(participant, str) else None
        headers = {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {token}"} if token else {})
        body = _encode(message["args"])
        status, data = self._connection.request("POST", path, body, headers, timeout)
        return _reply(status, data)


def _encode(args: object) -> bytes:
    """UTF-8 JSON (a third of the size of ASCII escapes for most text); escapes only when a lone surrogate needs them."""
    try:
        return json.dumps(args, separators=(",", ":"), ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return json.dumps(args, separators=(",", ":")).encode()


def _session_path(session_id: object, op: str) -> str:
    # A lone surrogate cannot be UTF-8: its bytes go as they are, and the server refuses them.
    sid = session_id if isinstance(session_id, str) else ""
    return f"/sessions/{quote(sid.encode('utf-8', 'surrogatepass'), safe='')}/{quote(op, safe='')}"


def _decode(status: int, body: bytes) -> Json:
    try:
        decoded = json.loads(body)
    except (ValueError, RecursionError) as error:
        raise ProtocolViolation(f"HTTP {status} with a body that is not JSON: {body[:200]!r}") from error
    if not isinstance(decoded, dict):
        raise ProtocolViolation(f"HTTP {status} with a body that is not a JSON object: {body[:200]!r}")
    return decoded


def _reply(status: int, body: bytes) -> Json:
    decoded = _decode(status, body)
    kinds = [kind for kind in ("result", "error", "errored") if kind in decoded]
    if len(kinds) != 1:
        raise ProtocolViolation(f"HTTP {status}: the body needs exactly one of result, error, errored: {body[:200]!r}")
    return {kinds[0]: decoded[kinds[0]]}


class SharedContextHttpServeTransport(SharedContextHttpTransport):
    """Starts a command serving shared-context over HTTP, then talks to it; restart starts it again."""

    def __init__(self, command: list[str]) -> None:
        super().__init__("127.0.0.1", 0)
        self._child = ServedChild(command)
        self._tokens = signed_tokens(self._child.secret)

    def open(self) -> None:
        """Nothing to do until `start` says where the state is."""

    def close(self, timeout: float) -> None:
        """Close the connection, then SIGTERM the child's process group, and kill it if it lingers."""
        super().close(timeout)
        self._child.terminate(timeout)

    def detail(self) -> str:
        """The last part of what the child wrote on stderr, and its exit code when it has exited."""
        return self._child.detail()

    def _start(self, message: Json, timeout: float) -> Json:
        url = urlsplit(self._child.launch(message, timeout))
        if url.hostname is None or url.port is None:
            raise ProtocolViolation(f"the implementation is listening on {url.geturl()!r}: name the host and the port")
        self._connection = _Connection(url.hostname, url.port, self.detail)
        return super()._start(message, timeout)
