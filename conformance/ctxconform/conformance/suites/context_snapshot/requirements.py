"""Requirement ids of context-snapshot (unversioned) as constants; generated from the registry, do not edit.

Regenerate with `python -m ctxconform.conformance.judge._requirement_ids`.
"""

from typing import Final

from ctxconform.conformance.testing import RequirementId

DEFINITION_OPTIONAL_STATIC_CAPTURE: Final = RequirementId("context-snapshot/definition/optional-static-capture")
DEFINITION_NO_CHANGE_AFTER_CREATION: Final = RequirementId("context-snapshot/definition/no-change-after-creation")
LIFECYCLE_CREATED_WHEN_RUN_INITIALIZED: Final = RequirementId("context-snapshot/lifecycle/created-when-run-initialized")
LIFECYCLE_CAPTURES_INITIAL_STATE: Final = RequirementId("context-snapshot/lifecycle/captures-initial-state")
ITEMS_THREE_LAYERS: Final = RequirementId("context-snapshot/items/three-layers")
ITEMS_PATH_LOCATOR: Final = RequirementId("context-snapshot/items/path-locator")
ITEMS_BLANK_PATH_REJECTED: Final = RequirementId("context-snapshot/items/blank-path-rejected")
ITEMS_BLOB_GIT_HASH: Final = RequirementId("context-snapshot/items/blob-git-hash")
ITEMS_BLOB_SHA256: Final = RequirementId("context-snapshot/items/blob-sha256")
ITEMS_BLOB_HOLDS_FULL_CONTENT: Final = RequirementId("context-snapshot/items/blob-holds-full-content")
ITEMS_PREVIEW_UNDER_500: Final = RequirementId("context-snapshot/items/preview-under-500")
ITEMS_UNIFIED_CONTENT_REFERENCE: Final = RequirementId("context-snapshot/items/unified-content-reference")
ITEMS_FILE_BLOB_IN_GIT_TREE: Final = RequirementId("context-snapshot/items/file-blob-in-git-tree")
ITEMS_URL_CONTENT_AS_BLOB: Final = RequirementId("context-snapshot/items/url-content-as-blob")
ITEMS_SNIPPET_TEXT_AS_BLOB: Final = RequirementId("context-snapshot/items/snippet-text-as-blob")
ITEMS_COMMAND_OUTPUT_AS_BLOB: Final = RequirementId("context-snapshot/items/command-output-as-blob")
ITEMS_IMAGE_BINARY_AS_BLOB: Final = RequirementId("context-snapshot/items/image-binary-as-blob")
ITEMS_BLOB_NONE_IN_DRAFT: Final = RequirementId("context-snapshot/items/blob-none-in-draft")
ITEMS_BLOB_SET_WHEN_FINALIZED: Final = RequirementId("context-snapshot/items/blob-set-when-finalized")
BLOB_RETENTION_UNREACHABLE_BLOBS_PRUNED: Final = RequirementId("context-snapshot/blob-retention/unreachable-blobs-pruned")
BLOB_RETENTION_FILE_BLOBS_REACHABLE: Final = RequirementId("context-snapshot/blob-retention/file-blobs-reachable")
BLOB_RETENTION_APPLICATION_CHOOSES_STRATEGY: Final = RequirementId("context-snapshot/blob-retention/application-chooses-strategy")
BLOB_RETENTION_REF_ANCHORING: Final = RequirementId("context-snapshot/blob-retention/ref-anchoring")
BLOB_RETENTION_ORPHAN_COMMIT: Final = RequirementId("context-snapshot/blob-retention/orphan-commit")
BLOB_RETENTION_KEEP_PACK: Final = RequirementId("context-snapshot/blob-retention/keep-pack")
BLOB_RETENTION_CUSTOM_GC_MARK: Final = RequirementId("context-snapshot/blob-retention/custom-gc-mark")
BLOB_RETENTION_LIBRARY_DOES_NOT_ENFORCE: Final = RequirementId("context-snapshot/blob-retention/library-does-not-enforce")
PURPOSE_REPRODUCIBILITY: Final = RequirementId("context-snapshot/purpose/reproducibility")
PURPOSE_AUDITING: Final = RequirementId("context-snapshot/purpose/auditing")
PURPOSE_CONTENT_DEDUPLICATION: Final = RequirementId("context-snapshot/purpose/content-deduplication")
STRUCTS_CONTEXT_ITEM: Final = RequirementId("context-snapshot/structs/context-item")
STRUCTS_CONTEXT_SNAPSHOT: Final = RequirementId("context-snapshot/structs/context-snapshot")
ENUMS_CONTEXT_ITEM_KIND: Final = RequirementId("context-snapshot/enums/context-item-kind")
ENUMS_OTHER_KIND: Final = RequirementId("context-snapshot/enums/other-kind")
ENUMS_SELECTION_STRATEGY: Final = RequirementId("context-snapshot/enums/selection-strategy")
