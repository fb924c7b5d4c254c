"""The public API: what each package exports is pinned, so a change to it is a deliberate one."""

from __future__ import annotations

import importlib

import pytest

PUBLIC = {
    "ctxconform.conformance": [
        "SPECS", "Adapter", "Exchange", "Implementation", "Registry", "Reply", "Report", "Requirement", "SpecInfo",
        "Started", "connect", "load_registry", "parse_adapter",
    ],
    "ctxconform.conformance.exceptions": [
        "ConfigurationError", "ImplementationCrashed", "ImplementationErrored", "ImplementationTimeout",
        "ImplementationUnavailable", "ProtocolViolation", "RequirementFailure", "TransportFailure", "Uncarriable",
        "UndeclaredRequirement",
    ],
    "ctxconform.conformance.testing": [
        "Checked", "Client", "GoldenPart", "GoldenScript", "GoldenStep", "Implementation", "Operation", "Operations",
        "Reply", "RequirementFailure", "RequirementId", "Uncarriable", "add_registry", "check", "check_equal", "check_in",
        "check_schema", "compare_parts", "fail", "fixtures_dir", "golden_params", "load_script", "needs_feature",
        "replay_script", "requirement", "schema_errors", "unique_hex", "unique_uuid",
    ],
    "ctxconform.reference": ["PROTOCOL_VERSION", "Reference"],
    "ctxconform.reference.exceptions": ["SpecError", "StoreError"],
    "ctxconform.reference.shared_context": [
        "MAX_KEY_LENGTH", "MAX_STORE_TOKENS", "MAX_VALUE_TOKENS", "SPEC_VERSION", "WARN_VALUE_TOKENS", "Entry",
        "MemoryStore", "Metadata", "SQLiteStore", "Session", "SharedContext", "Store", "Transaction", "check_key",
        "estimate_tokens", "open_store", "utc_now",
    ],
    "ctxconform.reference.read_context": [
        "GAP_DEFAULTS", "NOTES_HEAD_LINES", "NOTES_TAIL_LINES", "NOTES_TRUNCATION_THRESHOLD", "RECENT", "SPEC_VERSION",
        "LineCounter", "ReadContext", "parse_brief", "summarize_notes",
    ],
    "ctxconform.reference.mcp": ["MAX_BODY_BYTES", "SESSION_META", "SharedContextConnection", "build_server", "main"],
    "ctxconform.reference.context_assembly": [
        "DEFAULT_MINIMUM_RECENT", "DEFAULT_MODEL_LIMIT", "DEFAULT_STRATEGY", "DEFAULT_TOKEN_BUFFER", "MARKER",
        "SPEC_VERSION", "assemble", "estimate",
    ],
    "ctxconform.reference.context_snapshot": [
        "ALGORITHMS", "ANCHOR_PREFIX", "FEATURES", "KINDS", "MAX_CONTENT_BYTES", "MAX_PATH", "PREVIEW_LIMIT",
        "RETENTION_STRATEGIES", "SPEC_VERSION", "STRATEGIES", "UPLOADS_REF", "Actor", "ContextSnapshotHandler",
        "ContextSnapshots", "GitRepository", "Header", "Item", "Kind", "ObjectId", "Repositories", "Snapshot",
        "SnapshotStore", "blob_id",
    ],
    "ctxconform.reference.stdio": ["main", "serve"],
    "ctxconform.reference.http": ["MAX_BODY_BYTES", "HttpError", "Tokens", "build_server", "main", "mint_token"],
    "ctxconform.reference.content_provider": [
        "CLASSIFICATIONS", "SPEC_VERSION", "TOOL_CALL_MANIFEST", "CompletionTrace", "ComposedRequest", "ContentProvider",
        "ContentProviderHandler", "ContentProviders", "Execution", "MemoryProviderStore", "ProviderStore", "Register",
        "SQLiteProviderStore", "TokenTotals", "ToolCall", "compose", "from_document", "open_handler", "open_provider_store",
        "to_document",
    ],
    "ctxconform.reference.mutants": ["MUTANTS", "Mutant", "mutant_named"],
}  # fmt: skip


@pytest.mark.parametrize("module", list(PUBLIC))
def test_each_package_exports_exactly_its_public_names(module: str) -> None:
    """`__all__` is the pinned list, and every name in it exists and has a docstring."""
    loaded = importlib.import_module(module)
    assert sorted(loaded.__all__) == sorted(PUBLIC[module])
    for name in loaded.__all__:
        value = getattr(loaded, name)
        if callable(value):
            assert value.__doc__, f"{module}.{name} has no docstring"


def test_both_packages_ship_py_typed() -> None:
    """Type checkers see the annotations of both halves of the namespace package."""
    for module in ("ctxconform.conformance", "ctxconform.reference"):
        package = importlib.import_module(module)
        assert (importlib.resources.files(package) / "py.typed").is_file()
