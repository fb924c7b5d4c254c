"""Spec changes: two versions of the schemas and registries compared, each change classified."""

from __future__ import annotations

from ctxconform.conformance.specdiff._diff import Change, SpecDiff, SpecTree, diff_specs, load_tree

__all__ = ["Change", "SpecDiff", "SpecTree", "diff_specs", "load_tree"]
