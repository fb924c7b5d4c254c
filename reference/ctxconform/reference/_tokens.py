"""Bearer tokens naming the calling participant, shared by the HTTP and MCP-over-HTTP servers.

A token is ``base64url(participant) + "." + hex HMAC-SHA256(secret, participant)`` with the secret from
``CTXCONFORM_TOKEN_SECRET``, or one of the fixed tokens of a JSON file ``{token: participant}``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

__all__ = ["Tokens", "load_tokens", "mint_token"]

MAX_VERIFIED: Final = 4096
"""The most signed tokens a `Tokens` remembers as checked (each client sends the same one with every request)."""
# Unpadded base64url: a length of 4n+1 never encodes whole bytes.
_NAME: Final = re.compile(r"(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2,3})?")


def mint_token(secret: bytes, participant: str) -> str:
    """Return the signed token naming `participant` under `secret`; raise ValueError for the empty participant."""
    if not participant:
        raise ValueError("a token must name a participant: give a non-empty participant name")
    name = base64.urlsafe_b64encode(participant.encode()).rstrip(b"=").decode()
    return f"{name}.{hmac.new(secret, participant.encode(), hashlib.sha256).hexdigest()}"


@dataclass(frozen=True)
class Tokens:
    """Which participant a bearer token names: signed with the secret, or one of the fixed tokens."""

    secret: bytes | None = None
    fixed: Mapping[str, str] = field(default_factory=dict)
    _verified: dict[str, str] = field(default_factory=dict, compare=False, repr=False)  # signed tokens checked already

    def participant(self, token: str) -> str | None:
        """Return the participant the token names, or None when it names nobody."""
        for known, participant in self.fixed.items():
            if hmac.compare_digest(known.encode(), token.encode()):
                return participant
        if self.secret is None:
            return None
        named = self._verified.get(token)
        if named is None and (named := _signed_participant(self.secret, token)) is not None:
            if len(self._verified) >= MAX_VERIFIED:
                self._verified.clear()  # only the secret's holder can fill it: a bound, not an eviction policy
            self._verified[token] = named
        return named


def _signed_participant(secret: bytes, token: str) -> str | None:
    name, dot, signature = token.partition(".")
    participant = _participant_of(name) if dot else None
    if participant is None:
        return None
    expected = hmac.new(secret, participant.encode(), hashlib.sha256).hexdigest()
    return participant if hmac.compare_digest(expected.encode(), signature.encode()) else None


def _participant_of(name: str) -> str | None:
    """The participant a name part encodes, only when it is the one canonical encoding of a non-empty name."""
    if not name or not _NAME.fullmatch(name):
        return None
    try:
        participant = base64.urlsafe_b64decode(name + "=" * (-len(name) % 4)).decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    # Non-zero spare bits in the last character decode to the same bytes: only the re-encoding is accepted.
    canonical = base64.urlsafe_b64encode(participant.encode()).rstrip(b"=").decode()
    return participant if hmac.compare_digest(canonical, name) else None


def load_tokens(path: str | None) -> Tokens:
    """Read the secret from CTXCONFORM_TOKEN_SECRET and the fixed tokens from `path`; raise ValueError or OSError."""
    secret = os.environ.get("CTXCONFORM_TOKEN_SECRET")
    fixed: Mapping[str, str] = {}
    if path is not None:
        fixed = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(fixed, dict) or not all(isinstance(v, str) for v in fixed.values()):
            raise ValueError(f"{path}: write a JSON object {{token: participant}}")
    return Tokens(secret.encode() if secret else None, fixed)
