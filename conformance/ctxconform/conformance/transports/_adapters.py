"""Adapters named by a connection string: `reference`, `python:module:attr`, `stdio:COMMAND ...`, `http://HOST:PORT`, ..."""

from __future__ import annotations

import importlib
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from ctxconform.conformance.exceptions import ConfigurationError
from ctxconform.conformance.transports._implementation import START_TIMEOUT, Implementation
from ctxconform.conformance.transports._inprocess import MessageHandler
from ctxconform.conformance.transports._transport import Transport

__all__ = ["SCHEMES", "Adapter", "Scheme", "connect", "parse_adapter"]

# Where a command is given, the transport starts it; the MCP SDK takes seconds to import, so a transport's module
# is imported only when a run uses it.
_LATER: Final = ("https://",)
_InProcess = "_inprocess:InProcessTransport"


@dataclass(frozen=True)
class Scheme:
    """One kind of connection string: how it starts, how users write it, how its target is read, what carries it."""

    name: str
    prefix: str
    form: str
    transport: str
    target: Callable[[str], str] | None = None
    command: bool = False

    def matches(self, text: str) -> bool:
        """Whether `text` is a connection string of this scheme."""
        return text == self.prefix if self.name == "reference" else text.startswith(self.prefix)


@dataclass(frozen=True)
class Adapter:
    """A parsed connection string: its scheme, and the target or command it names."""

    text: str
    scheme: Scheme
    target: str | None = None
    command: tuple[str, ...] = ()

    @property
    def transport(self) -> str:
        """The scheme's name, such as `stdio` or `mcp+http`."""
        return self.scheme.name

    @property
    def own_instance(self) -> bool:
        """Whether each run of the suites gets an implementation of its own (one the harness starts or builds)."""
        return self.scheme.command or self.scheme.transport == _InProcess

    def make_transport(self) -> Transport:
        """Build a fresh transport for this adapter."""
        carrier = _transport_class(self.scheme.transport)
        if self.scheme.command:
            return carrier(list(self.command))
        if self.scheme.transport == _InProcess:
            return carrier(_load_factory(self.target))
        return carrier(self.target or "")


def _python_target(text: str) -> str:
    target = text.removeprefix("python:")
    if target.count(":") != 1 or not all(target.split(":")):
        raise ConfigurationError(f"adapter {text!r}: write python:package.module:factory")
    return target


def _transport_class(name: str) -> Callable[..., Transport]:
    """The transport class `module:class` names, in this package."""
    module, _, path = name.partition(":")
    found: Any = importlib.import_module(f"{__package__}.{module}")
    for attribute in path.split("."):
        found = getattr(found, attribute)
    return found  # type: ignore[no-any-return]


def parse_adapter(text: str) -> Adapter:
    """Parse a connection string; raise ConfigurationError with the accepted forms when it is not one."""
    text = text.strip()
    scheme = next((scheme for scheme in SCHEMES if scheme.matches(text)), None)
    if scheme is None:
        if text.startswith(_LATER):
            raise ConfigurationError(f"adapter {text!r}: this transport is not available yet; use {_FORMS}")
        raise ConfigurationError(f"unknown adapter {text!r}: use {_FORMS}")
    if scheme.command:
        return Adapter(text, scheme, command=_command(text, scheme.prefix))
    return Adapter(text, scheme, scheme.target(text) if scheme.target else None)


def _address(text: str) -> str:
    """Return HOST:PORT of an http:// adapter; a path, query or credentials are refused."""
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as error:
        raise ConfigurationError(f"adapter {text!r}: write http://HOST:PORT ({error})") from error
    if not parts.hostname or port is None or parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise ConfigurationError(
            f"adapter {text!r}: write http://HOST:PORT, with the port and nothing after it (no path, query or credentials)"
        )
    return f"[{parts.hostname}]:{port}" if ":" in parts.hostname else f"{parts.hostname}:{port}"


def _mcp_url(text: str) -> str:
    """Return the http:// URL of an mcp+http:// adapter; it needs a host and a port, and no credentials."""
    url = text.removeprefix("mcp+")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise ConfigurationError(f"adapter {text!r}: write mcp+http://HOST:PORT/PATH ({error})") from error
    if not parts.hostname or port is None or parts.username or parts.fragment:
        raise ConfigurationError(f"adapter {text!r}: write mcp+http://HOST:PORT/PATH, e.g. mcp+http://127.0.0.1:8000/mcp")
    return url


def _command(text: str, prefix: str) -> tuple[str, ...]:
    try:
        command = tuple(shlex.split(text.removeprefix(prefix)))
    except ValueError as error:
        raise ConfigurationError(f"adapter {text!r}: cannot split the command ({error})") from error
    if not command:
        raise ConfigurationError(f"adapter {text!r}: give the command after {prefix!r}, e.g. {prefix}python -m my_impl")
    return command


# The one table of connection strings; the first scheme whose prefix matches is the adapter's.
SCHEMES: Final[tuple[Scheme, ...]] = (
    Scheme("reference", "reference", "reference", _InProcess, target=lambda _: "ctxconform.reference:in_process_reference"),
    Scheme("python", "python:", "python:MODULE:ATTR", _InProcess, target=_python_target),
    Scheme("stdio", "stdio:", "stdio:COMMAND", "_stdio:StdioTransport", command=True),
    Scheme("mcp+stdio", "mcp+stdio:", "mcp+stdio:COMMAND", "_mcp:McpStdioTransport", command=True),
    Scheme("mcp+http+serve", "mcp+http+serve:", "mcp+http+serve:COMMAND", "_mcp_http:McpHttpServeTransport", command=True),
    Scheme("mcp+http", "mcp+http://", "mcp+http://HOST:PORT/PATH", "_mcp_http:McpHttpTransport", target=_mcp_url),
    Scheme(
        "http+serve", "http+serve:", "http+serve:COMMAND", "_shared_context_http:SharedContextHttpServeTransport", command=True
    ),
    Scheme("http", "http://", "http://HOST:PORT", "_shared_context_http:SharedContextHttpTransport.at", target=_address),
)
_FORMS: Final = ", ".join(scheme.form for scheme in SCHEMES)


def connect(
    adapter: Adapter,
    state_dir: Path,
    *,
    timeout: float,
    options: dict[str, Any] | None = None,
    start_timeout: float = START_TIMEOUT,
) -> Implementation:
    """Return an (unstarted) implementation handle for an adapter; `options` go to the implementation in start."""
    transport = adapter.make_transport()
    # A server already running is one instance; every other transport starts its own, so a second one can share state.
    reopen = None if adapter.scheme.target and adapter.scheme.transport != _InProcess else adapter.make_transport
    return Implementation(
        adapter.text, transport, state_dir, timeout=timeout, options=options, start_timeout=start_timeout, reopen=reopen
    )


def _load_factory(target: str | None) -> Callable[[], MessageHandler]:
    assert target is not None
    module_name, _, attribute = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ConfigurationError(f"cannot import {module_name!r} ({error}); is it installed in this environment?") from error
    factory: Any = getattr(module, attribute, None)
    if not callable(factory):
        raise ConfigurationError(
            f"{module_name} has no callable {attribute!r}; name a class or function returning an object with handle(message)"
        )
    return factory  # type: ignore[no-any-return]
