"""Comparing two versions of a spec's document sentence by sentence, with the requirements and tests each change touches."""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping, Sequence
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from ctxconform.conformance.judge._document import Sentence, covers, quote_found, sentences, squeeze
from ctxconform.conformance.judge._registry import Registry

__all__ = [
    "SENTENCE_CHANGES",
    "DocumentDiff",
    "SentenceChange",
    "TouchedRequirement",
    "diff_documents",
    "render_document_markdown",
]

SentenceChangeKind = Literal["removed", "changed", "added"]
SENTENCE_CHANGES: Final[tuple[SentenceChangeKind, ...]] = ("removed", "changed", "added")
_FROZEN = ConfigDict(frozen=True, extra="forbid")
_SAME: Final = 0.6  # how alike two sentences in one changed stretch must be to count as one sentence changed


class TouchedRequirement(BaseModel):
    """A requirement whose quote held a removed or changed sentence (or lay inside it), and the tests that name it."""

    model_config = _FROZEN
    id: str
    level: str
    kind: str
    quote: str
    still_found: bool = Field(description="whether the quote is still found, white space aside, in the new document")
    tests: list[str] = Field(description="the suite tests that name the requirement")


class SentenceChange(BaseModel):
    """One sentence removed, added or changed between the two versions of the document."""

    model_config = _FROZEN
    change: SentenceChangeKind
    old: str | None = Field(description="the sentence in the old version; null when added")
    new: str | None = Field(description="the sentence in the new version; null when removed")
    old_line: int | None
    new_line: int | None
    normative: bool = Field(description="whether either version holds an RFC 2119 keyword")
    requirements: list[TouchedRequirement] = Field(description="for a removed or changed sentence: the requirements it held")


class DocumentDiff(BaseModel):
    """Every sentence change from one version of a spec's document to another, in document order."""

    model_config = _FROZEN
    diff_version: Literal[1] = 1
    spec: str
    old: str
    new: str
    counts: dict[SentenceChangeKind, int] = Field(description="change -> how many sentences")
    changes: list[SentenceChange]

    @property
    def touched(self) -> list[TouchedRequirement]:
        """Every requirement a change touches, once each, in order of appearance."""
        return list({r.id: r for change in self.changes for r in change.requirements}.values())


def diff_documents(
    registry: Registry,
    old_text: str,
    new_text: str,
    *,
    labels: tuple[str, str] = ("old", "new"),
    tests: Mapping[str, Sequence[str]] | None = None,
) -> DocumentDiff:
    """Compare two versions of a spec's document; name, for each removed or changed sentence, the requirements it held."""
    before, after = sentences(old_text), sentences(new_text)
    matcher = difflib.SequenceMatcher(None, [s.text for s in before], [s.text for s in after], autojunk=False)
    pairs = [
        pair for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal" for pair in _pair(before[i1:i2], after[j1:j2])
    ]
    squeezed = squeeze(new_text)
    changes = [_change(old, new, registry, squeezed, tests or {}) for old, new in pairs]
    counts = {kind: sum(c.change == kind for c in changes) for kind in SENTENCE_CHANGES}
    return DocumentDiff(spec=registry.spec, old=labels[0], new=labels[1], counts=counts, changes=changes)


def _pair(old: list[Sentence], new: list[Sentence]) -> Iterator[tuple[Sentence | None, Sentence | None]]:
    """Pair the sentences of one changed stretch: alike ones in order are one sentence changed, the rest removed or added."""
    start = 0
    for sentence in old:
        ratios = [difflib.SequenceMatcher(None, sentence.text, other.text).ratio() for other in new[start:]]
        best = max(range(len(ratios)), key=ratios.__getitem__, default=None)
        if best is None or ratios[best] < _SAME:
            yield sentence, None
            continue
        yield from ((None, added) for added in new[start : start + best])
        yield sentence, new[start + best]
        start += best + 1
    yield from ((None, added) for added in new[start:])


def _change(
    old: Sentence | None, new: Sentence | None, registry: Registry, squeezed_new: str, tests: Mapping[str, Sequence[str]]
) -> SentenceChange:
    held = registry.requirements if old is not None else ()
    touched = [
        TouchedRequirement(
            id=r.id,
            level=r.level,
            kind=r.kind,
            quote=r.quote,
            still_found=quote_found(r.quote, squeezed_new),
            tests=list(tests.get(r.id, ())),
        )
        for r in held
        if old is not None and covers(r.quote, old.text)
    ]
    return SentenceChange(
        change="added" if old is None else "removed" if new is None else "changed",
        old=old.text if old else None,
        new=new.text if new else None,
        old_line=old.line if old else None,
        new_line=new.line if new else None,
        normative=any(s is not None and s.normative for s in (old, new)),
        requirements=touched,
    )


def render_document_markdown(diff: DocumentDiff) -> str:
    """Render a document diff for people: counts, then each change with the requirements and tests it touches."""
    lines = [f"# Document changes of {diff.spec}: {diff.old} \u2192 {diff.new}", ""]
    if not diff.changes:
        return "\n".join([*lines, "No changes.", ""])
    touched = diff.touched
    named = len({test for r in touched for test in r.tests})
    summary = ", ".join(f"{diff.counts.get(kind, 0)} {kind}" for kind in SENTENCE_CHANGES)
    lines += [f"{summary}; {len(touched)} requirements touched, named by {named} tests.", ""]
    for kind in SENTENCE_CHANGES:
        chosen = [change for change in diff.changes if change.change == kind]
        if chosen:
            lines += [f"## {kind.capitalize()} ({len(chosen)})", ""]
            lines += [line for change in chosen for line in _item(change)]
            lines.append("")
    return "\n".join(lines)


def _item(change: SentenceChange) -> Iterator[str]:
    mark = " **normative**" if change.normative else ""
    if change.change == "changed":
        yield f"- line {change.old_line} \u2192 {change.new_line}{mark}"
        yield f"  - old: {_md(change.old)}"
        yield f"  - new: {_md(change.new)}"
    else:
        line, text = (change.new_line, change.new) if change.change == "added" else (change.old_line, change.old)
        yield f"- line {line}{mark}: {_md(text)}"
    for r in change.requirements:
        found = "quote still found" if r.still_found else "**quote no longer found**"
        tests = ", ".join(f"`{test}`" for test in r.tests) or "no test"
        yield f"  - requirement `{r.id}` ({r.level}, {r.kind}; {found}); tests: {tests}"


def _md(text: str | None) -> str:
    return text or ""
