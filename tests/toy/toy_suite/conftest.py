"""The toy suite registers its own registry: the kit ships no toy-counter."""

from pathlib import Path

from ctxconform.conformance.testing import add_registry

add_registry(Path(__file__).resolve().parents[1] / "toy-counter.toml")
