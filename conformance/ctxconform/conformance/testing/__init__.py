"""The public API for writing a conformance suite: clients, checks, golden scripts and requirement ids.

A suite test declares the requirements it checks with `@requirement(...)`, calls the implementation through a
`Client`, and reads each reply through checks that name the requirement they check. The kit charges every failure
to exactly that requirement, and counts a requirement as evidenced only by a check of it that ran and held.
"""

from __future__ import annotations

from typing import Final

import pytest

from ctxconform.conformance.exceptions import RequirementFailure, Uncarriable
from ctxconform.conformance.judge._checks import check, check_equal, check_in, check_schema, fail
from ctxconform.conformance.judge._data import fixtures_dir
from ctxconform.conformance.judge._ledger import current_ledger
from ctxconform.conformance.judge._requirement_ids import RequirementId
from ctxconform.conformance.judge._schemas import schema_errors
from ctxconform.conformance.judge._specs import Spec, add_registry
from ctxconform.conformance.judge._unique import unique_hex, unique_uuid
from ctxconform.conformance.testing._client import Checked, Client, Operation, Operations
from ctxconform.conformance.testing._edges import (
    AWKWARD_TEXTS,
    DEGENERATE_TEXTS,
    HOSTILE_NAMES,
    NAME_PAIRS,
    WRONG_TYPES,
    around,
    awkward_texts,
    degenerate_texts,
    hostile_names,
    name_pairs,
    sized_text,
    wrong_types,
    wrong_values,
)
from ctxconform.conformance.testing._golden import (
    GoldenPart,
    GoldenScript,
    GoldenStep,
    compare_parts,
    golden_params,
    load_script,
    replay_script,
)
from ctxconform.conformance.testing._instances import SINGLE_INSTANCE, second_instance
from ctxconform.conformance.transports._implementation import Implementation
from ctxconform.conformance.transports._protocol import Reply

__all__ = [
    "AWKWARD_TEXTS",
    "DEGENERATE_TEXTS",
    "HOSTILE_NAMES",
    "NAME_PAIRS",
    "SINGLE_INSTANCE",
    "WRONG_TYPES",
    "Checked",
    "Client",
    "GoldenPart",
    "GoldenScript",
    "GoldenStep",
    "Implementation",
    "Operation",
    "Operations",
    "Reply",
    "RequirementFailure",
    "RequirementId",
    "Spec",
    "Uncarriable",
    "add_registry",
    "around",
    "awkward_texts",
    "check",
    "check_equal",
    "check_in",
    "check_schema",
    "compare_parts",
    "degenerate_texts",
    "edge",
    "fail",
    "fixtures_dir",
    "golden_params",
    "hostile_names",
    "load_script",
    "name_pairs",
    "needs_feature",
    "replay_script",
    "requirement",
    "schema_errors",
    "second_instance",
    "sized_text",
    "unique_hex",
    "unique_uuid",
    "wrong_types",
    "wrong_values",
]

requirement: Final = pytest.mark.requirement
"""The marker declaring the requirements a test checks: `@requirement(ids.S3_1_NO_VALUES, ...)`."""

edge: Final = pytest.mark.edge
"""The marker naming the class of edge input a test draws: `@edge("identifiers")` (see `EDGES` of the mutants)."""


def needs_feature(spec: str, feature: str) -> None:
    """Skip the rest of the test, before anything is sent, unless the implementation declares `feature` of `spec`."""
    current_ledger().need(spec, feature)
