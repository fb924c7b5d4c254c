"""Adapters named by a connection string: `reference`, `python:module:attr`, `stdio:COMMAND ...`, `http://HOST:PORT`, ..."""

from __future__ import annotations

import importlib
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ctxconform.conformance._http import HttpTransport
from ctxconform.conformance._implementation import START_TIMEOUT, Implementation
from ctxconform.conformance._inprocess import InProcessTransport, MessageHandler
from ctxconform.conformance._transport import Transport
from ctxconform.conformance.exceptions import ConfigurationError

__all__ = ["Adapter", "connect", "parse_adapter"]

_LATER = ("https://",)
_FORMS = (
    "reference, python:MODULE:ATTR, stdio:COMMAND, mcp+stdio:COMMAND, mcp+http+serve:COMMAND, mcp+http://HOST:PORT/PATH,"
    " http+serve:COMMAND or http://HOST:PORT"
)


@dataclass(frozen=True)
class Adapter:
    """A parsed connection string: which transport, and what it needs."""

    text: str
    transport: str
    target: str | None = None
    command: tuple[str, ...] = ()

    def make_transport(self) -> Transport:
        """Build a fresh transport for this adapter."""
        if self.transport in _COMMAND_TRANSPORTS:
            return _transport_class(_COMMAND_TRANSPORTS[self.transport])(list(self.command))
        if self.transport == "http":
            host, _, port = (self.target or "").rpartition(":")
            return HttpTransport(host.strip("[]"), int(port))
        if self.transport == "mcp+http":
            return _transport_class("_mcp_http:McpHttpTransport")(self.target or "")
        return InProcessTransport(_load_factory(self.target))


# The transports that start a command the user names, as module:class. They are imported when first used:
# the MCP SDK takes seconds to import, and a run that does not speak MCP should not wait for it.
_COMMAND_TRANSPORTS: dict[str, str] = {
    "stdio": "_stdio:StdioTransport",
    "mcp+stdio": "_mcp:McpStdioTransport",
    "mcp+http+serve": "_mcp_http:McpHttpServeTransport",
    "http+serve": "_http:HttpServeTransport",
}


def _transport_class(name: str) -> Callable[..., Transport]:
    """The transport class `module:class` names, in this package."""
    module, _, attribute = name.partition(":")
    found: Callable[..., Transport] = getattr(importlib.import_module(f"ctxconform.conformance.{module}"), attribute)
    return found


def parse_adapter(text: str) -> Adapter:
    """Parse a connection string; raise ConfigurationError with the accepted forms when it is not one."""
    text = text.strip()
    if text == "reference":
        return Adapter(text, "python", "ctxconform.reference:Reference")
    if text.startswith("python:"):
        target = text.removeprefix("python:")
        if target.count(":") != 1 or not all(target.split(":")):
            raise ConfigurationError(f"adapter {text!r}: write python:package.module:factory")
        return Adapter(text, "python", target)
    if text.startswith("http://"):
        return Adapter(text, "http", _address(text))
    if text.startswith("mcp+http://"):
        return Adapter(text, "mcp+http", _mcp_url(text))
    for transport in _COMMAND_TRANSPORTS:
        if text.startswith(prefix := f"{transport}:"):
            return Adapter(text, transport, command=_command(text, prefix))
    if text.startswith(_LATER):
        raise ConfigurationError(f"adapter {text!r}: this transport is not available yet; use {_FORMS}")
    raise ConfigurationError(f"unknown adapter {text!r}: use {_FORMS}")


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
    return Implementation(adapter.text, transport, state_dir, timeout=timeout, options=options, start_timeout=start_timeout)


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
