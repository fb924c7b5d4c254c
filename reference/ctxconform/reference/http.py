"""The old name of the reference's shared-context HTTP server, which lives at `ctxconform.reference.shared_context.http`.

``python -m ctxconform.reference.http`` keeps working; new code names the spec: ``python -m
ctxconform.reference.shared_context.http``.
"""

from __future__ import annotations

from ctxconform.reference.shared_context.http import MAX_BODY_BYTES, HttpError, Tokens, build_server, main, mint_token

__all__ = ["MAX_BODY_BYTES", "HttpError", "Tokens", "build_server", "main", "mint_token"]

if __name__ == "__main__":
    raise SystemExit(main())
