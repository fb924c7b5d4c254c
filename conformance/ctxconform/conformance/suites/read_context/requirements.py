"""Requirement ids of read-context (ADR-059) as constants; generated from the registry, do not edit.

Regenerate with `python -m ctxconform.conformance._requirement_ids`.
"""

from typing import Final

from ctxconform.conformance.testing import RequirementId

LOADING_ORDER_RESPONSE_KEY_ORDER: Final = RequirementId("read-context/loading-order/response-key-order")
LOADING_ORDER_DEFAULT_TASTE_ALWAYS_LOADS: Final = RequirementId(
    "read-context/loading-order/default-taste-always-loads"
)
LOADING_ORDER_DECLARED_GENRES_LAYER_ON_TOP: Final = RequirementId(
    "read-context/loading-order/declared-genres-layer-on-top"
)
LOADING_ORDER_CONFLICTS_SURFACED: Final = RequirementId("read-context/loading-order/conflicts-surfaced")
LOADING_ORDER_NO_AUTO_RESOLVE: Final = RequirementId("read-context/loading-order/no-auto-resolve")
LOADING_ORDER_BRIEF_PER_IMAGE: Final = RequirementId("read-context/loading-order/brief-per-image")
LOADING_ORDER_BRIEF_TASTES_DECLARATION: Final = RequirementId("read-context/loading-order/brief-tastes-declaration")
LOADING_ORDER_TASTES_DECLARATION_FORMS: Final = RequirementId("read-context/loading-order/tastes-declaration-forms")
LOADING_ORDER_MULTIPLE_TASTES_LINES: Final = RequirementId("read-context/loading-order/multiple-tastes-lines")
LOADING_ORDER_NOTES_PER_IMAGE: Final = RequirementId("read-context/loading-order/notes-per-image")
LOADING_ORDER_NOTES_TRUNCATED_FLAG: Final = RequirementId("read-context/loading-order/notes-truncated-flag")
LOADING_ORDER_RECENT_LOG_LAST_10: Final = RequirementId("read-context/loading-order/recent-log-last-10")
LOADING_ORDER_RECENT_LOG_NEWEST_FIRST: Final = RequirementId("read-context/loading-order/recent-log-newest-first")
LOADING_ORDER_RECENT_GAPS_LAST_10: Final = RequirementId("read-context/loading-order/recent-gaps-last-10")
LOADING_ORDER_RECENT_GAPS_NEWEST_FIRST: Final = RequirementId("read-context/loading-order/recent-gaps-newest-first")
RESPONSE_SHAPE_TOP_LEVEL_KEYS: Final = RequirementId("read-context/response-shape/top-level-keys")
RESPONSE_SHAPE_TASTES_OBJECT: Final = RequirementId("read-context/response-shape/tastes-object")
RESPONSE_SHAPE_GENRES_MAP: Final = RequirementId("read-context/response-shape/genres-map")
RESPONSE_SHAPE_CONFLICT_ENTRY: Final = RequirementId("read-context/response-shape/conflict-entry")
RESPONSE_SHAPE_BRIEF_RAW: Final = RequirementId("read-context/response-shape/brief-raw")
RESPONSE_SHAPE_BRIEF_INTENT: Final = RequirementId("read-context/response-shape/brief-intent")
RESPONSE_SHAPE_BRIEF_TASTES_LIST: Final = RequirementId("read-context/response-shape/brief-tastes-list")
RESPONSE_SHAPE_NOTES_OBJECT: Final = RequirementId("read-context/response-shape/notes-object")
RESPONSE_SHAPE_LOG_ENTRY_SHAPE: Final = RequirementId("read-context/response-shape/log-entry-shape")
RESPONSE_SHAPE_GAP_RECORD_FIELDS: Final = RequirementId("read-context/response-shape/gap-record-fields")
RESPONSE_SHAPE_GAP_RECORD_DEFAULTS: Final = RequirementId("read-context/response-shape/gap-record-defaults")
RESPONSE_SHAPE_GAP_WORKAROUND: Final = RequirementId("read-context/response-shape/gap-workaround")
RESPONSE_SHAPE_STRUCTURED_TOP_PROSE_BODY: Final = RequirementId(
    "read-context/response-shape/structured-top-prose-body"
)
SUMMARIZATION_THRESHOLD: Final = RequirementId("read-context/summarization/threshold")
SUMMARIZATION_SHORT_NOTES_RAW: Final = RequirementId("read-context/summarization/short-notes-raw")
SUMMARIZATION_HEAD_FIRST_10: Final = RequirementId("read-context/summarization/head-first-10")
SUMMARIZATION_ELISION_MARKER: Final = RequirementId("read-context/summarization/elision-marker")
SUMMARIZATION_TAIL_LAST_30: Final = RequirementId("read-context/summarization/tail-last-30")
SUMMARIZATION_TRUNCATED_TRUE: Final = RequirementId("read-context/summarization/truncated-true")
SUMMARIZATION_DETERMINISTIC: Final = RequirementId("read-context/summarization/deterministic")
SUMMARIZATION_FAST: Final = RequirementId("read-context/summarization/fast")
SUMMARIZATION_NO_MODEL_DEPENDENCY: Final = RequirementId("read-context/summarization/no-model-dependency")
TOLERANCE_MISSING_FILES_EMPTY: Final = RequirementId("read-context/tolerance/missing-files-empty")
TOLERANCE_UNREADABLE_FILES_EMPTY: Final = RequirementId("read-context/tolerance/unreadable-files-empty")
TOLERANCE_FRESH_WORKSPACE: Final = RequirementId("read-context/tolerance/fresh-workspace")
TOLERANCE_MISSING_GENRE_FILE: Final = RequirementId("read-context/tolerance/missing-genre-file")
TOLERANCE_MALFORMED_JSONL_LINES: Final = RequirementId("read-context/tolerance/malformed-jsonl-lines")
TOLERANCE_NON_UTF8_FILES: Final = RequirementId("read-context/tolerance/non-utf8-files")
TOLERANCE_UNKNOWN_IMAGE_ID: Final = RequirementId("read-context/tolerance/unknown-image-id")
CONFLICTS_SHARED_LINE_IN_GENRE_FILES: Final = RequirementId("read-context/conflicts/shared-line-in-genre-files")
CONFLICTS_EMPTY_LINES_NEVER_CONFLICT: Final = RequirementId("read-context/conflicts/empty-lines-never-conflict")
CONFLICTS_COMMENT_LINES: Final = RequirementId("read-context/conflicts/comment-lines")
CONFLICTS_ONLY_GENRE_FILES: Final = RequirementId("read-context/conflicts/only-genre-files")
CONFLICTS_SURROUNDING_WHITESPACE: Final = RequirementId("read-context/conflicts/surrounding-whitespace")
CONFLICTS_NO_SUGGESTED_RESOLUTION: Final = RequirementId("read-context/conflicts/no-suggested-resolution")
CONSEQUENCES_ONE_TOOL_CALL: Final = RequirementId("read-context/consequences/one-tool-call")
CONSEQUENCES_FIXED_SCHEMA: Final = RequirementId("read-context/consequences/fixed-schema")
CONSEQUENCES_MARKDOWN_STAYS_HUMAN_EDITED: Final = RequirementId(
    "read-context/consequences/markdown-stays-human-edited"
)
CONSEQUENCES_SIZE_BOUNDED: Final = RequirementId("read-context/consequences/size-bounded")
CONSEQUENCES_LINE_EQUALITY_BASED: Final = RequirementId("read-context/consequences/line-equality-based")
IMPLEMENTATION_NOTES_TOOL_NAME: Final = RequirementId("read-context/implementation-notes/tool-name")
IMPLEMENTATION_NOTES_LOADER_MODULES: Final = RequirementId("read-context/implementation-notes/loader-modules")
IMPLEMENTATION_NOTES_NOTES_CONSTANTS: Final = RequirementId("read-context/implementation-notes/notes-constants")
IMPLEMENTATION_NOTES_GLOBAL_TASTES_FOLDER: Final = RequirementId(
    "read-context/implementation-notes/global-tastes-folder"
)
IMPLEMENTATION_NOTES_TASTES_DIR_ENV_VAR: Final = RequirementId("read-context/implementation-notes/tastes-dir-env-var")
