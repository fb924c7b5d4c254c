"""`python -m ctxconform.conformance.cli`: the `ctxconform` command without its script."""

from __future__ import annotations

from ctxconform.conformance.cli import main

raise SystemExit(main())
