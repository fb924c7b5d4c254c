"""The catalogue of mutants: what each one breaks."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MUTANTS", "Mutant"]


@dataclass(frozen=True)
class Mutant:
    """A deliberately wrong implementation and the requirement ids the suite must fail for it."""

    name: str
    spec: str
    breaks: tuple[str, ...]
    description: str

    @property
    def adapter(self) -> str:
        """The connection string that runs this mutant in-process."""
        return f"python:ctxconform.reference.mutants:{self.name}"


MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "versions_do_not_increment",
        "shared-context",
        ("shared-context/3.3/version-increments",),
        "an overwrite keeps version 1 instead of incrementing it",
    ),
    Mutant(
        "accepts_long_keys",
        "shared-context",
        ("shared-context/4.3/key-max-length",),
        "write accepts keys of 65 to 80 characters",
    ),
    Mutant(
        "notes_truncate_at_50",
        "read-context",
        ("read-context/summarization/threshold",),
        "notes of 41 to 50 lines come back whole instead of summarized",
    ),
    Mutant(
        "log_oldest_first",
        "read-context",
        ("read-context/loading-order/recent-log-newest-first",),
        "the recent log lists the oldest of the last 10 entries first",
    ),
    Mutant(
        "truncates_system_context",
        "context-assembly",
        ("context-assembly/guarantees/system-context-never-truncated",),
        "a truncated result also loses half of its system context",
    ),
    Mutant(
        "tree_context_first",
        "context-assembly",
        ("context-assembly/system-context-combination/agent-before-tree",),
        "tree-level system context comes before the agent's",
    ),
    Mutant(
        "keeps_annotation_nodes",
        "context-assembly",
        ("context-assembly/exclusion-filtering/annotation-edge-excluded",),
        "nodes reached through annotation edges stay in the context",
    ),
    Mutant(
        "clears_session_on_compose",
        "content-provider",
        ("content-provider/4.3/session-not-cleared",),
        "composing a request empties every Session register",
    ),
    Mutant(
        "consumes_before_delivery",
        "content-provider",
        ("content-provider/4.3/consumable-kept-until-delivered",),
        "composing a request clears the Consumable items it carries before delivery succeeded",
    ),
    Mutant(
        "hashes_without_header",
        "context-snapshot",
        ("context-snapshot/items/blob-git-hash", "context-snapshot/items/blob-sha256"),
        "blob ids hash the content alone, without Git's `blob <size>` header",
    ),
)
