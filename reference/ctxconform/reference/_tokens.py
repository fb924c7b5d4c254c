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
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Tokens", "load_tokens", "mint_token"]


def mint_token(secret: bytes, participant: str) -> str:
    """Return the signed token naming `participant` under `secret`."""
    name = base64.urlsafe_b64encode(participant.encode()).rstrip(b"=").decode()
    return f"{name}.{hmac.new(secret, participant.encode(), hashlib.sha256).hexdigest()}"


@dataclass(frozen=True)
class Tokens:
    """Which participant a bearer token names: signed with the secret, or one of the fixed tokens."""

    secret: bytes | None = None
    fixed: Mapping[str, str] = field(default_factory=dict)

    def participant(self, token: str) -> str | None:
        """Return the participant the token names, or None when it names nobody."""
        for known, participant in self.fixed.items():
            if hmac.compare_digest(known.encode(), token.encode()):
                return participant
        return None if self.secret is None else _signed_participant(self.secret, token)


def _signed_participant(secret: bytes, token: str) -> str | None:
    name, dot, signature = token.partition(".")
    if not dot:
        return None
    try:
        participant = base64.urlsafe_b64decode(name + "=" * (-len(name) % 4)).decode()
    except (binascii.Error, ValueError):
        return None
    expected = hmac.new(secret, participant.encode(), hashlib.sha256).hexdigest()
    return participant if hmac.compare_digest(expected.encode(), signature.encode()) else None


def load_tokens(path: str | None) -> Tokens:
    """Read the secret from CTXCONFORM_TOKEN_SECRET and the fixed tokens from `path`; raise ValueError or OSError."""
    secret = os.environ.get("CTXCONFORM_TOKEN_SECRET")
    fixed: Mapping[str, str] = {}
    if path is not None:
        fixed = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(fixed, dict) or not all(isinstance(v, str) for v in fixed.values()):
            raise ValueError(f"{path}: write a JSON object {{token: participant}}")
    return Tokens(secret.encode() if secret else None, fixed)
