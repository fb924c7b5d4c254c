"""The content-provider conformance suite, and the spec it checks."""

from __future__ import annotations

from typing import Final

from ctxconform.conformance.testing import Spec

__all__ = ["SPEC"]

SPEC: Final = Spec.of_package(__file__, "content-provider")
