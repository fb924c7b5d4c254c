"""Requirement ids of context-assembly (Draft) as constants; generated from the registry, do not edit.

Regenerate with `python -m ctxconform.conformance.judge._requirement_ids`.
"""

from typing import Final

from ctxconform.conformance.testing import RequirementId

SYSTEM_CONTEXT_COMBINATION_AGENT_LEVEL_APPLIES: Final = RequirementId(
    "context-assembly/system-context-combination/agent-level-applies"
)
SYSTEM_CONTEXT_COMBINATION_TREE_LEVEL_APPLIES: Final = RequirementId(
    "context-assembly/system-context-combination/tree-level-applies"
)
SYSTEM_CONTEXT_COMBINATION_AGENT_BEFORE_TREE: Final = RequirementId(
    "context-assembly/system-context-combination/agent-before-tree"
)
SYSTEM_CONTEXT_COMBINATION_COMBINED_TEXT_FORMAT: Final = RequirementId(
    "context-assembly/system-context-combination/combined-text-format"
)
SYSTEM_CONTEXT_COMBINATION_NO_SYSTEM_CONTEXT: Final = RequirementId(
    "context-assembly/system-context-combination/no-system-context"
)
PROVIDER_HANDLING_DEDICATED_FIELD: Final = RequirementId("context-assembly/provider-handling/dedicated-field")
PROVIDER_HANDLING_FIRST_MESSAGE_FALLBACK: Final = RequirementId("context-assembly/provider-handling/first-message-fallback")
MULTI_SOURCE_EDGES_PRIMARY_MAIN_CONTENT: Final = RequirementId("context-assembly/multi-source-edges/primary-main-content")
MULTI_SOURCE_EDGES_PRIMARY_CONTENT_WHITESPACE: Final = RequirementId(
    "context-assembly/multi-source-edges/primary-content-whitespace"
)
MULTI_SOURCE_EDGES_CONTEXT_BEFORE_PRIMARY: Final = RequirementId("context-assembly/multi-source-edges/context-before-primary")
MULTI_SOURCE_EDGES_INSTRUCTION_APPENDED_TO_SYSTEM: Final = RequirementId(
    "context-assembly/multi-source-edges/instruction-appended-to-system"
)
MULTI_SOURCE_EDGES_PROCESSING_ORDER: Final = RequirementId("context-assembly/multi-source-edges/processing-order")
MULTI_SOURCE_EDGES_ORDER_WITHIN_ROLE: Final = RequirementId("context-assembly/multi-source-edges/order-within-role")
EXCLUSION_FILTERING_EXCLUDED_FLAG: Final = RequirementId("context-assembly/exclusion-filtering/excluded-flag")
EXCLUSION_FILTERING_PRUNED_FLAG: Final = RequirementId("context-assembly/exclusion-filtering/pruned-flag")
EXCLUSION_FILTERING_ANNOTATION_EDGE_EXCLUDED: Final = RequirementId(
    "context-assembly/exclusion-filtering/annotation-edge-excluded"
)
EXCLUSION_FILTERING_ANNOTATION_BRANCH: Final = RequirementId("context-assembly/exclusion-filtering/annotation-branch")
EXCLUSION_FILTERING_ANNOTATION_EXPLICIT_INCLUSION: Final = RequirementId(
    "context-assembly/exclusion-filtering/annotation-explicit-inclusion"
)
DIALOGUE_MODE_MESSAGES_ARRAY: Final = RequirementId("context-assembly/dialogue-mode/messages-array")
DIALOGUE_MODE_TRAVERSE_ROOT_TO_CURRENT: Final = RequirementId("context-assembly/dialogue-mode/traverse-root-to-current")
DIALOGUE_MODE_PATH_NOT_IN_TREE: Final = RequirementId("context-assembly/dialogue-mode/path-not-in-tree")
DIALOGUE_MODE_FILTER_EXCLUDED: Final = RequirementId("context-assembly/dialogue-mode/filter-excluded")
DIALOGUE_MODE_SYSTEM_CONTEXT_INCLUDED_BY_DEFAULT: Final = RequirementId(
    "context-assembly/dialogue-mode/system-context-included-by-default"
)
DIALOGUE_MODE_INSTRUCTION_SOURCES_SCOPE: Final = RequirementId("context-assembly/dialogue-mode/instruction-sources-scope")
DIALOGUE_MODE_AUTHOR_TYPE_ROLES: Final = RequirementId("context-assembly/dialogue-mode/author-type-roles")
DIALOGUE_MODE_NON_TEXT_CONTENT: Final = RequirementId("context-assembly/dialogue-mode/non-text-content")
DIALOGUE_MODE_MERGE_CONSECUTIVE_SAME_AUTHOR: Final = RequirementId("context-assembly/dialogue-mode/merge-consecutive-same-author")
DIALOGUE_MODE_MERGE_SEPARATOR: Final = RequirementId("context-assembly/dialogue-mode/merge-separator")
DIALOGUE_MODE_TRUNCATE_ONLY_IF_NEEDED: Final = RequirementId("context-assembly/dialogue-mode/truncate-only-if-needed")
BUFFER_MODE_SINGLE_DOCUMENT_STRING: Final = RequirementId("context-assembly/buffer-mode/single-document-string")
BUFFER_MODE_NO_ROLE_DISTINCTIONS: Final = RequirementId("context-assembly/buffer-mode/no-role-distinctions")
BUFFER_MODE_SYSTEM_CONTEXT_EXCLUDED_BY_DEFAULT: Final = RequirementId(
    "context-assembly/buffer-mode/system-context-excluded-by-default"
)
BUFFER_MODE_SYSTEM_CONTEXT_ENABLED: Final = RequirementId("context-assembly/buffer-mode/system-context-enabled")
BUFFER_MODE_SYSTEM_CONTEXT_PLACEMENT: Final = RequirementId("context-assembly/buffer-mode/system-context-placement")
BUFFER_MODE_TRAVERSE_ACTIVE_PATH: Final = RequirementId("context-assembly/buffer-mode/traverse-active-path")
BUFFER_MODE_VERSION_RESOLUTION: Final = RequirementId("context-assembly/buffer-mode/version-resolution")
BUFFER_MODE_FILTER_EXCLUDED: Final = RequirementId("context-assembly/buffer-mode/filter-excluded")
BUFFER_MODE_CONCATENATE_CONTENT: Final = RequirementId("context-assembly/buffer-mode/concatenate-content")
BUFFER_MODE_CONCATENATION_SEPARATOR: Final = RequirementId("context-assembly/buffer-mode/concatenation-separator")
BUFFER_MODE_APPEND_WORKING_BUFFER: Final = RequirementId("context-assembly/buffer-mode/append-working-buffer")
BUFFER_MODE_TRUNCATION: Final = RequirementId("context-assembly/buffer-mode/truncation")
TRUNCATION_APPLIES_WHEN_EXCEEDS: Final = RequirementId("context-assembly/truncation/applies-when-exceeds")
TRUNCATION_MODEL_LIMIT_DEFAULT: Final = RequirementId("context-assembly/truncation/model-limit-default")
TRUNCATION_TRUNCATE_MIDDLE_DEFAULT: Final = RequirementId("context-assembly/truncation/truncate-middle-default")
TRUNCATION_MIDDLE_REMOVES_FROM_MIDDLE: Final = RequirementId("context-assembly/truncation/middle-removes-from-middle")
TRUNCATION_MIDDLE_KEEPS_RECENT: Final = RequirementId("context-assembly/truncation/middle-keeps-recent")
TRUNCATION_RECENT_NODES_UNIT: Final = RequirementId("context-assembly/truncation/recent-nodes-unit")
TRUNCATION_RECENT_NODES_EXCEED_LIMIT: Final = RequirementId("context-assembly/truncation/recent-nodes-exceed-limit")
TRUNCATION_MARKER_PRESENT: Final = RequirementId("context-assembly/truncation/marker-present")
TRUNCATION_MARKER_FORM: Final = RequirementId("context-assembly/truncation/marker-form")
TRUNCATION_MARKER_BUDGET: Final = RequirementId("context-assembly/truncation/marker-budget")
TRUNCATION_ROLLING_WINDOW_KEEPS_RECENT: Final = RequirementId("context-assembly/truncation/rolling-window-keeps-recent")
TRUNCATION_ROLLING_WINDOW_UNIT: Final = RequirementId("context-assembly/truncation/rolling-window-unit")
TRUNCATION_STOP_AT_LIMIT_ERROR: Final = RequirementId("context-assembly/truncation/stop-at-limit-error")
TRUNCATION_STOP_AT_LIMIT_USER_REMEDIES: Final = RequirementId("context-assembly/truncation/stop-at-limit-user-remedies")
GUARANTEES_SYSTEM_CONTEXT_NEVER_TRUNCATED: Final = RequirementId("context-assembly/guarantees/system-context-never-truncated")
GUARANTEES_SYSTEM_CONTEXT_TOO_LONG: Final = RequirementId("context-assembly/guarantees/system-context-too-long")
GUARANTEES_SYSTEM_ALONE_BUDGET: Final = RequirementId("context-assembly/guarantees/system-alone-budget")
GUARANTEES_SYSTEM_TOO_LONG_UNDER_STOP_AT_LIMIT: Final = RequirementId(
    "context-assembly/guarantees/system-too-long-under-stop-at-limit"
)
GUARANTEES_AT_LEAST_ONE_MESSAGE: Final = RequirementId("context-assembly/guarantees/at-least-one-message")
GUARANTEES_NOTHING_LEFT_AFTER_FILTERING: Final = RequirementId("context-assembly/guarantees/nothing-left-after-filtering")
GUARANTEES_TRUNCATED_FLAG: Final = RequirementId("context-assembly/guarantees/truncated-flag")
GUARANTEES_DROPPED_MESSAGE_COUNT: Final = RequirementId("context-assembly/guarantees/dropped-message-count")
TOKEN_ESTIMATION_FOUR_CHARS_PER_TOKEN: Final = RequirementId("context-assembly/token-estimation/four-chars-per-token")
TOKEN_ESTIMATION_ROUNDING_AND_GRANULARITY: Final = RequirementId("context-assembly/token-estimation/rounding-and-granularity")
TOKEN_ESTIMATION_RESPONSE_BUFFER_RESERVED: Final = RequirementId("context-assembly/token-estimation/response-buffer-reserved")
TOKEN_ESTIMATION_ACTUAL_USAGE_RECORDED: Final = RequirementId("context-assembly/token-estimation/actual-usage-recorded")
USER_PREFERENCES_TRUNCATION_STRATEGY: Final = RequirementId("context-assembly/user-preferences/truncation-strategy")
USER_PREFERENCES_MINIMUM_RECENT_NODES: Final = RequirementId("context-assembly/user-preferences/minimum-recent-nodes")
USER_PREFERENCES_MINIMUM_RECENT_NODES_SCOPE: Final = RequirementId("context-assembly/user-preferences/minimum-recent-nodes-scope")
USER_PREFERENCES_TOKEN_BUFFER: Final = RequirementId("context-assembly/user-preferences/token-buffer")
USER_PREFERENCES_APP_LEVEL_OR_PER_TREE: Final = RequirementId("context-assembly/user-preferences/app-level-or-per-tree")
LOOM_AWARE_EXTENSIONS_ADDITIONAL_CONTEXT: Final = RequirementId("context-assembly/loom-aware-extensions/additional-context")
LOOM_AWARE_EXTENSIONS_PER_NODE_METADATA: Final = RequirementId("context-assembly/loom-aware-extensions/per-node-metadata")
LOOM_AWARE_EXTENSIONS_SYSTEM_LEVEL_LOOM_CONTEXT: Final = RequirementId(
    "context-assembly/loom-aware-extensions/system-level-loom-context"
)
LOOM_AWARE_EXTENSIONS_OPERATIONAL_MEMORY_BLOCK: Final = RequirementId(
    "context-assembly/loom-aware-extensions/operational-memory-block"
)
LOOM_AWARE_EXTENSIONS_SYSTEM_PROMPT_ADDENDUM: Final = RequirementId(
    "context-assembly/loom-aware-extensions/system-prompt-addendum"
)
