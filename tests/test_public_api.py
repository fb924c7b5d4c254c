"""The public API: what each package exports is pinned, so a change to it is a deliberate one."""

from __future__ import annotations

import importlib
import typing

import pytest

PUBLIC = {
    "ctxconform.conformance": [
        "SPECS", "Adapter", "Exchange", "Implementation", "Registry", "Reply", "Report", "Requirement", "Spec",
        "SpecInfo", "Started", "connect", "load_registry", "parse_adapter", "specs"
    ],
    "ctxconform.conformance.exceptions": [
        "ConfigurationError", "ImplementationCrashed", "ImplementationErrored", "ImplementationTimeout",
        "ImplementationUnavailable", "ProtocolViolation", "RequirementFailure", "TransportFailure", "Uncarriable",
        "UndeclaredRequirement"
    ],
    "ctxconform.conformance.testing": [
        "AWKWARD_TEXTS", "DEGENERATE_TEXTS", "HOSTILE_NAMES", "NAME_PAIRS", "SINGLE_INSTANCE", "WRONG_TYPES", "Checked",
        "Client", "GoldenPart", "GoldenScript", "GoldenStep", "Implementation", "Operation", "Operations", "Reply",
        "RequirementFailure", "RequirementId", "Spec", "Uncarriable", "add_registry", "around", "awkward_texts", "check",
        "check_equal", "check_in", "check_schema", "compare_parts", "degenerate_texts", "edge", "fail", "fixtures_dir",
        "golden_params", "hostile_names", "load_script", "name_pairs", "needs_feature", "replay_script", "requirement",
        "schema_errors", "second_instance", "sized_text", "unique_hex", "unique_uuid", "wrong_types",
        "wrong_values"
    ],
    "ctxconform.conformance.transports": [
        "SCHEMES", "Adapter", "Exchange", "Implementation", "Reply", "Scheme", "SpecInfo", "Started", "connect",
        "parse_adapter"
    ],
    "ctxconform.conformance.judge": [
        "VERDICTS", "Registry", "Requirement", "Spec", "Verdict", "load_registry", "resolve_specs", "specs"
    ],
    "ctxconform.conformance.report": [
        "Baseline", "ImplementationReport", "Report", "RequirementResult", "apply_baseline", "badge_for", "render_ctrf",
        "render_html", "render_junit", "render_markdown"
    ],
    "ctxconform.conformance.run": ["RunOptions", "SuiteRun", "run_suite"],
    "ctxconform.conformance.specdiff": ["Change", "SpecDiff", "SpecTree", "diff_specs", "load_tree"],
    "ctxconform.conformance.cli": ["main"],
    "ctxconform.reference": ["PROTOCOL_VERSION", "HandlerFactory", "Opening", "Reference", "SpecHandler", "in_process_reference"],
    "ctxconform.reference.exceptions": ["SpecError", "StoreError"],
    "ctxconform.reference.shared_context": [
        "HANDLER_FACTORY", "MAX_KEY_LENGTH", "MAX_STORE_TOKENS", "MAX_VALUE_TOKENS", "SPEC_ID", "SPEC_VERSION",
        "WARN_VALUE_TOKENS", "Entry", "MemoryStore", "Metadata", "SQLiteStore", "Session", "SessionState",
        "SharedContext", "SharedContextFactory", "SharedContextHandler", "Store", "Transaction", "check_key",
        "estimate_tokens", "open_store", "utc_now"
    ],
    "ctxconform.reference.shared_context.http": [
        "MAX_BODY_BYTES", "HttpError", "Limits", "Tokens", "build_server", "main", "mint_token"
    ],
    "ctxconform.reference.http": ["MAX_BODY_BYTES", "HttpError", "Tokens", "build_server", "main", "mint_token"],
    "ctxconform.reference.read_context": [
        "GAP_DEFAULTS", "HANDLER_FACTORY", "NOTES_HEAD_LINES", "NOTES_TAIL_LINES", "NOTES_TRUNCATION_THRESHOLD",
        "RECENT", "SPEC_ID", "SPEC_VERSION", "LineCounter", "ReadContext", "ReadContextFactory", "ReadContextHandler",
        "json_object", "parse_brief", "read_text", "split_lines", "summarize_notes"
    ],
    "ctxconform.reference.mcp": [
        "MAX_BODY_BYTES", "SESSION_META", "HandlerTools", "SharedContextConnection", "build_server", "main"
    ],
    "ctxconform.reference.context_assembly": [
        "DEFAULT_MINIMUM_RECENT", "DEFAULT_MODEL_LIMIT", "DEFAULT_STRATEGY", "DEFAULT_TOKEN_BUFFER", "HANDLER_FACTORY",
        "MARKER", "SPEC_ID", "SPEC_VERSION", "Assembler", "ContextAssemblyFactory", "ContextAssemblyHandler", "Finder", "Fitted",
        "Piece", "Step", "assemble", "content_text", "estimate"
    ],
    "ctxconform.reference.context_snapshot": [
        "ALGORITHMS", "ANCHOR_PREFIX", "FEATURES", "HANDLER_FACTORY", "KINDS", "MAX_CONTENT_BYTES", "MAX_PATH",
        "PREVIEW_LIMIT", "RETENTION_STRATEGIES", "SPEC_ID", "SPEC_VERSION", "STRATEGIES", "UPLOADS_REF", "Actor",
        "ContextSnapshotFactory", "ContextSnapshotHandler", "ContextSnapshots", "GitRepository", "Header", "Item",
        "ItemAt", "Kind", "NewItem", "ObjectId", "Repositories", "Snapshot", "SnapshotStore", "SnapshotTransaction",
        "blob_id"
    ],
    "ctxconform.reference.stdio": ["MessageHandler", "main", "serve"],
    "ctxconform.reference.content_provider": [
        "CLASSIFICATIONS", "HANDLER_FACTORY", "SPEC_ID", "SPEC_VERSION", "TOOL_CALL_MANIFEST", "Classification",
        "CompletionTrace", "ComposedRequest", "ContentProvider", "ContentProviderFactory", "ContentProviderHandler",
        "ContentProviders", "Execution", "MemoryProviderStore", "ProviderStore", "Register", "SQLiteProviderStore",
        "TokenTotals", "ToolCall", "compose", "from_document", "open_handler", "open_provider_store", "to_document"
    ],
    "ctxconform.reference.mutants": ["EDGES", "MUTANTS", "Catalogue", "Mutant", "mutant_named"],
    "ctxconform.reference.hostile": ["FAKES", "SELECTION", "Fake", "fake_named"],
    "ctxconform.reference.shared_context.mutants": ["MUTANTS"],
    "ctxconform.reference.read_context.mutants": ["MUTANTS"],
    "ctxconform.reference.context_assembly.mutants": ["MUTANTS"],
    "ctxconform.reference.context_snapshot.mutants": ["MUTANTS"],
    "ctxconform.reference.content_provider.mutants": ["MUTANTS"],
}  # fmt: skip


@pytest.mark.parametrize("module", list(PUBLIC))
def test_each_package_exports_exactly_its_public_names(module: str) -> None:
    """`__all__` is the pinned list, and every name in it exists and has a docstring."""
    loaded = importlib.import_module(module)
    assert sorted(loaded.__all__) == sorted(PUBLIC[module])
    for name in loaded.__all__:
        value = getattr(loaded, name)
        if callable(value) and typing.get_origin(value) is None:  # a type alias (a Literal) cannot carry a docstring
            assert value.__doc__, f"{module}.{name} has no docstring"


def test_both_packages_ship_py_typed() -> None:
    """Type checkers see the annotations of both halves of the namespace package."""
    for module in ("ctxconform.conformance", "ctxconform.reference"):
        package = importlib.import_module(module)
        assert (importlib.resources.files(package) / "py.typed").is_file()


def test_the_old_list_of_specs_is_still_importable() -> None:
    """`SPECS` keeps working: it is the map of `specs()`, found from the suites' `Spec` values."""
    from ctxconform.conformance import SPECS, specs  # noqa: PLC0415 - the import is what is tested

    assert dict(SPECS) == dict(specs())


def test_a_moved_module_names_its_new_place() -> None:
    """Importing a module of the harness by its old path fails with a message naming the new one."""
    with pytest.raises(ModuleNotFoundError, match=r"_report moved: import ctxconform\.conformance\.report\._model"):
        importlib.import_module("ctxconform.conformance._report")


def test_the_old_http_server_name_still_serves() -> None:
    """`ctxconform.reference.http` is the shared-context HTTP server under its old name."""
    old = importlib.import_module("ctxconform.reference.http")
    new = importlib.import_module("ctxconform.reference.shared_context.http")
    assert old.main is new.main
    assert old.build_server is new.build_server
